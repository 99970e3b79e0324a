/**
 * The builtin engine on a knowledge base in five languages (issue 34: answer in the customer's language).
 *
 *   node bench/bot-eval/languages.ts [--dev-only] [--threshold 0.5] [--out FILE]
 *   node --expose-gc bench/bot-eval/languages.ts --memory
 *
 * bench/bot-eval/languages/ holds knowledge.json (a guesthouse's FAQ: 8 topics, each in English, Spanish,
 * French, German and Portuguese, entries 0-7, 8-15, 16-23, 24-31, 32-39), dev.json (to tune on) and
 * blind.json (written with dev.json before any engine ran on them; run once). Questions are
 * {question, expected: entry index in the message's language | null, tags: [language, ...]}.
 * --dev-only never reads blind.json.
 *
 * Per language and set: right entry, wrong entry, fallback on answerable messages; off-topic messages
 * sent to the fallback; "in its language": of the messages that got an answer (match()), how many got an
 * entry in the message's language; "Did you mean" (decide()): answered right, wrong, choices offered;
 * time per message. Then the time per message against 200 entries (the 40 repeated, 40 per language).
 * --memory: resident memory and heap before and after loading the engine's language support (the
 * detector and the stemmers, on top of the engine's other modules), and after building engines.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

type Entry = { question: string; answer: string };
type Question = { question: string; expected: number | null; tags: string[] };
type Figures = {
  answerable: number;
  right: number;
  wrong: number;
  fallback: number;
  offTopic: number;
  offTopicFallback: number;
  answered: number;
  answeredInLanguage: number;
  dymRight: number;
  dymWrong: number;
  dymChoices: number;
  times: number[];
};

const LANGUAGES = ["en", "es", "fr", "de", "pt"] as const;
const PER_LANGUAGE = 8;
const languageOfEntry = (index: number) => LANGUAGES[Math.floor(index / PER_LANGUAGE)];

const dir = join(import.meta.dirname, "languages");
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const devOnly = process.argv.includes("--dev-only");
const read = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

if (process.argv.includes("--memory")) {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("--memory needs node --expose-gc");
  const settle = async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    gc();
    gc();
    return process.memoryUsage();
  };
  // The engine's modules other than the language support, loaded first: what was there before.
  await import("minisearch");
  await import("stemmer");
  const before = await settle();
  let started = performance.now();
  const { detectLanguage } = await import("../../packages/server/src/modules/bot/languages.ts");
  const loadMs = performance.now() - started;
  const loaded = await settle();
  // tinyld unpacks its language profiles on its first detection.
  started = performance.now();
  detectLanguage("¿A qué hora es el desayuno?");
  const firstMs = performance.now() - started;
  const used = await settle();
  const { createBuiltinEngine } = await import("../../packages/server/src/modules/bot/engine-builtin.ts");
  const engineLoaded = await settle();
  const knowledge = read<Entry[]>(join(dir, "knowledge.json"));
  const engines = [];
  for (let i = 0; i < 10; i++) {
    const engine = createBuiltinEngine(knowledge.map((e) => ({ ...e })));
    engine.decide("¿tienen aparcamiento?");
    engines.push(engine);
  }
  const built = await settle();
  const change = (a: NodeJS.MemoryUsage, b: NodeJS.MemoryUsage) =>
    `resident +${mb(b.rss - a.rss)}, heap +${mb(b.heapUsed - a.heapUsed)}`;
  console.log(
    [
      `Loading the language support (tinyld light, 4 Snowball stemmers, stop words): ${loadMs.toFixed(0)} ms, ${change(before, loaded)}.`,
      `Its first detection (tinyld unpacks its profiles): ${firstMs.toFixed(0)} ms, ${change(loaded, used)}.`,
      `Language support in all: ${change(before, used)}.`,
      `The rest of the engine module: ${change(used, engineLoaded)}.`,
      `${engines.length} engines over the 40-entry, five-language knowledge (each asked once): ${change(engineLoaded, built)}.`,
    ].join("\n"),
  );
  process.exit(0);
}

const { createBuiltinEngine, DEFAULT_THRESHOLD } = await import(
  "../../packages/server/src/modules/bot/engine-builtin.ts"
);
const threshold = Number(arg("--threshold") ?? DEFAULT_THRESHOLD);
if (!Number.isFinite(threshold)) throw new Error("--threshold needs a number");

const knowledge = read<Entry[]>(join(dir, "knowledge.json"));
if (knowledge.length !== LANGUAGES.length * PER_LANGUAGE) throw new Error("knowledge.json: 40 entries");
const sets: [string, Question[]][] = [["dev", read<Question[]>(join(dir, "dev.json"))]];
if (!devOnly && existsSync(join(dir, "blind.json"))) sets.push(["blind", read(join(dir, "blind.json"))]);
for (const [name, questions] of sets) {
  for (const q of questions) {
    const language = q.tags[0];
    if (!LANGUAGES.includes(language as (typeof LANGUAGES)[number]))
      throw new Error(`${name}: ${q.question}`);
    if (q.expected !== null && languageOfEntry(q.expected) !== language) {
      throw new Error(`${name}: expected ${q.expected} is not in ${language}: ${q.question}`);
    }
  }
}

const empty = (): Figures => ({
  answerable: 0,
  right: 0,
  wrong: 0,
  fallback: 0,
  offTopic: 0,
  offTopicFallback: 0,
  answered: 0,
  answeredInLanguage: 0,
  dymRight: 0,
  dymWrong: 0,
  dymChoices: 0,
  times: [],
});

const engine = createBuiltinEngine(knowledge, { threshold });
const misses: string[] = [];

function evaluate(setName: string, questions: Question[]): Map<string, Figures> {
  const byLanguage = new Map<string, Figures>();
  for (const q of questions) {
    const language = q.tags[0]!;
    const f = byLanguage.get(language) ?? empty();
    byLanguage.set(language, f);
    const started = performance.now();
    const match = engine.match(q.question);
    f.times.push(performance.now() - started);
    const decision = engine.decide(q.question);
    if (match) {
      f.answered++;
      if (languageOfEntry(match.entryIndex) === language) f.answeredInLanguage++;
    }
    const got = match ? `${match.entryIndex} (${match.score.toFixed(2)})` : "fallback";
    if (q.expected === null) {
      f.offTopic++;
      if (!match) f.offTopicFallback++;
      else misses.push(`${setName} ${language} off-topic answered ${got}: ${q.question}`);
      continue;
    }
    f.answerable++;
    if (!match) f.fallback++;
    else if (match.entryIndex === q.expected) f.right++;
    else f.wrong++;
    if (match?.entryIndex !== q.expected) {
      const closest = engine.closest(q.question);
      const near = closest ? ` closest ${closest.entryIndex} (${closest.score.toFixed(2)})` : "";
      misses.push(`${setName} ${language} want ${q.expected} got ${got}${match ? "" : near}: ${q.question}`);
    }
    if (decision.kind === "answer") {
      if (decision.match.entryIndex === q.expected) f.dymRight++;
      else f.dymWrong++;
    } else if (decision.kind === "choices") f.dymChoices++;
  }
  return byLanguage;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0) : 0;
const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : "–");
const ms = (x: number) => `${x.toFixed(2)} ms`;

function sum(figures: Figures[]): Figures {
  const total = empty();
  for (const f of figures) {
    for (const k of Object.keys(total) as (keyof Figures)[]) {
      if (k === "times") total.times.push(...f.times);
      else total[k] += f[k];
    }
  }
  return total;
}

function row(language: string, set: string, f: Figures): string[] {
  const times = [...f.times].sort((a, b) => a - b);
  return [
    language,
    set,
    `${f.answerable} + ${f.offTopic}`,
    pct(f.right, f.answerable),
    pct(f.wrong, f.answerable),
    pct(f.fallback, f.answerable),
    pct(f.offTopicFallback, f.offTopic),
    `${pct(f.answeredInLanguage, f.answered)} (${f.answeredInLanguage}/${f.answered})`,
    pct(f.dymRight, f.answerable),
    pct(f.dymWrong, f.answerable),
    pct(f.dymChoices, f.answerable),
    `${ms(percentile(times, 0.5))} / ${ms(percentile(times, 0.99))}`,
  ];
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

const header = [
  "language",
  "set",
  "answerable + off-topic",
  "right",
  "wrong",
  "fallback",
  "off-topic to fallback",
  "answers in its language",
  "DYM right",
  "DYM wrong",
  "DYM choices offered",
  "ms p50 / p99",
];
const rows: string[][] = [];
for (const [name, questions] of sets) {
  const byLanguage = evaluate(name, questions);
  for (const language of LANGUAGES) {
    const f = byLanguage.get(language);
    if (f) rows.push(row(language, name, f));
  }
  rows.push(row("all", name, sum([...byLanguage.values()])));
}

// 200 entries: the 40 five times (a marker word on the copies), 40 per language.
const big = [...knowledge];
for (let i = 0; big.length < 200; i++) {
  const e = knowledge[i % knowledge.length]!;
  big.push({ ...e, question: `${e.question} (${Math.floor(i / knowledge.length) + 1})` });
}
const buildStarted = performance.now();
const bigEngine = createBuiltinEngine(big);
const buildMs = performance.now() - buildStarted;
const messages = sets[0]![1].map((q) => q.question);
const times: number[] = [];
for (let round = 0; round < 10; round++) {
  for (const m of messages) {
    const started = performance.now();
    bigEngine.decide(m);
    times.push(performance.now() - started);
  }
}
times.sort((a, b) => a - b);

const report = [
  `Threshold ${threshold}. ${devOnly ? "Development set only." : "Development and blind sets."}`,
  "",
  table(header, rows),
  "",
  `200-entry knowledge base (40 per language): built in ${ms(buildMs)}; ${times.length} messages: p50 ${ms(percentile(times, 0.5))}, p99 ${ms(percentile(times, 0.99))}.`,
  "",
  "Not answered right:",
  ...misses.map((m) => `- ${m}`),
].join("\n");
console.log(report);
const out = arg("--out");
if (out) writeFileSync(out, `${report}\n`);

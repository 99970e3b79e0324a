/**
 * The builtin engine on several businesses, development and blind sets apart.
 *
 *   node bench/bot-eval/domains.ts [--threshold 0.5] [--dev-only] [--sweep] [--out FILE]
 *
 * Each folder of bench/bot-eval/domains/ holds knowledge.json (the FAQ), dev.json (questions to tune
 * on) and blind.json (questions written with dev.json, before any engine ran on them: run once per
 * change of approach, never tuned on). Questions are {question, expected: entry index | null, tags}.
 * The bike shop of run.ts joins as a fifth business: questions.json is its development set and
 * questions-holdout3.json its held-out set; that one has been run before, so it is shown as "seen" and
 * left out of the blind totals.
 *
 * Per set: right entry, wrong entry, fallback on answerable questions, off-topic sent to the fallback,
 * recall@3 of the passages the LLM engine would be given (topPassages), and the time per message. A
 * last section times messages against a 200-entry knowledge base (every business's entries together).
 * --dev-only never reads a blind set (for tuning); --sweep prints the dev figures at other thresholds.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  createBuiltinEngine,
  DEFAULT_THRESHOLD,
  type KnowledgeEntry,
  topPassages,
} from "../../packages/server/src/modules/bot/engine-builtin.ts";

type Question = { question: string; expected: number | null; tags?: string[] };
type Domain = {
  name: string;
  knowledge: KnowledgeEntry[];
  dev: Question[];
  blind: Question[] | null;
  /** The bike shop's held-out set has been run before: reported, but not counted as blind. */
  seen?: boolean;
};
type Figures = {
  answerable: number;
  right: number;
  wrong: number;
  fallback: number;
  offTopic: number;
  offTopicFallback: number;
  recall3: number;
  /** "Did you mean" (decide()): answered right, wrong, the right entry among the choices, other choices. */
  dymRight: number;
  dymWrong: number;
  dymChoicesHit: number;
  dymChoicesMiss: number;
  dymOffFallback: number;
  p50: number;
  p99: number;
};

const dir = import.meta.dirname;
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const threshold = Number(arg("--threshold") ?? DEFAULT_THRESHOLD);
if (!Number.isFinite(threshold)) throw new Error("--threshold needs a number");
const devOnly = process.argv.includes("--dev-only");
const choiceFloor = arg("--choice-floor") ? Number(arg("--choice-floor")) : undefined;
const tieMargin = arg("--tie-margin") ? Number(arg("--tie-margin")) : undefined;
const read = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;

function loadDomains(): Domain[] {
  const root = join(dir, "domains");
  const domains: Domain[] = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => ({
      name,
      knowledge: read<KnowledgeEntry[]>(join(root, name, "knowledge.json")),
      dev: read<Question[]>(join(root, name, "dev.json")),
      blind:
        devOnly || !existsSync(join(root, name, "blind.json")) ? null : read(join(root, name, "blind.json")),
    }));
  domains.push({
    name: "bike-shop",
    knowledge: read(join(dir, "knowledge.json")),
    dev: read(join(dir, "questions.json")),
    blind: devOnly ? null : read(join(dir, "questions-holdout3.json")),
    seen: true,
  });
  for (const d of domains) {
    for (const q of [...d.dev, ...(d.blind ?? [])]) {
      if (q.expected !== null && !d.knowledge[q.expected]) {
        throw new Error(`${d.name}: expected ${q.expected} is not an entry: ${q.question}`);
      }
    }
  }
  return domains;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0) : 0;

function evaluate(knowledge: KnowledgeEntry[], questions: Question[], t: number): Figures {
  const engine = createBuiltinEngine(knowledge, { threshold: 0 });
  const deciding = createBuiltinEngine(knowledge, {
    threshold: t,
    ...(choiceFloor !== undefined ? { choiceFloor } : {}),
    ...(tieMargin !== undefined ? { tieMargin } : {}),
  });
  const f: Figures = {
    answerable: 0,
    right: 0,
    wrong: 0,
    fallback: 0,
    offTopic: 0,
    offTopicFallback: 0,
    recall3: 0,
    dymRight: 0,
    dymWrong: 0,
    dymChoicesHit: 0,
    dymChoicesMiss: 0,
    dymOffFallback: 0,
    p50: 0,
    p99: 0,
  };
  const times: number[] = [];
  for (const q of questions) {
    const started = performance.now();
    const best = engine.match(q.question);
    times.push(performance.now() - started);
    const accepted = best && best.score >= t ? best : null;
    const decision = deciding.decide(q.question);
    if (q.expected === null) {
      f.offTopic++;
      if (!accepted) f.offTopicFallback++;
      if (decision.kind === "fallback") f.dymOffFallback++;
      continue;
    }
    if (decision.kind === "answer") {
      if (decision.match.entryIndex === q.expected) f.dymRight++;
      else f.dymWrong++;
    } else if (decision.kind === "choices") {
      if (decision.choices.some((c) => c.entryIndex === q.expected)) f.dymChoicesHit++;
      else f.dymChoicesMiss++;
    }
    f.answerable++;
    if (!accepted) f.fallback++;
    else if (accepted.entryIndex === q.expected) f.right++;
    else f.wrong++;
    const wanted = knowledge[q.expected];
    const top = topPassages(knowledge, q.question, 3);
    if (top.some((p) => p.question !== undefined && p.question === wanted?.question)) f.recall3++;
  }
  times.sort((a, b) => a - b);
  f.p50 = percentile(times, 0.5);
  f.p99 = percentile(times, 0.99);
  return f;
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : "–");
const ms = (x: number) => `${x.toFixed(2)} ms`;

function row(name: string, set: string, entries: number, f: Figures): string[] {
  return [
    name,
    set,
    String(entries),
    `${f.answerable} + ${f.offTopic}`,
    pct(f.right, f.answerable),
    pct(f.wrong, f.answerable),
    pct(f.fallback, f.answerable),
    pct(f.offTopicFallback, f.offTopic),
    pct(f.recall3, f.answerable),
    pct(f.dymRight + f.dymChoicesHit, f.answerable),
    pct(f.dymRight, f.answerable),
    pct(f.dymWrong, f.answerable),
    pct(f.dymChoicesHit + f.dymChoicesMiss, f.answerable),
    pct(f.dymOffFallback, f.offTopic),
    `${ms(f.p50)} / ${ms(f.p99)}`,
  ];
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

function sum(figures: Figures[]): Figures {
  const total = { ...figures[0]! };
  for (const k of Object.keys(total) as (keyof Figures)[]) total[k] = 0;
  for (const f of figures) {
    for (const k of [
      "answerable",
      "right",
      "wrong",
      "fallback",
      "offTopic",
      "offTopicFallback",
      "recall3",
      "dymRight",
      "dymWrong",
      "dymChoicesHit",
      "dymChoicesMiss",
      "dymOffFallback",
    ] as const)
      total[k] += f[k];
    total.p50 = Math.max(total.p50, f.p50);
    total.p99 = Math.max(total.p99, f.p99);
  }
  return total;
}

const domains = loadDomains();
const header = [
  "business",
  "set",
  "entries",
  "answerable + off-topic",
  "right",
  "wrong",
  "fallback",
  "off-topic to fallback",
  "recall@3 (LLM)",
  "DYM resolved",
  "DYM right",
  "DYM wrong",
  "DYM choices offered",
  "DYM off-topic to fallback",
  "ms p50 / p99",
];
const rows: string[][] = [];
const devAll: Figures[] = [];
const blindAll: Figures[] = [];
for (const d of domains) {
  const dev = evaluate(d.knowledge, d.dev, threshold);
  devAll.push(dev);
  rows.push(row(d.name, "dev", d.knowledge.length, dev));
  if (d.blind) {
    const blind = evaluate(d.knowledge, d.blind, threshold);
    if (!d.seen) blindAll.push(blind);
    rows.push(row(d.name, d.seen ? "held-out, seen" : "blind", d.knowledge.length, blind));
  }
}
rows.push(row("all", "dev", 0, sum(devAll)));
if (blindAll.length) rows.push(row("all", "blind", 0, sum(blindAll)));

// 200 entries: every business's knowledge together (then repeated with a marker word to reach 200).
const big: KnowledgeEntry[] = domains.flatMap((d) => d.knowledge);
for (let i = 0; big.length < 200; i++) {
  const e = big[i]!;
  big.push(e.question ? { ...e, question: `${e.question} (copy ${i})` } : { text: `${e.text} (copy ${i})` });
}
const bigEngine = createBuiltinEngine(big.slice(0, 200));
const messages = domains.flatMap((d) => d.dev.map((q) => q.question));
const times: number[] = [];
for (let round = 0; round < 5; round++) {
  for (const m of messages) {
    const started = performance.now();
    bigEngine.decide(m);
    times.push(performance.now() - started);
  }
}
times.sort((a, b) => a - b);

const lines = [
  `Threshold ${threshold}. ${devOnly ? "Development sets only." : "Development and blind sets."}`,
  "",
  table(header, rows),
  "",
  `200-entry knowledge base, ${times.length} messages: p50 ${ms(percentile(times, 0.5))}, p99 ${ms(percentile(times, 0.99))}.`,
];
if (process.argv.includes("--sweep")) {
  const sweep: string[][] = [];
  for (const t of [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6]) {
    for (const d of domains)
      sweep.push(row(d.name, `dev @ ${t}`, d.knowledge.length, evaluate(d.knowledge, d.dev, t)));
  }
  lines.push("", table(header, sweep));
}
const report = lines.join("\n");
console.log(report);
const out = arg("--out");
if (out) writeFileSync(out, `${report}\n`);

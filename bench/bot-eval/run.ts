/**
 * Quality evaluation of the builtin (offline) bot engine.
 *
 *   node bench/bot-eval/run.ts [--threshold 0.5]
 *
 * Loads knowledge.json (FAQ of a fictional bike shop) and questions.json (customer questions, each
 * labelled with the expected entry index, or null when the bot should send the fallback), runs the
 * engine, prints a Markdown report and writes results.md and results.json next to this script.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  type BuiltinMatch,
  createBuiltinEngine,
  DEFAULT_THRESHOLD,
  type KnowledgeEntry,
} from "../../packages/server/src/modules/bot/engine-builtin.ts";

type Question = { question: string; expected: number | null; tags: string[] };
type Outcome = { question: Question; match: BuiltinMatch | null };
type Figures = {
  answerable: number;
  top1Accuracy: number;
  answerableFallbackRate: number;
  answerableWrongRate: number;
  offTopic: number;
  offTopicFallbackRate: number;
  rankingAccuracy: number;
};

const dir = import.meta.dirname;
const knowledge = JSON.parse(readFileSync(join(dir, "knowledge.json"), "utf8")) as KnowledgeEntry[];
const questions = JSON.parse(readFileSync(join(dir, "questions.json"), "utf8")) as Question[];
// Written only after the engine was frozen, to check that its tuning did not overfit questions.json.
const holdout = JSON.parse(readFileSync(join(dir, "questions-holdout.json"), "utf8")) as Question[];
// A second held-out set, written before the WordNet experiment without looking at any engine's answers.
const holdout2 = JSON.parse(readFileSync(join(dir, "questions-holdout2.json"), "utf8")) as Question[];

const thresholdArg = process.argv.indexOf("--threshold");
const threshold = thresholdArg > 0 ? Number(process.argv[thresholdArg + 1]) : DEFAULT_THRESHOLD;
if (!Number.isFinite(threshold)) throw new Error("--threshold needs a number");

for (const q of [...questions, ...holdout, ...holdout2]) {
  if (q.expected !== null && !knowledge[q.expected]) throw new Error(`bad expected index: ${q.question}`);
}

// One pass with threshold 0 gives every question's best candidate and its confidence; applying a
// threshold afterwards is then a filter (match() returns the same best candidate at any threshold).
const unfiltered = createBuiltinEngine(knowledge, { threshold: 0 });
const candidates: Outcome[] = questions.map((question) => ({
  question,
  match: unfiltered.match(question.question),
}));
const holdoutCandidates: Outcome[] = holdout.map((question) => ({
  question,
  match: unfiltered.match(question.question),
}));
const holdout2Candidates: Outcome[] = holdout2.map((question) => ({
  question,
  match: unfiltered.match(question.question),
}));

const accepted = (match: BuiltinMatch | null, t: number) => (match && match.score >= t ? match : null);

function figures(outcomes: Outcome[], t: number): Figures {
  const answerable = outcomes.filter((o) => o.question.expected !== null);
  const offTopic = outcomes.filter((o) => o.question.expected === null);
  let correct = 0;
  let fallback = 0;
  for (const o of answerable) {
    const m = accepted(o.match, t);
    if (!m) fallback++;
    else if (m.entryIndex === o.question.expected) correct++;
  }
  const offTopicFallback = offTopic.filter((o) => !accepted(o.match, t)).length;
  const ranked = answerable.filter((o) => o.match?.entryIndex === o.question.expected).length;
  const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
  return {
    answerable: answerable.length,
    top1Accuracy: ratio(correct, answerable.length),
    answerableFallbackRate: ratio(fallback, answerable.length),
    answerableWrongRate: ratio(answerable.length - correct - fallback, answerable.length),
    offTopic: offTopic.length,
    offTopicFallbackRate: ratio(offTopicFallback, offTopic.length),
    rankingAccuracy: ratio(ranked, answerable.length),
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const all = figures(candidates, threshold);
const held = figures(holdoutCandidates, threshold);
const held2 = figures(holdout2Candidates, threshold);
const meetsTargets = all.top1Accuracy >= 0.85 && all.offTopicFallbackRate >= 0.9;

// Held-out check: the questions alternate between two halves; pick the best threshold on one half only
// and see whether the other half agrees (guards against a threshold tuned to this exact set).
const halves = [0, 1].map((h) => candidates.filter((_, i) => i % 2 === h));
const sweepValues = Array.from({ length: 13 }, (_, i) => Math.round((0.3 + i * 0.025) * 1000) / 1000);
const objective = (f: Figures) => Math.min(f.top1Accuracy / 0.85, f.offTopicFallbackRate / 0.9);
const bestOn = (outcomes: Outcome[]) =>
  sweepValues.reduce((best, t) =>
    objective(figures(outcomes, t)) > objective(figures(outcomes, best)) ? t : best,
  );
const crossCheck = [0, 1].map((h) => {
  const t = bestOn(halves[h]!);
  return { tunedOnHalf: h, threshold: t, heldOut: figures(halves[1 - h]!, t) };
});

const byTag = ["typo", "chitchat"].map((tag) => {
  const subset = candidates.filter((o) => o.question.tags.includes(tag));
  return { tag, ...figures(subset, threshold) };
});

// Timing (wall clock, so a busy machine inflates it): engine build for this knowledge base, and matching.
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;
const buildTimes: number[] = [];
for (let i = 0; i < 30; i++) {
  const start = performance.now();
  createBuiltinEngine(knowledge);
  buildTimes.push(performance.now() - start);
}
const engine = createBuiltinEngine(knowledge, { threshold });
const matchTimes: number[] = [];
for (let r = 0; r < 5; r++) {
  for (const q of questions) {
    const start = performance.now();
    engine.match(q.question);
    matchTimes.push(performance.now() - start);
  }
}
const buildMedianMs = quantile(buildTimes, 0.5);
const buildP90Ms = quantile(buildTimes, 0.9);
const matchMedianMs = quantile(matchTimes, 0.5);
const matchP99Ms = quantile(matchTimes, 0.99);

// Sanity: the engine used at the chosen threshold gives the same decisions as the filtered sweep.
for (const o of [...candidates, ...holdoutCandidates, ...holdout2Candidates]) {
  const direct = engine.match(o.question.question);
  const viaSweep = accepted(o.match, threshold);
  if (JSON.stringify(direct) !== JSON.stringify(viaSweep))
    throw new Error(`inconsistent: ${o.question.question}`);
}

const missesOf = (outcomes: Outcome[]) =>
  outcomes
    .map((o) => ({ o, m: accepted(o.match, threshold) }))
    .filter(({ o, m }) => (o.question.expected === null ? m !== null : m?.entryIndex !== o.question.expected))
    .map(({ o, m }) => ({
      question: o.question.question,
      expected: o.question.expected,
      got: m ? m.entryIndex : null,
      bestCandidate: o.match?.entryIndex ?? null,
      confidence: o.match ? Math.round(o.match.score * 1000) / 1000 : 0,
    }));
const failures = missesOf(candidates);
const holdoutFailures = missesOf(holdoutCandidates);
const holdout2Failures = missesOf(holdout2Candidates);

/** A Markdown table with padded columns (the layout `biome format` gives, so the file stays lint-clean). */
function table(header: string[], rows: (string | number)[][]): string[] {
  const cells = [header, ...rows.map((row) => row.map((cell) => String(cell).replace(/\|/g, "\\|")))];
  const widths = header.map((_, c) => Math.max(3, ...cells.map((row) => row[c]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, c) => cell.padEnd(widths[c]!)).join(" | ")} |`;
  return [line(cells[0]!), line(widths.map((w) => "-".repeat(w))), ...cells.slice(1).map(line), ""];
}
const metricRows = (f: Figures): [string, string | number][] => [
  ["answerable questions", f.answerable],
  ["top-1 accuracy (right entry)", pct(f.top1Accuracy)],
  ["fallback rate on answerable", pct(f.answerableFallbackRate)],
  ["wrong answer rate on answerable", pct(f.answerableWrongRate)],
  ["off-topic questions", f.offTopic],
  ["off-topic sent to fallback", pct(f.offTopicFallbackRate)],
  ["right entry ranked first, ignoring the threshold", pct(f.rankingAccuracy)],
];
const ms = (x: number, digits: number) => `${x.toFixed(digits)} ms`;
const show = (x: number | null) => (x === null ? "fallback" : String(x));
const sweep = sweepValues.map((t) => ({ threshold: t, ...figures(candidates, t) }));

const lines: string[] = [
  "# Builtin bot engine: evaluation",
  "",
  `Knowledge: ${knowledge.length} FAQ entries (fictional bike shop). Threshold: ${threshold}.`,
  "Targets: top-1 accuracy >= 85 % on answerable questions, >= 90 % of off-topic questions sent to the",
  `fallback: **${meetsTargets ? "met" : "NOT met"}**.`,
  "",
  ...table(
    ["metric", "value"],
    [
      ...metricRows(all),
      [
        `engine build, ${knowledge.length} entries (median / p90 of 30)`,
        `${ms(buildMedianMs, 2)} / ${ms(buildP90Ms, 2)}`,
      ],
      ["match per message (median / p99)", `${ms(matchMedianMs, 3)} / ${ms(matchP99Ms, 3)}`],
    ],
  ),
  "## Held-out questions (questions-holdout.json, written after the engine was frozen)",
  "",
  ...table(["metric", "value"], metricRows(held)),
  "## Second held-out set (questions-holdout2.json, written before the WordNet experiment)",
  "",
  ...table(["metric", "value"], metricRows(held2)),
  "## By question kind",
  "",
  ...table(
    ["kind", "count", "top-1 accuracy", "fallback rate"],
    byTag.map((t) => [t.tag, t.answerable, pct(t.top1Accuracy), pct(t.answerableFallbackRate)]),
  ),
  "## Threshold sweep (all questions)",
  "",
  ...table(
    ["threshold", "top-1 accuracy", "fallback on answerable", "off-topic to fallback"],
    sweep.map((s) => [
      s.threshold,
      pct(s.top1Accuracy),
      pct(s.answerableFallbackRate),
      pct(s.offTopicFallbackRate),
    ]),
  ),
  "## Held-out check (threshold tuned on one half of the questions, measured on the other)",
  "",
  ...table(
    ["tuned on", "best threshold there", "held-out top-1 accuracy", "held-out off-topic to fallback"],
    crossCheck.map((c) => [
      `half ${c.tunedOnHalf}`,
      c.threshold,
      pct(c.heldOut.top1Accuracy),
      pct(c.heldOut.offTopicFallbackRate),
    ]),
  ),
];
for (const [title, list] of [
  ["questions.json", failures],
  ["questions-holdout.json", holdoutFailures],
  ["questions-holdout2.json", holdout2Failures],
] as const) {
  lines.push(
    `## Misses at threshold ${threshold}, ${title} (${list.length})`,
    "",
    ...table(
      ["question", "expected", "got", "best candidate", "confidence"],
      list.map((f) => [f.question, show(f.expected), show(f.got), show(f.bestCandidate), f.confidence]),
    ),
  );
}

const report = lines.join("\n").trimEnd();
console.log(report);
writeFileSync(join(dir, "results.md"), `${report}\n`);
writeFileSync(
  join(dir, "results.json"),
  `${JSON.stringify(
    {
      knowledgeEntries: knowledge.length,
      threshold,
      meetsTargets,
      ...all,
      holdout: held,
      holdout2: held2,
      byTag,
      timing: { buildMedianMs, buildP90Ms, matchMedianMs, matchP99Ms },
      sweep,
      crossCheck,
      failures,
      holdoutFailures,
      holdout2Failures,
    },
    null,
    2,
  )}\n`,
);

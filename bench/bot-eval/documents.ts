/**
 * The builtin engine answering from a document (issue 34): a business's handbook split as a Markdown
 * upload is split, its passages given to the engine as the engine cache gives them.
 *
 *   node bench/bot-eval/documents.ts [--dev-only] [--out FILE]
 *
 * Each folder of bench/bot-eval/documents/ holds handbook.md, dev.json (to tune on) and blind.json
 * (written with dev.json before any engine ran on them; run once per change of approach). A question is
 * {question, expected: phrases | null}: an answer is right when it contains one of the phrases (lower
 * case, white space folded). Reported per set: right, wrong, fallback, off-topic sent to the fallback,
 * and recall@3 of the passages the LLM engine would be given.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createBuiltinEngine,
  type KnowledgeEntry,
  topPassages,
} from "../../packages/server/src/modules/bot/engine-builtin.ts";
import { markdownBlocks, toPassages } from "../../packages/server/src/modules/knowledge/extract.ts";

type Question = { question: string; expected: string[] | null; tags?: string[] };
type Figures = {
  answerable: number;
  right: number;
  wrong: number;
  fallback: number;
  offTopic: number;
  offTopicFallback: number;
  recall3: number;
  /** "Did you mean" (decide()): answered right; the right passage among the choices; off-topic to fallback. */
  dymRight: number;
  dymChoicesHit: number;
  dymWrong: number;
  dymOffFallback: number;
};

const dir = join(import.meta.dirname, "documents");
const devOnly = process.argv.includes("--dev-only");
const outAt = process.argv.indexOf("--out");
const out = outAt > 0 ? process.argv[outAt + 1] : undefined;

const fold = (s: string) => s.toLowerCase().replace(/\s+/g, " ");
const holds = (text: string, phrases: string[]) => phrases.some((p) => fold(text).includes(fold(p)));

/** The handbook's passages as the engine cache builds them from a ready source. */
function entriesOf(markdown: string): KnowledgeEntry[] {
  return toPassages(markdownBlocks(markdown)).map((p) => ({
    ...(p.heading ? { question: p.heading } : {}),
    text: p.text,
    source: { id: "ks_eval", name: "handbook.md" },
  }));
}

function evaluate(entries: KnowledgeEntry[], questions: Question[]): Figures {
  const engine = createBuiltinEngine(entries);
  const f: Figures = {
    answerable: 0,
    right: 0,
    wrong: 0,
    fallback: 0,
    offTopic: 0,
    offTopicFallback: 0,
    recall3: 0,
    dymRight: 0,
    dymChoicesHit: 0,
    dymWrong: 0,
    dymOffFallback: 0,
  };
  for (const q of questions) {
    const answer = engine.match(q.question);
    const decision = engine.decide(q.question);
    if (q.expected === null) {
      f.offTopic++;
      if (!answer) f.offTopicFallback++;
      if (decision.kind === "fallback") f.dymOffFallback++;
      continue;
    }
    if (decision.kind === "answer") {
      if (holds(decision.match.answer, q.expected)) f.dymRight++;
      else f.dymWrong++;
    } else if (decision.kind === "choices") {
      // A pick answers with the chosen passage whole (answerOf).
      const expected = q.expected;
      if (decision.choices.some((c) => holds(engine.answerOf(c.entryIndex)?.answer ?? "", expected)))
        f.dymChoicesHit++;
    }
    f.answerable++;
    if (!answer) f.fallback++;
    else if (holds(answer.answer, q.expected)) f.right++;
    else f.wrong++;
    const top = topPassages(entries, q.question, 3);
    if (
      top.some((e) => holds(`${e.question ?? ""} ${e.text ?? ""} ${e.answer ?? ""}`, q.expected as string[]))
    )
      f.recall3++;
  }
  return f;
}

const pct = (n: number, d: number) => (d === 0 ? "–" : `${((100 * n) / d).toFixed(1)} %`);
const lines = [
  "| business | set | passages | answerable | right | wrong | fallback | off-topic to fallback | recall@3 | DYM resolved | DYM right | DYM wrong | DYM off-topic to fallback |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
];
for (const name of readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()) {
  const entries = entriesOf(readFileSync(join(dir, name, "handbook.md"), "utf8"));
  for (const set of devOnly ? ["dev"] : ["dev", "blind"]) {
    const f = evaluate(
      entries,
      JSON.parse(readFileSync(join(dir, name, `${set}.json`), "utf8")) as Question[],
    );
    lines.push(
      `| ${name} | ${set} | ${entries.length} | ${f.answerable} | ${f.right} (${pct(f.right, f.answerable)}) | ${f.wrong} (${pct(f.wrong, f.answerable)}) | ${f.fallback} (${pct(f.fallback, f.answerable)}) | ${f.offTopicFallback} of ${f.offTopic} (${pct(f.offTopicFallback, f.offTopic)}) | ${pct(f.recall3, f.answerable)} | ${pct(f.dymRight + f.dymChoicesHit, f.answerable)} | ${pct(f.dymRight, f.answerable)} | ${pct(f.dymWrong, f.answerable)} | ${pct(f.dymOffFallback, f.offTopic)} |`,
    );
  }
}
console.log(lines.join("\n"));
if (out) writeFileSync(out, `${lines.join("\n")}\n`);

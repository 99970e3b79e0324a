/**
 * One-off comparison with an NLP.js intent classifier (docs/decisions/bot-engine.md). NLP.js is NOT a
 * project dependency; install it outside the repository and point NLPJS_DIR at that folder:
 *
 *   mkdir -p /tmp/nlpjs && (cd /tmp/nlpjs && npm init -y && npm install @nlpjs/basic@4.27.0)
 *   NLPJS_DIR=/tmp/nlpjs node bench/bot-eval/compare-nlpjs.mjs [answers]
 *
 * Each knowledge entry is one intent, trained on its stored question (plus its answer sentences with
 * `answers`); the same questions.json is scored like run.ts does (top intent, fallback below threshold).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

if (!process.env.NLPJS_DIR) throw new Error("set NLPJS_DIR to a folder where @nlpjs/basic is installed");
const require = createRequire(join(process.env.NLPJS_DIR, "package.json"));
const { dockStart } = require("@nlpjs/basic");

const dir = import.meta.dirname;
const knowledge = JSON.parse(readFileSync(join(dir, "knowledge.json"), "utf8"));
const questions = JSON.parse(readFileSync(join(dir, "questions.json"), "utf8"));
const withAnswers = process.argv[2] === "answers";

const dock = await dockStart({ use: ["Basic"], settings: { nlp: { log: false } } });
const nlp = dock.get("nlp");
nlp.settings.autoSave = false;
nlp.addLanguage("en");
knowledge.forEach((entry, i) => {
  nlp.addDocument("en", entry.question, `e${i}`);
  if (withAnswers) for (const s of entry.answer.split(/(?<=[.!?])\s+/)) nlp.addDocument("en", s, `e${i}`);
});
const trainStart = performance.now();
await nlp.train();
const trainMs = performance.now() - trainStart;

const results = [];
for (const q of questions) {
  const top = (await nlp.process("en", q.question)).classifications?.[0];
  results.push({ q, intent: top?.intent ?? "None", score: top?.score ?? 0 });
}
const answerable = results.filter((r) => r.q.expected !== null);
const offTopic = results.filter((r) => r.q.expected === null);
const pct = (x) => `${(x * 100).toFixed(1)} %`;
const right = (r) => r.intent === `e${r.q.expected}`;

console.log(`\nNLP.js, trained on ${withAnswers ? "questions + answer sentences" : "stored questions only"}`);
console.log(
  `training: ${trainMs.toFixed(0)} ms; top-1 ranking ignoring threshold: ${pct(answerable.filter(right).length / answerable.length)}`,
);
console.log("| threshold | top-1 accuracy | off-topic to fallback |\n| --- | --- | --- |");
for (const t of [0.3, 0.4, 0.5, 0.6, 0.7, 0.8]) {
  const accuracy = answerable.filter((r) => right(r) && r.score >= t).length / answerable.length;
  const fallback = offTopic.filter((r) => r.intent === "None" || r.score < t).length / offTopic.length;
  console.log(`| ${t} | ${pct(accuracy)} | ${pct(fallback)} |`);
}

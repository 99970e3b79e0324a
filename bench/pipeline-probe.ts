// The whole pipeline under load (issue 36): customers' messages into POST
// /v1/incoming_custom_channel_message, the bot's builtin answer from a 200-entry knowledge base, and
// its signed delivery to the business's webhook (a local receiver). Two runs on one fresh database:
//   burst  — N messages from 1,000 senders posted as fast as the server takes them (C at a time):
//            ingestion rate (first post to last 200), replies delivered per second (first post to the
//            last reply at the receiver) and their ratio;
//   steady — R messages a second for T seconds: latency from each message's 200 to its reply
//            arriving at the receiver (p50, p99).
// Both check that every acknowledged message got exactly one reply (counted per sender at the
// receiver: each steady message has a sender of its own, so its reply is found by its toId). The
// servers are separate `parley serve` / `parley worker` processes that npm run bench starts (the
// "pipeline" section: one node, and on PostgreSQL 2 API processes + 1 worker); this process is only the
// customers and the business's receiver:
//   node bench/pipeline-probe.ts <https://127.0.0.1:port,…> <apiKey> <receiverPort> [burst] [rate] [seconds]
// The account's webhook URL must already be http://127.0.0.1:<receiverPort>/replies. The last line of
// output is the result as JSON.
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { KnowledgeEntry } from "../packages/server/src/modules/bot/engine-builtin.ts";

const BURST = Number(process.argv[5] ?? 6000);
const STEADY_RATE = Number(process.argv[6] ?? 600);
const STEADY_SECONDS = Number(process.argv[7] ?? 10);
const SENDERS = 1000;
const CONCURRENCY = 64;

// --- 200 knowledge entries: every evaluation business's FAQ, repeated with a marker to reach 200 ----
const evalDir = path.join(import.meta.dirname, "bot-eval");
const read = (p: string) => JSON.parse(fs.readFileSync(p, "utf8")) as KnowledgeEntry[];
const knowledge: KnowledgeEntry[] = [
  ...read(path.join(evalDir, "knowledge.json")),
  ...fs
    .readdirSync(path.join(evalDir, "domains"), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => read(path.join(evalDir, "domains", d.name, "knowledge.json"))),
]
  .filter((e) => e.question && e.answer)
  .map(({ question, answer }) => ({ question, answer }));
for (let i = 0; knowledge.length < 200; i++) {
  const e = knowledge[i]!;
  knowledge.push({ question: `${e.question} (copy ${i})`, answer: e.answer });
}
knowledge.length = 200;
// Each customer asks one of the stored questions: the builtin engine answers every one.
const questions = knowledge.slice(0, 150).map((e) => e.question!);

const [targetsArg, apiKey, receiverPortArg] = process.argv.slice(2, 5);
if (!targetsArg || !apiKey || !receiverPortArg)
  throw new Error("usage: pipeline-probe.ts <targets> <apiKey> <receiverPort> …");
const targets = targetsArg.split(",").map((t) => new URL(t));
const key = { "x-api-key": apiKey };
const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2, rejectUnauthorized: false });

// --- the business's webhook receiver: when each reply arrived, and to whom ----------------------
const arrivals = new Map<string, number>(); // reply id -> first arrival
const repliesTo = new Map<string, number>(); // toId -> replies received
const arrivalByTo = new Map<string, number>(); // toId -> first arrival
let deliveries = 0;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    deliveries++;
    const at = performance.now();
    try {
      const event = JSON.parse(Buffer.concat(chunks).toString()) as { messageId: string; toId: string };
      if (!arrivals.has(event.messageId)) {
        arrivals.set(event.messageId, at);
        repliesTo.set(event.toId, (repliesTo.get(event.toId) ?? 0) + 1);
        if (!arrivalByTo.has(event.toId)) arrivalByTo.set(event.toId, at);
      }
    } catch {}
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise<void>((r) => receiver.listen(Number(receiverPortArg), "127.0.0.1", r));

/** One HTTPS call to the first target, JSON in and out. */
function call(method: string, url: string, payload?: unknown): Promise<{ status: number; body: string }> {
  const body = payload === undefined ? undefined : JSON.stringify(payload);
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(url, targets[0]),
      {
        method,
        agent,
        headers: { ...key, ...(body ? { "content-type": "application/json" } : {}) },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
const campaigns = JSON.parse((await call("GET", "/v1/campaigns")).body) as {
  data: { id: string; isDefault: boolean }[];
};
const def = campaigns.data.find((c) => c.isDefault)!;
const patched = await call("PATCH", `/v1/campaigns/${def.id}`, { knowledge, engine: "builtin" });
if (patched.status !== 200) throw new Error(`campaign: ${patched.body}`);

let seq = 0;
/** Posts one customer message from `fromId`; resolves with when the 200 came, or null if refused. */
function post(fromId: string): Promise<number | null> {
  const n = seq++;
  const target = targets[n % targets.length]!;
  const body = JSON.stringify({
    customData: {
      messageSid: `bench-${n}`,
      fromId,
      toId: "bench-shop",
      body: questions[n % questions.length],
    },
  });
  return new Promise((resolve) => {
    const req = https.request(
      {
        host: target.hostname,
        port: target.port,
        method: "POST",
        path: "/v1/incoming_custom_channel_message",
        agent,
        headers: { ...key, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode === 200 ? performance.now() : null));
      },
    );
    req.on("error", () => resolve(null));
    req.end(body);
  });
}

/** Until `done()` holds or the time is up. */
async function waitFor(done: () => boolean, timeoutMs: number) {
  const until = performance.now() + timeoutMs;
  while (!done() && performance.now() < until) await new Promise((r) => setTimeout(r, 100));
}

const pct = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

// --- burst ------------------------------------------------------------------------------------
const burstSent = new Map<string, number>(); // sender -> messages acknowledged
let burstAcked = 0;
let burstRefused = 0;
const burstStart = performance.now();
let lastAck = burstStart;
let burstQueued = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (burstQueued < BURST) {
      const from = `customer-${burstQueued++ % SENDERS}`;
      const at = await post(from);
      if (at === null) burstRefused++;
      else {
        burstAcked++;
        burstSent.set(from, (burstSent.get(from) ?? 0) + 1);
        lastAck = Math.max(lastAck, at);
      }
    }
  }),
);
await waitFor(() => arrivals.size >= burstAcked, 180_000);
const lastReply = Math.max(...arrivals.values());
const burstArrived = arrivals.size;
const burstExact = [...burstSent].every(([from, n]) => repliesTo.get(from) === n);
const ingestPerSecond = burstAcked / ((lastAck - burstStart) / 1000);
const repliesPerSecond = burstArrived / ((lastReply - burstStart) / 1000);

// --- steady -------------------------------------------------------------------------------------
// Each message from a sender of its own: its reply is the one addressed to that sender.
const steadyAck = new Map<string, number>();
let steadyRefused = 0;
const pending: Promise<void>[] = [];
const steadyStart = performance.now();
const total = STEADY_RATE * STEADY_SECONDS;
let sent = 0;
while (sent < total) {
  const due = Math.min(total, Math.floor(((performance.now() - steadyStart) / 1000) * STEADY_RATE) + 1);
  for (; sent < due; sent++) {
    const from = `steady-${sent}`;
    pending.push(
      post(from).then((at) => {
        if (at === null) steadyRefused++;
        else steadyAck.set(from, at);
      }),
    );
  }
  await new Promise((r) => setTimeout(r, 2));
}
await Promise.all(pending);
const steadyActual = steadyAck.size / ((performance.now() - steadyStart) / 1000);
await waitFor(() => [...steadyAck.keys()].every((from) => arrivalByTo.has(from)), 120_000);
const latencies = [...steadyAck]
  .map(([from, ackAt]) => (arrivalByTo.get(from) ?? Number.NaN) - ackAt)
  .filter((x) => Number.isFinite(x))
  .sort((a, b) => a - b);
const steadyExact = [...steadyAck.keys()].every((from) => repliesTo.get(from) === 1);
// Late duplicates would arrive after the counts above: a moment more, then the totals.
await new Promise((r) => setTimeout(r, 1000));
const acknowledged = burstAcked + steadyAck.size;

receiver.close();
agent.destroy();

const result = {
  entries: knowledge.length,
  targets: targets.length,
  burstMessages: burstAcked,
  burstRefused,
  ingestPerSecond: Math.round(ingestPerSecond),
  repliesPerSecond: Math.round(repliesPerSecond),
  ratio: round(repliesPerSecond / ingestPerSecond, 2),
  burstRepliesArrived: burstArrived,
  steadyRate: STEADY_RATE,
  steadySeconds: STEADY_SECONDS,
  steadyActualRate: Math.round(steadyActual),
  steadyRefused,
  latencyP50Ms: round(pct(latencies, 0.5)),
  latencyP99Ms: round(pct(latencies, 0.99)),
  steadyRepliesArrived: latencies.length,
  acknowledged,
  repliesArrived: arrivals.size,
  webhookDeliveries: deliveries,
  exactlyOnce: burstExact && steadyExact && arrivals.size === acknowledged,
};
console.log(JSON.stringify(result));

// The chat widget under load: V visitors of one `web` channel, each with its live stream (SSE) open,
// each sending a question the bot answers from knowledge, waiting for the answer on its stream, and
// sending the next. Measures widget messages per second into the inbox and the time from a visitor's
// send to the bot's answer arriving on the visitor's stream (p50/p99). In-process server over plain
// HTTP on loopback. npm run bench runs it (the "widget" section); alone:
//   node bench/widget-probe.ts [visitors] [seconds]     DATABASE_URL (an empty database) for PostgreSQL
// The last line of output is the result as JSON.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { buildApp } from "../packages/server/src/app.ts";
import { loadConfig } from "../packages/server/src/config.ts";
import { createAccount } from "../packages/server/src/modules/accounts/service.ts";

const VISITORS = Number(process.argv[2] ?? 50);
const SECONDS = Number(process.argv[3] ?? 10);
const ORIGIN = "https://bench.example";
const QUESTION = "What are your opening hours?";

fs.mkdirSync("/tmp/widget-probe", { recursive: true });
const dir = fs.mkdtempSync("/tmp/widget-probe/d");
const config = loadConfig({
  DATA_DIR: dir,
  LOG_LEVEL: "warn",
  RATE_LIMIT_PER_MINUTE: "10000000",
  WIDGET_REQUESTS_PER_MINUTE: "10000000",
  WIDGET_MESSAGES_PER_MINUTE: "10000000",
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
});
const p = await buildApp(config);
// The bot replies and deliveries run in this process's worker, as in `parley serve`.
p.worker.start();
const acc = await createAccount(p.ctx, {
  email: "widget@example.com",
  password: "widget-probe-pw",
  kind: "standard",
});
const key = { "x-api-key": acc.apiKey };
const campaigns = (await p.app.inject({ method: "GET", url: "/v1/campaigns", headers: key })).json() as {
  data: { id: string; isDefault: boolean }[];
};
const def = campaigns.data.find((c) => c.isDefault)!;
await p.app.inject({
  method: "PATCH",
  url: `/v1/campaigns/${def.id}`,
  headers: key,
  payload: { knowledge: [{ question: QUESTION, answer: "We are open 9 to 5, Monday to Friday." }] },
});
const created = await p.app.inject({
  method: "POST",
  url: "/v1/channels",
  headers: key,
  payload: { type: "web", name: "Bench", config: { allowedOrigins: [ORIGIN] } },
});
if (created.statusCode !== 201) throw new Error(`channel: ${created.body}`);
const channelId = (created.json() as { id: string }).id;
await p.app.listen({ port: 0, host: "127.0.0.1" });
const port = (p.app.server.address() as AddressInfo).port;
const agent = new http.Agent({ keepAlive: true, maxSockets: VISITORS * 2 + 10 });
const base = `/widget/v1/channels/${channelId}`;

function request(
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent,
        headers: {
          origin: ORIGIN,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(data ? { "content-type": "application/json", "content-length": Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

interface Visitor {
  token: string;
  waiting: ((at: number) => void) | null;
  seen: Set<string>;
  close(): void;
}

async function newVisitor(): Promise<Visitor> {
  const res = await request("POST", `${base}/visitors`);
  if (res.status !== 201) throw new Error(`visitor: ${res.status} ${res.text}`);
  const { visitorToken } = JSON.parse(res.text) as { visitorToken: string };
  const v: Visitor = { token: visitorToken, waiting: null, seen: new Set(), close: () => {} };
  await new Promise<void>((resolve, reject) => {
    const req = http.get(
      {
        host: "127.0.0.1",
        port,
        path: `${base}/events?token=${encodeURIComponent(visitorToken)}`,
        headers: { origin: ORIGIN },
      },
      (stream) => {
        let buf = "";
        stream.setEncoding("utf8");
        stream.on("data", (chunk: string) => {
          buf += chunk;
          if (buf.includes(": connected")) resolve();
          let i = buf.indexOf("\n\n");
          while (i >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            i = buf.indexOf("\n\n");
            if (!block.startsWith("event: message\n")) continue;
            const m = JSON.parse(block.slice(block.indexOf("data: ") + 6)) as { id: string; sender: string };
            if (m.sender !== "bot" || v.seen.has(m.id)) continue;
            v.seen.add(m.id);
            const w = v.waiting;
            v.waiting = null;
            w?.(performance.now());
          }
        });
      },
    );
    req.on("error", reject);
    v.close = () => req.destroy();
  });
  return v;
}

const visitors: Visitor[] = [];
for (let i = 0; i < VISITORS; i++) visitors.push(await newVisitor());

const latencies: number[] = [];
let sent = 0;
let failed = 0;
const started = performance.now();
const until = started + SECONDS * 1000;
let seq = 0;
await Promise.all(
  visitors.map(async (v) => {
    while (performance.now() < until) {
      const answered = new Promise<number>((resolve) => {
        v.waiting = resolve;
      });
      const t0 = performance.now();
      const res = await request("POST", `${base}/messages`, v.token, {
        body: QUESTION,
        clientMessageId: `b${++seq}`,
      });
      if (res.status !== 201) {
        failed++;
        v.waiting = null;
        continue;
      }
      sent++;
      const timeout = new Promise<null>((r) => setTimeout(() => r(null), 10_000));
      const at = await Promise.race([answered, timeout]);
      if (at === null) {
        failed++;
        continue;
      }
      latencies.push(at - t0);
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
for (const v of visitors) v.close();
agent.destroy();
await p.close();
fs.rmSync(dir, { recursive: true, force: true });
latencies.sort((a, b) => a - b);
const pct = (q: number) =>
  Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10) / 10;
console.log(
  JSON.stringify({
    visitors: VISITORS,
    seconds: Math.round(elapsed * 10) / 10,
    messages: sent,
    messagesPerSecond: Math.round(sent / elapsed),
    replies: latencies.length,
    failed,
    replyP50Ms: pct(0.5),
    replyP99Ms: pct(0.99),
  }),
);
process.exit(0);

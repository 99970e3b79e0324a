// Profile of the reply path (issue 36): how many SQL statements each stage of one customer message
// costs, counted at the database driver (better-sqlite3's statements, pg's queries), averaged over
// MESSAGES messages after a warm-up. Stages: the incoming request (POST
// /v1/incoming_custom_channel_message), the bot's reply (runBotReply alone, the logic without the job
// machinery), and the whole drain (the bot.reply job and the delivery job with their claims and
// completions, and the webhook call). Not a timing: a count that does not depend on the machine's load.
//   node bench/reply-profile.ts [messages]          DATABASE_URL (an empty database) for PostgreSQL
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { buildApp } from "../packages/server/src/app.ts";
import { loadConfig } from "../packages/server/src/config.ts";
import { createAccount } from "../packages/server/src/modules/accounts/service.ts";
import type { KnowledgeEntry } from "../packages/server/src/modules/bot/engine-builtin.ts";
import { runBotReply } from "../packages/server/src/modules/bot/reply-job.ts";

const MESSAGES = Number(process.argv[2] ?? 20);

// --- count statements at the driver --------------------------------------------------------------
const counts = new Map<string, number>();
let counting = false;
const record = (sqlText: string) => {
  if (!counting) return;
  const key = sqlText.replace(/\s+/g, " ").trim().slice(0, 90);
  counts.set(key, (counts.get(key) ?? 0) + 1);
};
const probe = new SQLite(":memory:");
const statementProto = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, unknown>;
for (const method of ["run", "get", "all", "iterate"]) {
  const original = statementProto[method] as (...args: unknown[]) => unknown;
  statementProto[method] = function (this: { source: string }, ...args: unknown[]) {
    record(this.source);
    return original.apply(this, args);
  };
}
const databaseProto = Object.getPrototypeOf(probe) as Record<string, unknown>;
const exec = databaseProto.exec as (this: unknown, s: string) => unknown;
databaseProto.exec = function (this: unknown, s: string) {
  record(s);
  return exec.call(this, s);
};
probe.close();
for (const proto of [pg.Client.prototype, pg.Pool.prototype] as unknown as Record<string, unknown>[]) {
  const query = proto.query as (this: unknown, ...args: unknown[]) => unknown;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text?: string; name?: string };
    record(typeof q === "string" ? q : (q?.text ?? q?.name ?? "?"));
    return query.apply(this, args);
  };
}
const take = () => {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const top = [...counts].sort((a, b) => b[1] - a[1]);
  counts.clear();
  return { total, top };
};

// --- a shop with a 200-entry knowledge base and a webhook receiver -------------------------------
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(200).end("{}"));
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const receiverPort = (receiver.address() as { port: number }).port;
const evalDir = path.join(import.meta.dirname, "bot-eval");
const knowledge = (
  JSON.parse(fs.readFileSync(path.join(evalDir, "knowledge.json"), "utf8")) as KnowledgeEntry[]
)
  .filter((e) => e.question && e.answer)
  .map(({ question, answer }) => ({ question, answer }));
for (let i = 0; knowledge.length < 200; i++) {
  const e = knowledge[i]!;
  knowledge.push({ question: `${e.question} (copy ${i})`, answer: e.answer });
}

fs.mkdirSync("/tmp/reply-profile", { recursive: true });
const dir = fs.mkdtempSync("/tmp/reply-profile/d");
const p = await buildApp(
  loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: "warn",
    RATE_LIMIT_PER_MINUTE: "10000000",
    OUTBOUND_ALLOW_CIDRS: "127.0.0.0/8",
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  }),
);
const acc = await createAccount(p.ctx, {
  email: "profile@example.com",
  password: "profile-pw-1",
  kind: "standard",
});
await p.db.kysely
  .updateTable("accounts")
  .set({ webhook_url: `http://127.0.0.1:${receiverPort}/replies` })
  .where("id", "=", acc.accountId)
  .execute();
const key = { "x-api-key": acc.apiKey };
const def = (
  (await p.app.inject({ method: "GET", url: "/v1/campaigns", headers: key })).json() as {
    data: { id: string; isDefault: boolean }[];
  }
).data.find((c) => c.isDefault)!;
await p.app.inject({
  method: "PATCH",
  url: `/v1/campaigns/${def.id}`,
  headers: key,
  payload: { knowledge, engine: "builtin" },
});

let seq = 0;
async function incoming(): Promise<string> {
  const n = seq++;
  const res = await p.app.inject({
    method: "POST",
    url: "/v1/incoming_custom_channel_message",
    headers: key,
    payload: {
      customData: {
        messageSid: `profile-${n}`,
        fromId: `customer-${n % 5}`,
        toId: "shop",
        body: knowledge[n % 40]!.question,
      },
    },
  });
  if (res.statusCode !== 200) throw new Error(res.body);
  return (res.json() as { messageId: string }).messageId;
}

// Warm-up: caches (the engine, prepared statements, routing) as on a running server.
for (let i = 0; i < 10; i++) await incoming();
await p.worker.drain();

// The incoming request alone.
counting = true;
for (let i = 0; i < MESSAGES; i++) await incoming();
counting = false;
const ingest = take();
await p.worker.drain();

// The reply logic alone: the same work as the bot.reply job, without claiming or completing it.
const ids: string[] = [];
for (let i = 0; i < MESSAGES; i++) ids.push(await incoming());
await p.db.kysely.deleteFrom("jobs").execute();
counting = true;
for (const id of ids) await runBotReply(p.ctx, id, { accountId: acc.accountId });
counting = false;
const reply = take();
await p.db.kysely.deleteFrom("jobs").execute();

// The whole drain of MESSAGES messages: the bot.reply jobs, the delivery jobs, and their bookkeeping.
for (let i = 0; i < MESSAGES; i++) await incoming();
counting = true;
await p.worker.drain();
counting = false;
const drain = take();

await p.close();
receiver.close();
fs.rmSync(dir, { recursive: true, force: true });

const per = (n: number) => Math.round((n / MESSAGES) * 10) / 10;
const lines = [
  `${process.env.DATABASE_URL ? "PostgreSQL" : "SQLite"}, ${MESSAGES} messages, 200-entry knowledge, statements per message:`,
  `  incoming request: ${per(ingest.total)}`,
  `  bot reply logic (runBotReply): ${per(reply.total)}`,
  `  drain (bot.reply + delivery jobs, claims, completions): ${per(drain.total)}`,
  "  reply logic, by statement:",
  ...reply.top.map(([sqlText, n]) => `    ${per(n)} × ${sqlText}`),
  "  drain, by statement:",
  ...drain.top.map(([sqlText, n]) => `    ${per(n)} × ${sqlText}`),
];
console.log(lines.join("\n"));
console.log(
  JSON.stringify({
    messages: MESSAGES,
    ingest: per(ingest.total),
    reply: per(reply.total),
    drain: per(drain.total),
  }),
);

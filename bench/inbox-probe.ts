// The web app's inbox at size: N conversations (2 messages each) seeded in one account, then each
// inbox query timed as server time (through inject, no network), 20 runs each (p50, p95). npm run
// bench runs it (the "inbox" section, targets: the first page under 100 ms, a search under 50 ms, at
// 100,000 conversations / 5 M messages); alone:
//   node bench/inbox-probe.ts [conversations] [extra messages]   DATABASE_URL (an empty database) for PostgreSQL
// The last line of output is the result as JSON.
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import { buildApp } from "../packages/server/src/app.ts";
import { loadConfig } from "../packages/server/src/config.ts";
import { createAccount } from "../packages/server/src/modules/accounts/service.ts";
import { dashboard } from "../packages/server/src/modules/reports/service.ts";
import { settleDaysJob } from "../packages/server/src/modules/reports/settle.ts";
import { enqueueJobs } from "../packages/server/src/platform/jobs.ts";

const N = Number(process.argv[2] ?? 100_000);
// Messages spread over the last 30 days for the dashboard's figures (npm run bench: BENCH_DASHBOARD).
const DASHBOARD_MESSAGES = Number(process.argv[3] ?? 0);
// INBOX_PROBE_DIR=/some/dir keeps the data (that SQLite directory, or the DATABASE_URL database)
// and reuses it when already seeded: to work on the queries against one seeding of 5 M messages.
const keepDir = process.env.INBOX_PROBE_DIR;
fs.mkdirSync(keepDir ?? "/tmp/inbox-probe", { recursive: true });
const dir = keepDir ?? fs.mkdtempSync("/tmp/inbox-probe/d");
const config = loadConfig({
  DATA_DIR: dir,
  LOG_LEVEL: "warn",
  RATE_LIMIT_PER_MINUTE: "100000",
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
});
const p = await buildApp(config);
const db = p.db;
const reused = keepDir
  ? await db.kysely
      .selectFrom("users")
      .select("account_id")
      .where("email", "=", "inbox@example.com")
      .executeTakeFirst()
  : undefined;
const acc = reused
  ? { accountId: reused.account_id }
  : await createAccount(p.ctx, { email: "inbox@example.com", password: "inbox-probe-pw", kind: "standard" });
const t0 = Date.now() - N * 1000;
// Hex, as the extra messages' SQL writes their conversation ids.
const pad = (i: number) => i.toString(16).padStart(10, "0");
const started = performance.now();
for (let b = 0; b < (reused ? 0 : N); b += 500) {
  await db.write(async (trx) => {
    const contacts = [];
    const convs = [];
    const msgs = [];
    for (let i = b; i < Math.min(N, b + 500); i++) {
      const at = t0 + i * 1000;
      const ct = `ct_${"0".repeat(16)}${pad(i)}`;
      const cv = `cv_${"0".repeat(16)}${pad(i)}`;
      contacts.push({
        id: ct,
        account_id: acc.accountId,
        first_name: `First${i}`,
        last_name: `Last${i}`,
        phone: `+4478${String(i).padStart(8, "0")}`,
        email: `person${i}@example.com`,
        external_id: `ext-${i}`,
        bot_active: 1 as const,
        created_at: at,
        updated_at: at,
      });
      convs.push({
        id: cv,
        account_id: acc.accountId,
        contact_id: ct,
        channel: "chat",
        campaign_id: null,
        bot_paused: 0 as const,
        human_alert: 0 as const,
        human_alert_reason: null,
        last_message_at: at,
        created_at: at,
        updated_at: at,
        status: i % 3 === 0 ? ("resolved" as const) : ("open" as const),
      });
      for (let k = 0; k < 2; k++) {
        msgs.push({
          id: `msg_${"0".repeat(15)}${k}${pad(i)}`,
          account_id: acc.accountId,
          conversation_id: cv,
          contact_id: ct,
          direction: "inbound" as const,
          type: "text" as const,
          sender: "contact" as const,
          body: `hello ${i} ${k}`,
          status: "received",
          channel: "chat",
          campaign_id: null,
          external_id: null,
          from_id: null,
          to_id: null,
          reaction_to_message_id: null,
          reaction_to_external_id: null,
          media_url: null,
          media_content_type: null,
          media_state: null,
          media_size: null,
          media_sha256: null,
          media_reason: null,
          error: null,
          user_id: null,
          created_at: at + k,
          updated_at: at + k,
        });
      }
    }
    await trx.insertInto("contacts").values(contacts).execute();
    await trx.insertInto("conversations").values(convs).execute();
    await trx.insertInto("messages").values(msgs).execute();
  });
}
if (DASHBOARD_MESSAGES > 0 && !reused) {
  // One statement per million rows: a counter (recursive CTE on SQLite, generate_series on
  // PostgreSQL) feeds an INSERT … SELECT; each message goes to one of the seeded conversations.
  const seeded = performance.now();
  const now = Date.now();
  for (let start = 0; start < DASHBOARD_MESSAGES; start += 1_000_000) {
    const count = Math.min(1_000_000, DASHBOARD_MESSAGES - start);
    const counter =
      db.dialect === "postgres"
        ? sql`select g as i from generate_series(${start}::bigint, ${start + count - 1}::bigint) g`
        : sql`select i from (with recursive n(i) as (select ${start} union all select i + 1 from n where i < ${start + count - 1}) select i from n)`;
    // Spread over the seeded conversations (the dashboard reads messages only; the search groups its
    // hits by conversation). Bodies give the search a word in every message ("seeded"), one in 1 of
    // 1,000 ("topic7") and one in a single message ("order12345").
    const idOf = sql.raw(db.dialect === "postgres" ? "lpad(i::text, 25, '0')" : "printf('%025d', i)");
    // In time order over the last 30 days, as messages arrive: a day's messages lie together in the
    // table. (Until 2026-11-27 message i went to day i % 30, so every table page held every day and
    // counting one day read the whole table.)
    const sentAt = sql.raw(`${now - 30 * 86_400_000} + i * ${30 * 86_400_000} / ${DASHBOARD_MESSAGES}`);
    const convOf = sql.raw(
      db.dialect === "postgres"
        ? `'cv_${"0".repeat(16)}' || lpad(to_hex((i % ${N})::int), 10, '0')`
        : `'cv_${"0".repeat(16)}' || printf('%010x', i % ${N})`,
    );
    const contactOf = sql.raw(
      db.dialect === "postgres"
        ? `'ct_${"0".repeat(16)}' || lpad(to_hex((i % ${N})::int), 10, '0')`
        : `'ct_${"0".repeat(16)}' || printf('%010x', i % ${N})`,
    );
    await sql`
      insert into messages (id, account_id, conversation_id, contact_id, direction, type, sender, body,
        status, bot_outcome, created_at, updated_at)
      select 'msg_d' || ${idOf}, ${acc.accountId}, ${convOf}, ${contactOf},
        case when i % 2 = 0 then 'inbound' else 'outbound' end, 'text',
        case when i % 2 = 0 then 'contact' else 'bot' end,
        'seeded message about topic' || (i % 1000) || ', order' || i || ' as asked',
        case when i % 2 = 0 then 'received' when i % 10 = 1 then 'failed' else 'sent' end,
        case when i % 2 = 0 then null when i % 6 = 1 then 'fallback' else 'answer' end,
        ${sentAt}, ${sentAt}
      from (${counter}) as counter`.execute(db.kysely);
  }
  console.log(
    `seeded ${DASHBOARD_MESSAGES} more messages over 30 days in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
  );
}
await sql`analyze`.execute(db.kysely);
console.log(
  `seeded ${N} conversations (${2 * N} messages) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

const signIn = await p.app.inject({
  method: "POST",
  url: "/app/api/session",
  payload: { email: "inbox@example.com", password: "inbox-probe-pw" },
});
const cookie = String(signIn.headers["set-cookie"]).split(";")[0] as string;
const RUNS = 20;
const timings: Array<{ query: string; medianMs: number; p95Ms: number; maxMs: number }> = [];
// Search (issue 33, target < 50 ms), each kind of text a person types: a contact's name fragment,
// a fragment common to every contact's name, a phone fragment, a word in a single message (rare),
// a word in 1 of 1,000 messages, a word in every message (common), and two words.
const SEARCHES = [
  `?q=irst${Math.floor((N - 1) / 10)}`,
  "?q=last",
  `?q=${String(Math.floor(N / 3))
    .padStart(8, "0")
    .slice(-7)}`,
  `?q=order${DASHBOARD_MESSAGES - 1}`,
  "?q=topic999",
  "?q=seeded",
  "?q=asked%20topic999",
];
const round = (ms: number) => Math.round(ms * 10) / 10;
for (const query of ["", "?status=open", "?assignee=unassigned", "?limit=200", ...SEARCHES]) {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const s = performance.now();
    const res = await p.app.inject({
      method: "GET",
      url: `/app/api/conversations${query}`,
      headers: { cookie },
    });
    times.push(performance.now() - s);
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
    if (r === 0 && query.startsWith("?q=")) {
      const found = (res.json() as { data: unknown[] }).data.length;
      console.log(`  ${query}: ${found} conversations on the first page`);
    }
  }
  times.sort((a, b) => a - b);
  const timing = {
    query: query || "(first page)",
    medianMs: round(times[Math.floor(RUNS / 2) - 1]!),
    p95Ms: round(times[Math.ceil(RUNS * 0.95) - 1]!),
    maxMs: round(times[RUNS - 1]!),
  };
  timings.push(timing);
  console.log(
    `GET /app/api/conversations${query || " (first page)"}: p50 ${timing.medianMs} ms, p95 ${timing.p95Ms} ms, max ${timing.maxMs} ms`,
  );
}
// The dashboard (30 days). Cold: nothing counted ahead (as right after this seeding put millions of
// messages into past days at once), so the first call counts the finished days and keeps them. Then
// as in use: the finished days forgotten, the hourly reports.settle_days job run (timed), and the
// first call again; later calls read the kept days and count the last two days live.
const dashboardCalls = async (n: number) => {
  const ms: number[] = [];
  for (let r = 0; r < n; r++) {
    const s = performance.now();
    const res = await p.app.inject({ method: "GET", url: "/app/api/dashboard?days=30", headers: { cookie } });
    ms.push(round(performance.now() - s));
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  }
  return ms;
};
const forgetDays = async () => {
  await db.kysely.deleteFrom("dashboard_days").where("account_id", "=", acc.accountId).execute();
  await db.kysely.deleteFrom("dashboard_live").where("account_id", "=", acc.accountId).execute();
  p.ctx.caches.clear();
};
await forgetDays();
const [coldFirstMs] = await dashboardCalls(1);
await forgetDays();
const settleStart = performance.now();
await db.write((trx) => enqueueJobs(trx, [settleDaysJob.create({}, { accountId: null })]));
await p.worker.drain();
const settleJobMs = round(performance.now() - settleStart);
const dashboardMs = await dashboardCalls(5);
console.log(
  `GET /app/api/dashboard: cold first ${coldFirstMs} ms; reports.settle_days job ${settleJobMs} ms; then first ${dashboardMs[0]} ms, later ${dashboardMs.slice(1).join(", ")} ms`,
);
const figures = await dashboard(p.ctx, acc.accountId, 30);
await p.close();
if (!keepDir) fs.rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    conversations: N,
    messages: 2 * N + DASHBOARD_MESSAGES,
    timings,
    dashboard: {
      coldFirstMs,
      settleJobMs,
      firstMs: dashboardMs[0],
      laterMs: dashboardMs.slice(1),
      inbound30d: figures.totals.inbound,
    },
  }),
);

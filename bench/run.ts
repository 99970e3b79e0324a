// npm run bench: Parley's ingestion against a bare Fastify baseline (same HTTPS, same body parsing),
// the webhook delivery drain rate, and lookup latency as data grows. A benchmark, not a test: it
// prints a table and writes bench/results/{latest.json,latest.md}.
//
//   npm run bench                       SQLite
//   DATABASE_URL=postgres://… npm run bench   SQLite, then PostgreSQL
//   BENCH_SECONDS=5 BENCH_SCALE=100000 npm run bench   a quicker run (20 s and 1,000,000 by default)
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { seedLookupData } from "./seed.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = path.join(ROOT, "packages/server/bin/parley.js");
/** The V8 flag `npm start` runs Parley with (docs/decisions/operations-and-scale.md: the young generation's cap). */
const PARLEY_NODE_FLAGS = ["--max-semi-space-size=32"];
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONNECTIONS = 50;
const SCALE = Number(process.env.BENCH_SCALE ?? 1_000_000);
// Without DATABASE_URL, a throw-away PostgreSQL cluster is started when its binaries exist (below).
let PG_URL = process.env.DATABASE_URL ?? null;
const DRAIN_MESSAGES = Number(process.env.BENCH_DRAIN ?? 10_000);

interface Run {
  server: "parley" | "baseline";
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  ok: number;
  errors: number;
}

function log(msg: string): void {
  process.stderr.write(`[bench] ${msg}\n`);
}

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-"));
}

function childEnv(
  dataDir: string,
  databaseUrl: string | null,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    RATE_LIMIT_PER_MINUTE: "10000000",
    HOST: "127.0.0.1",
    PORT: "0",
    ...extra,
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  return env;
}

async function cli(args: string[], env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (err += c));
  const code = await new Promise<number | null>((r) => child.on("close", r));
  if (code !== 0) throw new Error(`parley ${args.join(" ")} failed: ${err}`);
  return JSON.parse(out);
}

interface Served {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

function serve(command: string[], env: NodeJS.ProcessEnv): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, command, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.on("data", (c) => (err += c));
    child.stdout.on("data", (c) => {
      out += c;
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      const line = JSON.parse(out.slice(0, nl)) as { port?: number; url?: string };
      const port = line.port ?? (line.url ? Number(new URL(line.url).port) : 0);
      resolve({
        child,
        port,
        stop: () =>
          new Promise<void>((r) => {
            child.once("exit", () => r());
            child.kill("SIGTERM");
          }),
      });
    });
    child.once("exit", (code) => reject(new Error(`server exited (${code}): ${err}`)));
  });
}

/** Peak resident set size of a process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

function incomingBody(fromId = "+14155550100", messageSid = "[<id>]"): string {
  // About 330 bytes, like the issue's baseline figure; [<id>] becomes a unique messageSid per request.
  return JSON.stringify({
    customData: {
      messageSid,
      fromId,
      toId: "acme-support",
      body: "Hello! Are you open on Saturday morning, and is there parking near the shop?",
      channel: "webchat",
      firstName: "Ada",
      lastName: "Lovelace",
      email: "ada@example.com",
    },
    messageType: "text",
  });
}

let sequence = 0;

/** One sender (every message from one contact), or `senders` contacts in rotation. */
async function drive(
  port: number,
  urlPath: string,
  seconds: number,
  server: Run["server"],
  senders = 1,
): Promise<Run> {
  const run = `${Date.now()}`;
  const result = await autocannon({
    url: `https://127.0.0.1:${port}${urlPath}`,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: incomingBody(),
    idReplacement: true,
    ...(senders > 1
      ? {
          requests: [
            {
              setupRequest: (req: Record<string, unknown>) => {
                const i = sequence++;
                return {
                  ...req,
                  body: incomingBody(`+1415556${String(i % senders).padStart(4, "0")}`, `r${run}-${i}`),
                };
              },
            },
          ],
        }
      : {}),
    connections: CONNECTIONS,
    duration: seconds,
    // autocannon's TLS client must accept the self-signed certificate.
    tlsOptions: { rejectUnauthorized: false },
  } as autocannon.Options);
  return {
    server,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    ok: result["2xx"],
    errors: result.errors + result.timeouts,
  };
}

async function countMessages(dataDir: string, databaseUrl: string | null): Promise<number> {
  if (databaseUrl) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    const r = await c.query("select count(*)::int as n from messages");
    await c.end();
    return r.rows[0].n as number;
  }
  const { default: SQLite } = await import("better-sqlite3");
  const db = new SQLite(path.join(dataDir, "parley.sqlite"), { readonly: true });
  const n = (db.prepare("select count(*) as n from messages").get() as { n: number }).n;
  db.close();
  return n;
}

async function freshPgDatabase(name: string, options: { keep?: boolean } = {}): Promise<string> {
  if (!PG_URL) throw new Error("no DATABASE_URL");
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  // keep: a database kept between runs, created when missing, else reused as it is.
  const found = options.keep
    ? (await admin.query("select 1 from pg_database where datname = $1", [name])).rowCount
    : 0;
  if (!options.keep) await admin.query(`drop database if exists ${name} with (force)`);
  if (!found) await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

interface IngestionResult {
  database: "sqlite" | "postgres";
  /** Contacts the messages come from, in rotation (1: one contact sends everything). */
  senders: number;
  /** API processes behind the load (the load split across their ports); 1 worker when more than 1. */
  apiProcesses: number;
  runs: Run[];
  parley: { rps: number; p50: number; p99: number };
  baseline: { rps: number; p50: number; p99: number };
  ratio: number;
  peakRssMb: number;
  acknowledged: number;
  stored: number;
}

async function ingestion(
  database: "sqlite" | "postgres",
  senders = 1,
  apiProcesses = 1,
): Promise<IngestionResult> {
  const dataDir = tmpDir();
  const databaseUrl = database === "postgres" ? await freshPgDatabase("parley_bench_ingest") : null;
  const env = childEnv(dataDir, databaseUrl);
  const account = await cli(
    ["account", "create", "--email", "bench@example.com", "--password", "bench-password"],
    env,
  );
  const parley = await serve([...PARLEY_NODE_FLAGS, BIN, "serve", "--no-worker"], env);
  // Scale-out: more API processes on the same database, and one worker process draining bot jobs.
  const more = await Promise.all(
    Array.from({ length: apiProcesses - 1 }, () =>
      serve([...PARLEY_NODE_FLAGS, BIN, "serve", "--no-worker"], env),
    ),
  );
  const worker = apiProcesses > 1 ? await serve([...PARLEY_NODE_FLAGS, BIN, "worker"], env) : null;
  const tlsDir = path.join(dataDir, "tls");
  const baseline = await serve(
    [
      path.join(ROOT, "bench/baseline-server.ts"),
      path.join(tlsDir, "self-signed.crt"),
      path.join(tlsDir, "self-signed.key"),
    ],
    env,
  );
  const parleyPath = `/v1/incoming_custom_channel_message?apiKey=${account.apiKey}`;
  const basePath = "/v1/incoming_custom_channel_message";
  const label = `${database}, ${senders} sender${senders > 1 ? "s" : ""}, ${apiProcesses} API process${apiProcesses > 1 ? "es" : ""}`;
  /** Parley's load: split across every API process's port, the results added up. */
  const driveParley = async (seconds: number): Promise<Run> => {
    const ports = [parley.port, ...more.map((m) => m.port)];
    const parts = await Promise.all(ports.map((port) => drive(port, parleyPath, seconds, "parley", senders)));
    return parts.reduce((a, b) => ({
      server: "parley",
      rps: a.rps + b.rps,
      p50: Math.max(a.p50, b.p50),
      p99: Math.max(a.p99, b.p99),
      non2xx: a.non2xx + b.non2xx,
      ok: a.ok + b.ok,
      errors: a.errors + b.errors,
    }));
  };
  log(`${label}: warming up`);
  await drive(baseline.port, basePath, 3, "baseline");
  const warm = await driveParley(3);
  const runs: Run[] = [];
  let acknowledged = warm.ok;
  // A B A B: drift on the machine (thermal, neighbours) cancels out in the averages.
  for (let i = 0; i < 2; i++) {
    for (const [who, port, p] of [
      ["parley", parley.port, parleyPath],
      ["baseline", baseline.port, basePath],
    ] as const) {
      log(`${label}: ${who} run ${i + 1}, ${SECONDS} s at ${CONNECTIONS} connections`);
      const run = who === "parley" ? await driveParley(SECONDS) : await drive(port, p, SECONDS, who);
      if (who === "parley") acknowledged += run.ok;
      runs.push(run);
    }
  }
  const rss = peakRssMb(parley.child.pid!);
  for (const m of more) await m.stop();
  await worker?.stop();
  await parley.stop();
  await baseline.stop();
  const stored = await countMessages(dataDir, databaseUrl);
  fs.rmSync(dataDir, { recursive: true, force: true });
  const avg = (who: Run["server"], k: "rps" | "p50" | "p99") => {
    const xs = runs.filter((r) => r.server === who).map((r) => r[k]);
    return Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10;
  };
  const p = { rps: avg("parley", "rps"), p50: avg("parley", "p50"), p99: avg("parley", "p99") };
  const b = { rps: avg("baseline", "rps"), p50: avg("baseline", "p50"), p99: avg("baseline", "p99") };
  return {
    database,
    senders,
    apiProcesses,
    runs,
    parley: p,
    baseline: b,
    ratio: Math.round((p.rps / b.rps) * 100) / 100,
    peakRssMb: rss,
    acknowledged,
    stored,
  };
}

interface DrainResult {
  database: "sqlite" | "postgres";
  messages: number;
  seconds: number;
  perSecond: number;
  delivered: number;
  duplicates: number;
}

/** 10,000 queued replies drained by `parley worker` to a local receiver that answers 200 at once. */
async function deliveryDrain(database: "sqlite" | "postgres"): Promise<DrainResult> {
  const seen = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    const id = String(req.headers["webhook-id"]);
    seen.set(id, (seen.get(id) ?? 0) + 1);
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  receiver.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const port = (receiver.address() as { port: number }).port;
  const dataDir = tmpDir();
  const databaseUrl = database === "postgres" ? await freshPgDatabase("parley_bench_drain") : null;
  const env = childEnv(dataDir, databaseUrl, { OUTBOUND_ALLOW_CIDRS: "127.0.0.0/8" });
  const account = await cli(
    ["account", "create", "--email", "drain@example.com", "--password", "bench-password"],
    env,
  );
  await cli(
    ["account", "set", "--email", "drain@example.com", "--webhook-url", `http://127.0.0.1:${port}/hook`],
    env,
  );
  // Queue the replies through the real send endpoint, with no worker running.
  const api = await serve([...PARLEY_NODE_FLAGS, BIN, "serve", "--no-worker"], env);
  log(`${database}: queueing ${DRAIN_MESSAGES} replies`);
  await autocannon({
    url: `https://127.0.0.1:${api.port}/v1/send_custom_channel_message?apiKey=${account.apiKey}`,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      customData: { fromId: "user-[<id>]", customChannel: "webchat", body: "Your order has shipped." },
    }),
    idReplacement: true,
    connections: 20,
    amount: DRAIN_MESSAGES,
    tlsOptions: { rejectUnauthorized: false },
  } as autocannon.Options);
  await api.stop();
  const queued = await countMessages(dataDir, databaseUrl);
  log(`${database}: ${queued} queued; draining with parley worker`);
  const worker = await serve([...PARLEY_NODE_FLAGS, BIN, "worker"], env);
  // Timed from the moment the worker is up (process start-up is not delivery throughput).
  const start = performance.now();
  while (seen.size < queued && performance.now() - start < 300_000) {
    await new Promise((r) => setTimeout(r, 25));
  }
  const seconds = (performance.now() - start) / 1000;
  await worker.stop();
  receiver.closeAllConnections();
  receiver.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  const duplicates = [...seen.values()].reduce((a, n) => a + (n - 1), 0);
  return {
    database,
    messages: queued,
    seconds: Math.round(seconds * 100) / 100,
    perSecond: Math.round(seen.size / seconds),
    delivered: seen.size,
    duplicates,
  };
}

interface LookupResult {
  database: "sqlite";
  sizes: Array<{
    contacts: number;
    messages: number;
    phoneP50: number;
    phoneP99: number;
    historyP50: number;
    historyP99: number;
  }>;
  phoneRatio: number;
  historyRatio: number;
}

async function lookupAt(contacts: number): Promise<LookupResult["sizes"][number]> {
  const dataDir = tmpDir();
  const env = childEnv(dataDir, null);
  const account = (await cli(
    ["account", "create", "--email", "lookup@example.com", "--password", "bench-password"],
    env,
  )) as {
    accountId: string;
    apiKey: string;
  };
  log(`lookup: seeding ${contacts} contacts and ${contacts * 5} messages`);
  const seeded = seedLookupData(path.join(dataDir, "parley.sqlite"), account.accountId, contacts, 5);
  const api = await serve([...PARLEY_NODE_FLAGS, BIN, "serve", "--no-worker"], env);
  const sample = (n: number) => Math.floor(Math.random() * n);
  // Sequential requests over one keep-alive connection, timed each with sub-millisecond precision
  // (autocannon reports whole milliseconds, too coarse for a 1-2 ms look-up).
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  const get = (urlPath: string) =>
    new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      https
        .get({ host: "127.0.0.1", port: api.port, path: urlPath, agent }, (res) => {
          res.resume();
          res.on("end", () =>
            res.statusCode === 200
              ? resolve(performance.now() - t0)
              : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        })
        .on("error", reject);
    });
  const run = async (makePath: () => string) => {
    for (let i = 0; i < 200; i++) await get(makePath()); // warm up
    const times: number[] = [];
    for (let i = 0; i < 3000; i++) times.push(await get(makePath()));
    times.sort((a, b) => a - b);
    const at = (q: number) => Math.round(times[Math.floor(q * (times.length - 1))]! * 100) / 100;
    return { p50: at(0.5), p99: at(0.99) };
  };
  const phone = await run(
    () => `/v1/contacts?phoneNumber=%2B${seeded.phoneOf(sample(contacts)).slice(1)}&apiKey=${account.apiKey}`,
  );
  const history = await run(
    () => `/v1/contacts/${seeded.contactIdOf(sample(contacts))}/messages?limit=20&apiKey=${account.apiKey}`,
  );
  await api.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return {
    contacts,
    messages: contacts * 5,
    phoneP50: phone.p50,
    phoneP99: phone.p99,
    historyP50: history.p50,
    historyP99: history.p99,
  };
}

async function lookups(): Promise<LookupResult> {
  const small = await lookupAt(10_000);
  const large = await lookupAt(SCALE);
  return {
    database: "sqlite",
    sizes: [small, large],
    phoneRatio: Math.round((large.phoneP50 / small.phoneP50) * 100) / 100,
    historyRatio: Math.round((large.historyP50 / small.historyP50) * 100) / 100,
  };
}

interface InboxResult {
  database: "sqlite" | "postgres";
  conversations: number;
  messages: number;
  timings: Array<{ query: string; medianMs: number; p95Ms?: number; maxMs: number }>;
  dashboard?: {
    /** Nothing counted ahead: the first call counts the finished days (as right after a bulk load). */
    coldFirstMs?: number;
    /** The hourly reports.settle_days job counting the finished days ahead. */
    settleJobMs?: number;
    /** The first call once that job ran (target: under 500 ms at 5 M messages). */
    firstMs: number;
    laterMs: number[];
    inbound30d: number;
  };
}

const INBOX_CONVERSATIONS = Number(process.env.BENCH_INBOX ?? 100_000);
/** Extra messages over the last 30 days for the dashboard's time (issue 16: stays fast at 5 M). */
const DASHBOARD_MESSAGES = Number(process.env.BENCH_DASHBOARD ?? 5_000_000);

/** The web app's inbox at size: bench/inbox-probe.ts in a child process, its last line parsed. */
async function inbox(database: "sqlite" | "postgres"): Promise<InboxResult> {
  log(`inbox: ${INBOX_CONVERSATIONS} conversations on ${database}`);
  const env: NodeJS.ProcessEnv = { ...process.env };
  // BENCH_INBOX_KEEP=/dir keeps each database's seeding (5 M messages take 10–20 min) and reuses it:
  // SQLite in /dir/sqlite, PostgreSQL in the database parley_bench_inbox_kept (see inbox-probe.ts).
  const keep = process.env.BENCH_INBOX_KEEP;
  if (keep) env.INBOX_PROBE_DIR = path.join(keep, database);
  if (database === "postgres")
    env.DATABASE_URL = await freshPgDatabase(keep ? "parley_bench_inbox_kept" : "parley_bench_inbox", {
      keep: Boolean(keep),
    });
  else delete env.DATABASE_URL;
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, "bench/inbox-probe.ts"), String(INBOX_CONVERSATIONS), String(DASHBOARD_MESSAGES)],
      {
        env,
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let stdout = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`inbox probe exited ${code}`)),
    );
  });
  const lines = out.trim().split("\n");
  for (const line of lines.slice(0, -1)) log(`  ${line}`);
  return { database, ...(JSON.parse(lines.at(-1) ?? "{}") as Omit<InboxResult, "database">) };
}

interface ImportResult {
  database: "sqlite" | "postgres";
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  peakRssMb: number;
  created: number;
  rejected: number;
}

const IMPORT_ROWS = Number(process.env.BENCH_IMPORT ?? 100_000);

/** `parley contacts import` of a generated CSV (names, phone, e-mail, labels; 1 % bad phones). */
async function importBench(database: "sqlite" | "postgres"): Promise<ImportResult> {
  log(`import: ${IMPORT_ROWS} rows on ${database}`);
  const dir = tmpDir();
  const databaseUrl = database === "postgres" ? await freshPgDatabase("parley_bench_import") : null;
  const env = childEnv(dir, databaseUrl);
  await cli(["account", "create", "--email", "import@example.com", "--password", "bench import pw"], env);
  const file = path.join(dir, "contacts.csv");
  const lines = ["First name,Last name,Phone,Email,Labels"];
  for (let i = 0; i < IMPORT_ROWS; i++) {
    const phone = i % 100 === 7 ? `212${2000000 + i}` : `+1212${2000000 + (i % 8000000)}`;
    lines.push(`First${i},Last${i},${phone},p${i}@example.com,${i % 3 ? "a;b" : ""}`);
  }
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, "contacts", "import", "--email", "import@example.com", file], {
    env,
    stdio: ["ignore", "pipe", "ignore"],
  });
  let out = "";
  let peak = 0;
  child.stdout.on("data", (c) => (out += c));
  const poll = setInterval(() => {
    try {
      if (child.pid) peak = Math.max(peak, peakRssMb(child.pid));
    } catch {}
  }, 100);
  const code = await new Promise<number | null>((r) => child.on("close", r));
  clearInterval(poll);
  if (code !== 0) throw new Error("parley contacts import failed");
  const seconds = (performance.now() - started) / 1000;
  const summary = JSON.parse(out) as { created: number; rejected: number };
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    database,
    rows: IMPORT_ROWS,
    seconds: Math.round(seconds * 10) / 10,
    rowsPerSecond: Math.round(IMPORT_ROWS / seconds),
    peakRssMb: peak,
    created: summary.created,
    rejected: summary.rejected,
  };
}

interface WidgetResult {
  database: "sqlite" | "postgres";
  visitors: number;
  seconds: number;
  messages: number;
  messagesPerSecond: number;
  replies: number;
  failed: number;
  replyP50Ms: number;
  replyP99Ms: number;
}

const WIDGET_VISITORS = Number(process.env.BENCH_WIDGET_VISITORS ?? 50);

/** The chat widget: bench/widget-probe.ts in a child process (visitors chatting with the bot), its last line. */
async function widgetBench(database: "sqlite" | "postgres"): Promise<WidgetResult> {
  log(`widget: ${WIDGET_VISITORS} visitors for ${Math.min(SECONDS, 10)} s on ${database}`);
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (database === "postgres") env.DATABASE_URL = await freshPgDatabase("parley_bench_widget");
  else delete env.DATABASE_URL;
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, "bench/widget-probe.ts"), String(WIDGET_VISITORS), String(Math.min(SECONDS, 10))],
      { env, stdio: ["ignore", "pipe", "inherit"] },
    );
    let stdout = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`widget probe exited ${code}`)),
    );
  });
  return {
    database,
    ...(JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Omit<WidgetResult, "database">),
  };
}

interface PipelineResult {
  database: "sqlite" | "postgres";
  /** API processes taking the messages; with more than one, a separate worker process. */
  apiProcesses: number;
  entries: number;
  burstMessages: number;
  ingestPerSecond: number;
  repliesPerSecond: number;
  ratio: number;
  steadyRate: number;
  steadyActualRate: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  acknowledged: number;
  repliesArrived: number;
  exactlyOnce: boolean;
}

const PIPELINE_BURST = Number(process.env.BENCH_PIPELINE_BURST ?? 6000);
const PIPELINE_RATE = Number(process.env.BENCH_PIPELINE_RATE ?? 1000);

/** A free loopback port (for the probe's webhook receiver, registered before it starts). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = http.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const p = (srv.address() as { port: number }).port;
      srv.close(() => resolve(p));
    });
  });
}

/**
 * The whole pipeline (issue 36): `parley serve` (one node, or 2 API processes + 1 worker), and
 * bench/pipeline-probe.ts as the customers and the business's webhook receiver; its last line.
 */
async function pipelineBench(database: "sqlite" | "postgres", apiProcesses = 1): Promise<PipelineResult> {
  const label = `pipeline: ${database}, ${apiProcesses === 1 ? "one node" : `${apiProcesses} API processes + 1 worker`}`;
  log(
    `${label}: ${PIPELINE_BURST} messages as fast as taken, then ${PIPELINE_RATE}/s for ${Math.min(SECONDS, 10)} s`,
  );
  const dataDir = tmpDir();
  const databaseUrl = database === "postgres" ? await freshPgDatabase("parley_bench_pipeline") : null;
  const env = childEnv(dataDir, databaseUrl, { OUTBOUND_ALLOW_CIDRS: "127.0.0.0/8" });
  const account = await cli(
    ["account", "create", "--email", "pipeline@example.com", "--password", "bench-password"],
    env,
  );
  const receiverPort = await freePort();
  await cli(
    [
      "account",
      "set",
      "--email",
      "pipeline@example.com",
      "--webhook-url",
      `http://127.0.0.1:${receiverPort}/replies`,
    ],
    env,
  );
  const apis =
    apiProcesses === 1
      ? [await serve([...PARLEY_NODE_FLAGS, BIN, "serve"], env)]
      : await Promise.all(
          Array.from({ length: apiProcesses }, () =>
            serve([...PARLEY_NODE_FLAGS, BIN, "serve", "--no-worker"], env),
          ),
        );
  const worker = apiProcesses > 1 ? await serve([...PARLEY_NODE_FLAGS, BIN, "worker"], env) : null;
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          path.join(ROOT, "bench/pipeline-probe.ts"),
          apis.map((a) => `https://127.0.0.1:${a.port}`).join(","),
          String(account.apiKey),
          String(receiverPort),
          String(PIPELINE_BURST),
          String(PIPELINE_RATE),
          String(Math.min(SECONDS, 10)),
        ],
        { env, stdio: ["ignore", "pipe", "inherit"] },
      );
      let stdout = "";
      child.stdout.on("data", (c) => (stdout += c));
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0 ? resolve(stdout) : reject(new Error(`pipeline probe exited ${code}`)),
      );
    });
    return {
      database,
      apiProcesses,
      ...(JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Omit<
        PipelineResult,
        "database" | "apiProcesses"
      >),
    };
  } finally {
    await worker?.stop();
    for (const a of apis) await a.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

interface ExportResult {
  database: "sqlite";
  kind: "contacts" | "conversations";
  contacts: number;
  messages: number;
  seconds: number;
  megabytes: number;
  lines: number;
  /** The API process's peak RSS before the export (after start) and at its end. */
  rssBeforeMb: number;
  peakRssMb: number;
  /**
   * The highest anonymous RSS sampled during the export (every 50 ms): the process's own memory,
   * without the database file pages SQLite maps (PRAGMA mmap_size, up to 256 MB, shared with the page
   * cache and given back under pressure), which VmHWM counts too.
   */
  peakAnonMb: number;
}

const EXPORT_CONTACTS = Number(process.env.BENCH_EXPORT ?? 1_000_000);

/** GET path over HTTPS, counting bytes and lines as they stream in. */
function download(port: number, urlPath: string): Promise<{ bytes: number; lines: number; seconds: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    https
      .get({ host: "127.0.0.1", port, path: urlPath, rejectUnauthorized: false }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}`));
        let bytes = 0;
        let lines = 0;
        res.on("data", (c: Buffer) => {
          bytes += c.length;
          for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
        });
        res.on("end", () => resolve({ bytes, lines, seconds: (performance.now() - t0) / 1000 }));
      })
      .on("error", reject);
  });
}

/** Exports at size (issue 38: a million contacts under 300 MB): each kind once, in a fresh API process. */
async function exportBench(): Promise<ExportResult[]> {
  const dataDir = tmpDir();
  const env = childEnv(dataDir, null);
  const account = (await cli(
    ["account", "create", "--email", "export@example.com", "--password", "bench-password"],
    env,
  )) as { accountId: string; apiKey: string };
  log(`export: seeding ${EXPORT_CONTACTS} contacts, a conversation and 2 messages each`);
  seedLookupData(path.join(dataDir, "parley.sqlite"), account.accountId, EXPORT_CONTACTS, 2);
  const out: ExportResult[] = [];
  for (const kind of ["contacts", "conversations"] as const) {
    const api = await serve([...PARLEY_NODE_FLAGS, BIN, "serve", "--no-worker"], env);
    const pid = api.child.pid!;
    const rssBeforeMb = peakRssMb(pid);
    let peakAnonMb = 0;
    const sampler = setInterval(() => {
      const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
      const kb = Number(/RssAnon:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peakAnonMb = Math.max(peakAnonMb, Math.round(kb / 1024));
    }, 50);
    const got = await download(api.port, `/v1/exports/${kind}?format=csv&apiKey=${account.apiKey}`);
    clearInterval(sampler);
    const peak = peakRssMb(pid);
    log(
      `export ${kind}: ${got.lines} lines, ${Math.round(got.bytes / 2 ** 20)} MB in ${got.seconds.toFixed(1)} s, peak RSS ${peak} MB, peak anonymous RSS ${peakAnonMb} MB`,
    );
    out.push({
      database: "sqlite",
      kind,
      contacts: EXPORT_CONTACTS,
      messages: EXPORT_CONTACTS * 2,
      seconds: Math.round(got.seconds * 10) / 10,
      megabytes: Math.round(got.bytes / 2 ** 20),
      lines: got.lines,
      rssBeforeMb,
      peakRssMb: peak,
      peakAnonMb,
    });
    await api.stop();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
  return out;
}

type SectionTimes = {
  widget?: string | null;
  pipeline?: string | null;
  ingestion: string | null;
  drain: string | null;
  lookup: string | null;
  inbox?: string | null;
  import?: string | null;
  export?: string | null;
};

function markdown(r: {
  machine: string;
  ranAt: string;
  sectionsRanAt: SectionTimes;
  ingestion: IngestionResult[];
  drain: DrainResult[];
  lookup: LookupResult | null;
  inbox?: InboxResult[];
  import?: ImportResult[];
  widget?: WidgetResult[];
  pipeline?: PipelineResult[];
  export?: ExportResult[];
}): string {
  const t = r.sectionsRanAt;
  const when =
    t.ingestion === t.drain && t.drain === t.lookup && t.lookup === t.inbox && t.inbox === t.import
      ? `Ran ${r.ranAt}`
      : `Ingestion ran ${t.ingestion ?? "never"}, drain ${t.drain ?? "never"}, look-ups ${t.lookup ?? "never"}, inbox ${t.inbox ?? "never"}, import ${t.import ?? "never"}`;
  const lines = [
    `${when} on ${r.machine}; ${CONNECTIONS} connections, ${SECONDS} s per run, runs alternated Parley/baseline twice.`,
    "",
    "| ingestion | req/s | p50 ms | p99 ms | peak RSS MB | Parley / baseline | acknowledged ≤ stored |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const i of r.ingestion) {
    lines.push(
      `| Parley, ${i.database}${i.database === "sqlite" ? " (synchronous=FULL)" : " (synchronous_commit=on)"}${(i.senders ?? 1) > 1 ? `, ${i.senders} rotating senders` : ", one sender"}${(i.apiProcesses ?? 1) > 1 ? `, ${i.apiProcesses} API processes + 1 worker` : ""} | ${i.parley.rps} | ${i.parley.p50} | ${i.parley.p99} | ${i.peakRssMb} | **${i.ratio}×** | ${i.acknowledged} ≤ ${i.stored} ${i.stored >= i.acknowledged ? "✓" : "✗"} |`,
      `| bare Fastify baseline | ${i.baseline.rps} | ${i.baseline.p50} | ${i.baseline.p99} | | 1× | |`,
    );
  }
  lines.push(
    "",
    "| delivery drain | messages | seconds | webhooks/s | delivered | duplicates |",
    "|---|---|---|---|---|---|",
  );
  for (const d of r.drain)
    lines.push(
      `| ${d.database} | ${d.messages} | ${d.seconds} | **${d.perSecond}** | ${d.delivered} | ${d.duplicates} |`,
    );
  if (r.lookup) {
    lines.push(
      "",
      "| lookup (SQLite) | contacts | messages | phone p50 ms | phone p99 ms | history p50 ms | history p99 ms |",
      "|---|---|---|---|---|---|---|",
    );
    for (const s of r.lookup.sizes) {
      lines.push(
        `| | ${s.contacts} | ${s.messages} | ${s.phoneP50} | ${s.phoneP99} | ${s.historyP50} | ${s.historyP99} |`,
      );
    }
    lines.push(
      `| p50 ratio large/small | | | **${r.lookup.phoneRatio}×** | | **${r.lookup.historyRatio}×** | |`,
    );
  }
  if (r.inbox?.length) {
    lines.push(
      "",
      `| web app inbox (server time, p50 / p95 of 20; targets: first page < 100 ms, search ?q= < 50 ms) | conversations | ${r.inbox[0]!.timings.map((t) => t.query.replace(/\|/g, "\\|")).join(" | ")} |`,
      `|---|---|${r.inbox[0]!.timings.map(() => "---").join("|")}|`,
    );
    for (const i of r.inbox) {
      lines.push(
        `| ${i.database} | ${i.conversations} | ${i.timings.map((t) => `${t.query.startsWith("?q=") || t.query === "(first page)" ? `**${t.medianMs}**` : t.medianMs}${t.p95Ms === undefined ? "" : ` / ${t.p95Ms}`} ms`).join(" | ")} |`,
      );
    }
    const withDashboard = r.inbox.filter((i) => i.dashboard);
    if (withDashboard.length) {
      lines.push(
        "",
        "| dashboard, 30 days (server time) | messages in the account | first call, nothing counted ahead | reports.settle_days job | first call after the job (target < 500 ms) | later calls |",
        "|---|---|---|---|---|---|",
      );
      for (const i of withDashboard) {
        lines.push(
          `| ${i.database} | ${i.messages} | ${i.dashboard?.coldFirstMs ?? "–"} ms | ${i.dashboard?.settleJobMs ?? "–"} ms | **${i.dashboard?.firstMs} ms** | ${i.dashboard?.laterMs.join(", ")} ms |`,
        );
      }
    }
  }
  if (r.import?.length) {
    lines.push(
      "",
      "| CSV import (`parley contacts import`) | rows | seconds | rows/s | peak RSS MB | created | rejected |",
      "|---|---|---|---|---|---|---|",
    );
    for (const i of r.import) {
      lines.push(
        `| ${i.database} | ${i.rows} | ${i.seconds} | **${i.rowsPerSecond}** | ${i.peakRssMb} | ${i.created} | ${i.rejected} |`,
      );
    }
  }
  if (r.widget?.length) {
    lines.push(
      "",
      `| chat widget (ran ${t.widget ?? "never"}) | visitors | messages/s into the inbox | send → bot answer on the stream p50 ms | p99 ms | failed |`,
      "|---|---|---|---|---|---|",
    );
    for (const w of r.widget) {
      lines.push(
        `| ${w.database} | ${w.visitors} | **${w.messagesPerSecond}** | ${w.replyP50Ms} | **${w.replyP99Ms}** | ${w.failed} |`,
      );
    }
  }
  if (r.pipeline?.length) {
    lines.push(
      "",
      `| pipeline, bot on (builtin, 200 entries; ran ${t.pipeline ?? "never"}) | burst: ingestion msg/s | replies delivered/s | replies / ingestion | steady: rate asked → taken /s | 200 → reply at the webhook p50 ms | p99 ms | every message answered once |`,
      "|---|---|---|---|---|---|---|---|",
    );
    for (const x of r.pipeline) {
      lines.push(
        `| ${x.database}, ${x.apiProcesses === 1 ? "one node" : `${x.apiProcesses} API + 1 worker`} | ${x.ingestPerSecond} | **${x.repliesPerSecond}** | **${x.ratio}×** | ${x.steadyRate} → ${x.steadyActualRate} | ${x.latencyP50Ms} | **${x.latencyP99Ms}** | ${x.exactlyOnce ? `yes (${x.repliesArrived} of ${x.acknowledged})` : `**no** (${x.repliesArrived} of ${x.acknowledged})`} |`,
      );
    }
  }
  if (r.export?.length) {
    lines.push(
      "",
      `| CSV export (GET /v1/exports/…, ran ${t.export ?? "never"}; target: < 300 MB at 1,000,000 contacts) | contacts | messages | lines | MB | seconds | RSS at start MB | peak RSS MB (with SQLite's mapped file) | peak anonymous RSS MB |`,
      "|---|---|---|---|---|---|---|---|---|",
    );
    for (const e of r.export) {
      lines.push(
        `| ${e.kind}, ${e.database} | ${e.contacts} | ${e.messages} | ${e.lines} | ${e.megabytes} | ${e.seconds} | ${e.rssBeforeMb} | ${e.peakRssMb} | **${e.peakAnonMb ?? "–"}** |`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

const cpu = os.cpus()[0]?.model ?? "unknown CPU";
const machine = `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()}`;
const only = (process.env.BENCH_ONLY ?? "ingestion,drain,lookup,inbox,import,widget,pipeline,export").split(
  ",",
);
const outDir = path.join(ROOT, "bench/results");
const previousFile = path.join(outDir, "latest.json");
const previous = fs.existsSync(previousFile) ? JSON.parse(fs.readFileSync(previousFile, "utf8")) : null;
const ranAt = new Date().toISOString();
const results = {
  machine,
  ranAt,
  // A partial run keeps the other sections of the previous one: each section says when it ran.
  sectionsRanAt: {
    ingestion: ranAt,
    drain: ranAt,
    lookup: ranAt,
    inbox: ranAt,
    import: ranAt,
    widget: ranAt,
    pipeline: ranAt,
    export: ranAt,
  } as SectionTimes,
  ingestion: [] as IngestionResult[],
  drain: [] as DrainResult[],
  lookup: null as LookupResult | null,
  inbox: [] as InboxResult[],
  import: [] as ImportResult[],
  widget: [] as WidgetResult[],
  pipeline: [] as PipelineResult[],
  export: [] as ExportResult[],
};
/**
 * A PostgreSQL cluster of the bench's own (as .ci/run starts one): initdb into a temporary folder, on a
 * free loopback port, with the server's defaults (fsync and synchronous_commit on). Null when the
 * binaries are not installed.
 */
async function startThrowawayPostgres(): Promise<{ url: string; stop(): void } | null> {
  const { execFileSync } = await import("node:child_process");
  const fromPath = (() => {
    try {
      return path.dirname(fs.realpathSync(execFileSync("which", ["initdb"], { encoding: "utf8" }).trim()));
    } catch {
      return null;
    }
  })();
  const debian = fs.existsSync("/usr/lib/postgresql")
    ? fs
        .readdirSync("/usr/lib/postgresql")
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => `/usr/lib/postgresql/${v}/bin`)
        .find((d) => fs.existsSync(`${d}/initdb`))
    : undefined;
  const bin = fromPath ?? debian;
  if (!bin) return null;
  const dir = tmpDir();
  const root = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    root
      ? execFileSync("runuser", ["-u", "postgres", "--", `${bin}/${cmd}`, ...args], {
          cwd: "/",
          stdio: "ignore",
        })
      : execFileSync(`${bin}/${cmd}`, args, { stdio: "ignore" });
  if (root) execFileSync("chown", ["-R", "postgres", dir]);
  run("initdb", ["-D", `${dir}/data`, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale"]);
  const port = await new Promise<number>((resolve) => {
    const srv = http.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const p = (srv.address() as { port: number }).port;
      srv.close(() => resolve(p));
    });
  });
  run("pg_ctl", [
    "-D",
    `${dir}/data`,
    "-l",
    `${dir}/postgres.log`,
    "-w",
    "-o",
    `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c max_connections=200`,
    "start",
  ]);
  log(`started a throw-away PostgreSQL (${bin}) on port ${port}`);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      run("pg_ctl", ["-D", `${dir}/data`, "-m", "fast", "-w", "stop"]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const throwaway = PG_URL ? null : await startThrowawayPostgres();
if (throwaway) PG_URL = throwaway.url;
// BENCH_DATABASES=postgres runs one database only (a partial run, like BENCH_ONLY).
const databases = (process.env.BENCH_DATABASES?.split(",") ??
  (PG_URL ? ["sqlite", "postgres"] : ["sqlite"])) as Array<"sqlite" | "postgres">;
if (only.includes("ingestion")) {
  for (const d of databases) {
    results.ingestion.push(await ingestion(d));
    // PostgreSQL is the scale-out path: also 1,000 rotating senders, and two API processes.
    if (d === "postgres") {
      results.ingestion.push(await ingestion(d, 1000));
      results.ingestion.push(await ingestion(d, 1000, 2));
    }
  }
}
if (only.includes("drain")) for (const d of databases) results.drain.push(await deliveryDrain(d));
if (only.includes("lookup")) results.lookup = await lookups();
if (only.includes("inbox")) for (const d of databases) results.inbox.push(await inbox(d));
if (only.includes("import")) for (const d of databases) results.import.push(await importBench(d));
if (only.includes("widget")) for (const d of databases) results.widget.push(await widgetBench(d));
if (only.includes("pipeline")) {
  for (const d of databases) {
    results.pipeline.push(await pipelineBench(d));
    // The scale-out path: two API processes and a worker on the same database.
    if (d === "postgres") results.pipeline.push(await pipelineBench(d, 2));
  }
}
if (only.includes("export")) results.export = await exportBench();
// A partial run (BENCH_ONLY) keeps the other sections of the previous run, so the table stays whole.
for (const section of [
  "ingestion",
  "drain",
  "lookup",
  "inbox",
  "import",
  "widget",
  "pipeline",
  "export",
] as const) {
  if (only.includes(section)) continue;
  results.sectionsRanAt[section] = previous?.sectionsRanAt?.[section] ?? previous?.ranAt ?? null;
}
if (previous) {
  if (!only.includes("ingestion")) results.ingestion = previous.ingestion ?? [];
  if (!only.includes("drain")) results.drain = previous.drain ?? [];
  if (!only.includes("lookup")) results.lookup = previous.lookup ?? null;
  if (!only.includes("inbox")) results.inbox = previous.inbox ?? [];
  if (!only.includes("import")) results.import = previous.import ?? [];
  if (!only.includes("widget")) results.widget = previous.widget ?? [];
  if (!only.includes("pipeline")) results.pipeline = previous.pipeline ?? [];
  if (!only.includes("export")) results.export = previous.export ?? [];
}
const md = markdown(results);
process.stdout.write(md);
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, "latest.json"), `${JSON.stringify(results, null, 2)}\n`);
fs.writeFileSync(path.join(outDir, "latest.md"), md);
log("wrote bench/results/latest.json and latest.md");
throwaway?.stop();

// Shared parts of the reliability suite: real `parley` processes, a load of incoming messages, and a
// local receiver for replies. Everything runs on loopback and stops by itself.
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { expect } from "vitest";
import { openDatabase } from "../src/platform/db/index.ts";
import { RECURRING_JOB_ID_PREFIX } from "../src/platform/jobs.ts";
import type { TestDatabase } from "../test/helpers.ts";
import { cliEnv, oneJsonLine, runCli, startServer } from "../test/process-helpers.ts";

export type ServerProcess = Awaited<ReturnType<typeof startServer>> & { port: number };

export async function start(args: string[], env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const server = await startServer(args, env);
  const url = server.line.url ? new URL(String(server.line.url)) : null;
  return { ...server, port: url ? Number(url.port) : 0 };
}

export async function kill(server: ServerProcess, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill(signal);
  await server.exited;
}

export async function cli<T = Record<string, unknown>>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  return oneJsonLine<T>(await runCli(args, env));
}

export function envFor(database: TestDatabase, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cliEnv(database, {
    PORT: "0",
    HOST: "127.0.0.1",
    RATE_LIMIT_PER_MINUTE: "10000000",
    OUTBOUND_ALLOW_CIDRS: "127.0.0.0/8",
    ...extra,
  });
}

export type ReceiverMode = "ok" | "fail" | "hang" | "reset" | "slow";

/** What a receiver saw: every POST, with its webhook-id, raw body and how it was answered. */
export interface Receiver {
  url: string;
  hits: Array<{ webhookId: string; body: string; at: number; mode: ReceiverMode }>;
  /** Decides the answer of each request (default 200); `n` counts all requests from 1. */
  answer: (n: number, req: http.IncomingMessage) => ReceiverMode;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hits: Receiver["hits"] = [];
  let n = 0;
  const receiver: Receiver = {
    url: "",
    hits,
    answer: () => "ok",
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const mode = receiver.answer(++n, req);
      hits.push({ webhookId: String(req.headers["webhook-id"]), body, at: Date.now(), mode });
      if (mode === "reset") {
        req.socket.destroy();
        return;
      }
      if (mode === "hang") return; // never answers: the sender's timeout decides
      const finish = () => {
        if (mode === "fail") res.writeHead(500).end("receiver down");
        else res.writeHead(200).end("ok");
      };
      if (mode === "slow") setTimeout(finish, 300);
      else finish();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return receiver;
}

/** Posts incoming messages from `senders` contacts in `concurrency` loops until stopped. */
export function incomingLoad(options: {
  port: () => number;
  apiKey: string;
  concurrency?: number;
  senders?: number;
  prefix: string;
}) {
  const acknowledged: string[] = [];
  const statuses = new Map<number | string, number>();
  let seq = 0;
  let stopped = false;
  const agent = new https.Agent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: false });
  const post = () =>
    new Promise<void>((resolve) => {
      const i = seq++;
      const body = JSON.stringify({
        customData: {
          messageSid: `${options.prefix}-${i}`,
          fromId: `user-${i % (options.senders ?? 50)}`,
          toId: "biz",
          body: `question ${i}: what are your opening hours?`,
        },
      });
      const count = (k: number | string) => statuses.set(k, (statuses.get(k) ?? 0) + 1);
      const req = https.request(
        {
          host: "127.0.0.1",
          port: options.port(),
          method: "POST",
          path: `/v1/incoming_custom_channel_message?apiKey=${options.apiKey}`,
          agent,
          timeout: 10_000,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          let data = "";
          res.on("data", (c) => (data += c));
          res.on("end", () => {
            count(res.statusCode ?? 0);
            if (res.statusCode === 200)
              acknowledged.push((JSON.parse(data) as { messageId: string }).messageId);
            resolve();
          });
          res.on("error", () => resolve());
        },
      );
      req.on("timeout", () => req.destroy());
      req.on("error", () => {
        count("connection error");
        // A refused connection (the server is down): wait a little before the next try.
        setTimeout(resolve, 20);
      });
      req.end(body);
    });
  const loops = Array.from({ length: options.concurrency ?? 16 }, async () => {
    while (!stopped) await post();
  });
  return {
    acknowledged,
    statuses,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}

export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Opens the database the processes share, for checks after the fact. */
export function openShared(database: TestDatabase) {
  return openDatabase(database);
}

/**
 * Waits until no job is queued or running (after crashes: leases expire first), and none died. The
 * recurring jobs (the storage sweeps, always queued for their next run) are not waited for.
 */
export async function expectJobsFinished(db: ReturnType<typeof openShared>): Promise<void> {
  await waitFor(
    async () =>
      (
        await db.kysely
          .selectFrom("jobs")
          .select("id")
          .where("status", "in", ["queued", "running"])
          .where("id", "not like", `${RECURRING_JOB_ID_PREFIX}%`)
          .execute()
      ).length === 0,
    90_000,
    "every job to finish",
  );
  expect(await db.kysely.selectFrom("jobs").selectAll().where("status", "=", "dead").execute()).toEqual([]);
}

/**
 * An agency and a sub-account with `credits`, whose replies go to `receiverUrl`: a sub-account pays
 * for every bot reply, so the ledger is exercised by the load.
 */
export async function payingSubaccount(env: NodeJS.ProcessEnv, email: string, receiverUrl: string) {
  const agency = `agency-of-${email}`;
  await cli(["account", "create", "--email", agency, "--password", "long password", "--agency"], env);
  const sub = await cli<{ accountId: string; apiKey: string }>(
    [
      "account",
      "create",
      "--email",
      email,
      "--password",
      "long password",
      "--parent",
      agency,
      "--credits",
      "100000",
    ],
    env,
  );
  await cli(["account", "set", "--email", email, "--webhook-url", receiverUrl], env);
  return sub;
}

/**
 * Teaches the account's default campaign the answer to incomingLoad's question, so the bot answers
 * every message of a conversation (an unanswerable run gets one fallback, not one per message).
 */
export async function teachOpeningHours(port: number, apiKey: string): Promise<void> {
  const campaigns = await callApi<{ data: { id: string; isDefault: boolean }[] }>(
    port,
    apiKey,
    "GET",
    "/v1/campaigns",
  );
  const id = campaigns.json.data.find((c) => c.isDefault)?.id;
  const taught = await callApi(port, apiKey, "PATCH", `/v1/campaigns/${id}`, {
    knowledge: [
      { question: "What are your opening hours?", answer: "We are open 9 to 6, Monday to Saturday." },
    ],
  });
  expect(taught.status).toBe(200);
}

/**
 * What must hold after crashes, however many processes ran: every job finished (none dead), every
 * acknowledged message stored, exactly one bot reply per inbound text, every reply delivered (always
 * under its own webhook-id, the same body on every delivery) and sent, and the balance equal to the
 * sum of its history with one debit per reply. Returns the counts for the report.
 */
export async function expectEveryGuarantee(
  database: TestDatabase,
  accountId: string,
  acknowledged: string[],
  receiver: Receiver,
): Promise<{ replies: number; deliveries: number }> {
  const db = openShared(database);
  try {
    await expectJobsFinished(db);
    const messages = await db.kysely
      .selectFrom("messages")
      .select(["id", "direction", "sender", "external_id", "status"])
      .where("account_id", "=", accountId)
      .execute();
    const inbound = new Set(messages.filter((m) => m.direction === "inbound").map((m) => m.id));
    expect(acknowledged.filter((id) => !inbound.has(id))).toEqual([]);
    const replies = messages.filter((m) => m.sender === "bot");
    const answered = replies.map((r) => r.external_id?.replace(/^bot:/, ""));
    expect(answered.length).toBe(new Set(answered).size);
    expect(new Set(answered)).toEqual(inbound);
    const delivered = new Set(receiver.hits.filter((h) => h.mode === "ok").map((h) => h.webhookId));
    expect(replies.filter((r) => !delivered.has(r.id) || r.status !== "sent")).toEqual([]);
    const replyIds = new Set(replies.map((r) => r.id));
    expect(receiver.hits.filter((h) => !replyIds.has(h.webhookId))).toEqual([]);
    const bodies = new Map<string, Set<string>>();
    for (const h of receiver.hits)
      bodies.set(h.webhookId, (bodies.get(h.webhookId) ?? new Set()).add(h.body));
    expect([...bodies.values()].filter((b) => b.size !== 1)).toEqual([]);
    const account = await db.kysely
      .selectFrom("accounts")
      .select("credits")
      .where("id", "=", accountId)
      .executeTakeFirstOrThrow();
    const history = await db.kysely
      .selectFrom("credit_transactions")
      .select(["amount", "kind"])
      .where("account_id", "=", accountId)
      .execute();
    expect(account.credits).toBe(history.reduce((sum, t) => sum + Number(t.amount), 0));
    expect(history.filter((t) => t.kind === "bot_reply").length).toBe(replies.length);
    return { replies: replies.length, deliveries: receiver.hits.length };
  } finally {
    await db.close();
  }
}

const callAgent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });
const oneShotAgent = new https.Agent({ keepAlive: false, rejectUnauthorized: false });

/**
 * One POST of raw bytes to a `parley serve` on loopback; resolves with the status, or 0 when the
 * connection failed (a killed server), for senders that retry until they are answered 200.
 */
export function postRaw(
  port: number,
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<number> {
  return new Promise((resolve) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path,
        agent: oneShotAgent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0));
    req.setTimeout(5_000, () => req.destroy());
    req.end(body);
  });
}

/** One /v1 request to a `parley serve` on loopback (self-signed TLS), with the key in the header. */
export function callApi<T>(
  port: number,
  key: string,
  method: string,
  path: string,
  body?: { type: string; data: string } | Record<string, unknown>,
): Promise<{ status: number; json: T }> {
  const raw =
    body === undefined
      ? undefined
      : "type" in body && typeof body.type === "string" && typeof body.data === "string"
        ? { type: body.type, data: body.data }
        : { type: "application/json", data: JSON.stringify(body) };
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent: callAgent,
        headers: {
          "x-api-key": key,
          ...(raw ? { "content-type": raw.type, "content-length": Buffer.byteLength(raw.data) } : {}),
        },
      },
      (res) => {
        let data = "";
        res.on("data", (c) => (data += c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, json: (data ? JSON.parse(data) : null) as T }),
        );
      },
    );
    req.on("error", reject);
    if (raw) req.write(raw.data);
    req.end();
  });
}

/** A free TCP port on loopback (a server restarted on the same port keeps its URL). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

// Crashes with everything running: incoming load, the bot answering, replies delivered to a local
// receiver. The server is SIGKILLed at random moments and restarted; afterwards nothing acknowledged is
// missing, every inbound text has exactly one bot reply, every reply reached the receiver (always
// under its own webhook-id), no job is stuck, and the balance equals the sum of its history.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../test/helpers.ts";
import {
  cli,
  envFor,
  incomingLoad,
  kill,
  openShared,
  type Receiver,
  type ServerProcess,
  start,
  startReceiver,
  waitFor,
} from "./harness.ts";

const KILLS = Number(process.env.RELIABILITY_KILLS ?? 5);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

describe("crashes with the bot and delivery running", () => {
  let database: TestDatabase;
  let receiver: Receiver;
  beforeAll(async () => {
    database = await freshDatabase();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await database.drop();
  });

  it(`survives ${KILLS} SIGKILLs at random moments: nothing lost, one reply each, every reply delivered`, async () => {
    const port = await freePort();
    const env = envFor(database, {
      PORT: String(port),
      JOB_LEASE_SECONDS: "2",
      DELIVERY_RETRY_SCHEDULE: "0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2",
      DELIVERY_TIMEOUT_MS: "2000",
    });
    await cli(
      ["account", "create", "--email", "agency@example.com", "--password", "long password", "--agency"],
      env,
    );
    // A sub-account pays per reply, so the ledger is exercised by every bot reply.
    const sub = await cli<{ accountId: string; apiKey: string }>(
      [
        "account",
        "create",
        "--email",
        "shop@example.com",
        "--password",
        "long password",
        "--parent",
        "agency@example.com",
        "--credits",
        "100000",
      ],
      env,
    );
    await cli(["account", "set", "--email", "shop@example.com", "--webhook-url", receiver.url], env);
    // One receiver failure in five: deliveries retry across the crashes too.
    receiver.answer = (n) => (n % 5 === 0 ? "fail" : "ok");

    let server: ServerProcess = await start(["serve"], env);
    const load = incomingLoad({ port: () => port, apiKey: sub.apiKey, prefix: "crash", concurrency: 16 });
    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 1500));
      await kill(server);
      server = await start(["serve"], env);
    }
    await new Promise((r) => setTimeout(r, 1000));
    await load.stop();
    expect(load.acknowledged.length).toBeGreaterThan(200);
    expect(load.statuses.get("connection error") ?? 0).toBeGreaterThan(0); // the kills really cut requests

    const db = openShared(database);
    try {
      // Every job finishes: leases of the killed processes expire and the live worker takes them over.
      await waitFor(
        async () =>
          (
            await db.kysely
              .selectFrom("jobs")
              .select("id")
              .where("status", "in", ["queued", "running"])
              .execute()
          ).length === 0,
        90_000,
        "every job to finish",
      );
      const dead = await db.kysely.selectFrom("jobs").selectAll().where("status", "=", "dead").execute();
      expect(dead).toEqual([]);

      const messages = await db.kysely
        .selectFrom("messages")
        .select(["id", "direction", "sender", "external_id", "status"])
        .where("account_id", "=", sub.accountId)
        .execute();
      const inbound = messages.filter((m) => m.direction === "inbound");
      const stored = new Set(inbound.map((m) => m.id));
      expect(load.acknowledged.filter((id) => !stored.has(id))).toEqual([]);

      // Exactly one bot reply per inbound text (its external id names the inbound message).
      const replies = messages.filter((m) => m.sender === "bot");
      const answered = replies.map((r) => r.external_id?.replace(/^bot:/, ""));
      expect(answered.length).toBe(new Set(answered).size);
      expect(new Set(answered)).toEqual(stored);

      // Every reply delivered at least once, always under its own webhook-id, and marked sent.
      const delivered = new Set(receiver.hits.filter((h) => h.mode === "ok").map((h) => h.webhookId));
      expect(replies.filter((r) => !delivered.has(r.id))).toEqual([]);
      expect(replies.filter((r) => r.status !== "sent")).toEqual([]);
      const replyIds = new Set(replies.map((r) => r.id));
      expect(receiver.hits.filter((h) => !replyIds.has(h.webhookId))).toEqual([]);
      const bodies = new Map<string, Set<string>>();
      for (const h of receiver.hits)
        bodies.set(h.webhookId, (bodies.get(h.webhookId) ?? new Set()).add(h.body));
      expect([...bodies.values()].filter((b) => b.size !== 1)).toEqual([]);

      // The balance is the sum of its history, and every reply was paid exactly once.
      const account = await db.kysely
        .selectFrom("accounts")
        .select("credits")
        .where("id", "=", sub.accountId)
        .executeTakeFirstOrThrow();
      const history = await db.kysely
        .selectFrom("credit_transactions")
        .select(["amount", "kind", "message_id"])
        .where("account_id", "=", sub.accountId)
        .execute();
      expect(account.credits).toBe(history.reduce((sum, t) => sum + Number(t.amount), 0));
      expect(history.filter((t) => t.kind === "bot_reply").length).toBe(replies.length);

      console.info(
        `crash suite: ${load.acknowledged.length} messages acknowledged, ${KILLS} kills, ` +
          `${replies.length} replies, ${receiver.hits.length} deliveries (${delivered.size} distinct)`,
      );
    } finally {
      await db.close();
      await kill(server, "SIGTERM");
    }
  });
});

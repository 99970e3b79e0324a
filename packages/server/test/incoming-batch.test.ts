// The incoming hot path under concurrency, on both databases; on PostgreSQL it runs as one batched
// statement (messaging/pg-ingest.ts), which must answer exactly like the general path: a burst from
// one sender, and batches that mix new messages with repeats and new senders.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type Parley } from "../src/app.ts";
import { pgIncomingStats } from "../src/modules/messaging/pg-ingest.ts";
import { DIALECT, json, startTestApp, type TestApp } from "./helpers.ts";

describe("incoming messages in concurrent batches", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const post = (apiKey: string, customData: Record<string, unknown>) =>
    t.inject({
      method: "POST",
      url: `/v1/incoming_custom_channel_message?apiKey=${apiKey}`,
      payload: { customData: { toId: "shop", body: "hello", ...customData } },
    });

  it("a burst of 200 from one sender: every message stored once, one bot job each, conversation at the newest", async () => {
    const acc = await t.account();
    expect((await post(acc.apiKey, { messageSid: "first", fromId: "burst" })).statusCode).toBe(200);
    const before = pgIncomingStats(t.parley.ctx);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post(acc.apiKey, { messageSid: `b-${i}`, fromId: "burst" })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 200));
    const ids = answers.map((a) => json<{ messageId: string; duplicate?: boolean }>(a));
    expect(ids.filter((a) => a.duplicate)).toEqual([]);
    expect(new Set(ids.map((a) => a.messageId)).size).toBe(200);

    const db = t.parley.db.kysely;
    const stored = await db
      .selectFrom("messages")
      .select(["id", "conversation_id", "created_at"])
      .where("account_id", "=", acc.accountId)
      .execute();
    expect(stored).toHaveLength(201);
    expect(new Set(stored.map((m) => m.conversation_id)).size).toBe(1);
    const jobs = await db
      .selectFrom("jobs")
      .select("subject_id")
      .where("account_id", "=", acc.accountId)
      .where("type", "=", "bot.reply")
      .execute();
    expect(new Set(jobs.map((j) => j.subject_id))).toEqual(new Set(stored.map((m) => m.id)));
    const conversation = await db
      .selectFrom("conversations")
      .select("last_message_at")
      .where("account_id", "=", acc.accountId)
      .executeTakeFirstOrThrow();
    expect(conversation.last_message_at).toBe(Math.max(...stored.map((m) => Number(m.created_at))));
    if (DIALECT === "postgres") {
      // Batched for real: far fewer statements than messages.
      const after = pgIncomingStats(t.parley.ctx);
      expect(after.items - before.items).toBe(200);
      expect(after.batches - before.batches).toBeLessThan(100);
    }
  });

  it("a batch mixing new messages, repeats (earlier and within the batch) and new senders answers each right", async () => {
    const acc = await t.account();
    const known = json<{ messageId: string }>(await post(acc.apiKey, { messageSid: "old", fromId: "known" }));
    const requests = [
      { messageSid: "new-1", fromId: "known" },
      { messageSid: "old", fromId: "known" }, // a repeat of an earlier message
      { messageSid: "twice", fromId: "known" },
      { messageSid: "twice", fromId: "known" }, // the same sid twice in one burst
      { messageSid: "stranger-1", fromId: "stranger" }, // a sender seen for the first time
      { messageSid: "new-2", fromId: "known" },
    ];
    const answers = await Promise.all(requests.map((r) => post(acc.apiKey, r)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    const bodies = answers.map((a) => json<{ messageId: string; duplicate?: boolean }>(a));
    expect(bodies[1]).toEqual({ success: true, messageId: known.messageId, duplicate: true });
    // Of the two "twice", exactly one stored it and the other names the same message as a repeat.
    expect(bodies[2]!.messageId).toBe(bodies[3]!.messageId);
    expect([bodies[2]!.duplicate, bodies[3]!.duplicate].filter(Boolean)).toHaveLength(1);
    const stored = await t.parley.db.kysely
      .selectFrom("messages")
      .select(["id", "external_id"])
      .where("account_id", "=", acc.accountId)
      .execute();
    expect(stored.map((m) => m.external_id).sort()).toEqual(["new-1", "new-2", "old", "stranger-1", "twice"]);
    const jobs = await t.parley.db.kysely
      .selectFrom("jobs")
      .select("subject_id")
      .where("account_id", "=", acc.accountId)
      .execute();
    expect(jobs).toHaveLength(5);
  });

  // Two API nodes on one database, each with two batches in flight, all writing to the same 40
  // conversations: no batch may fail (a deadlock or a conflict would fail it as a whole, and its
  // messages would fall back to the one-by-one path).
  it.skipIf(DIALECT !== "postgres")(
    "two nodes writing to the same conversations at once: every batch commits, none deadlocks",
    async () => {
      const acc = await t.account();
      const senders = Array.from({ length: 40 }, (_, i) => `shared-${i}`);
      for (const fromId of senders) {
        expect((await post(acc.apiKey, { messageSid: `seed-${fromId}`, fromId })).statusCode).toBe(200);
      }
      const second: Parley = await buildApp(t.config);
      try {
        const nodes = [t.parley, second];
        const before = nodes.map((p) => pgIncomingStats(p.ctx));
        const answers = await Promise.all(
          Array.from({ length: 800 }, (_, i) =>
            nodes[i % 2]!.app.inject({
              method: "POST",
              url: `/v1/incoming_custom_channel_message?apiKey=${acc.apiKey}`,
              // Each node's requests run through the senders in opposite directions.
              payload: {
                customData: {
                  toId: "shop",
                  body: "hello",
                  messageSid: `x-${i}`,
                  fromId: senders[i % 2 === 0 ? (i >> 1) % 40 : 39 - ((i >> 1) % 40)],
                },
              },
            }),
          ),
        );
        expect(answers.filter((a) => a.statusCode !== 200).map((a) => a.body)).toEqual([]);
        const after = nodes.map((p) => pgIncomingStats(p.ctx));
        expect(after.map((a, n) => a.failed - before[n]!.failed)).toEqual([0, 0]);
        expect(after.reduce((sum, a, n) => sum + a.items - before[n]!.items, 0)).toBe(800);
        const stored = await t.parley.db.kysely
          .selectFrom("messages")
          .select("external_id")
          .where("account_id", "=", acc.accountId)
          .where("external_id", "like", "x-%")
          .execute();
        expect(new Set(stored.map((m) => m.external_id)).size).toBe(800);
      } finally {
        await second.close();
      }
    },
  );
});

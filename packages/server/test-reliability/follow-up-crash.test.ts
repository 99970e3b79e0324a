// Follow-ups through SIGKILLs: a real `parley serve` answers many conversations, each of which then gets
// two follow-ups (PT2S apart) while the server is killed and restarted. Afterwards every conversation
// has exactly one follow-up per step, none early, each step chained to the message before it, every one
// delivered (under its own webhook-id) and paid for once, and no job is left or dead.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../test/helpers.ts";
import {
  callApi,
  envFor,
  expectJobsFinished,
  freePort,
  kill,
  openShared,
  payingSubaccount,
  type Receiver,
  type ServerProcess,
  start,
  startReceiver,
  teachOpeningHours,
  waitFor,
} from "./harness.ts";

const CONVERSATIONS = 80;
const KILLS = 3;
const STEPS = [
  { after: "PT2S", message: "Still there? (step 1)" },
  { after: "PT2S", message: "Last call! (step 2)" },
];

describe("follow-ups through crashes", () => {
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

  it(`survives ${KILLS} SIGKILLs mid-schedule: every follow-up sent once, on time, paid once`, async () => {
    const port = await freePort();
    const env = envFor(database, {
      PORT: String(port),
      JOB_LEASE_SECONDS: "2",
      DELIVERY_RETRY_SCHEDULE: "0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2",
    });
    // A sub-account pays for every bot message: the bot's replies and the follow-ups.
    const sub = await payingSubaccount(env, "quiet@example.com", receiver.url);
    let server: ServerProcess = await start(["serve"], env);
    await teachOpeningHours(port, sub.apiKey);
    const campaigns = await callApi<{ data: { id: string; isDefault: boolean }[] }>(
      port,
      sub.apiKey,
      "GET",
      "/v1/campaigns",
    );
    const campaignId = campaigns.json.data.find((c) => c.isDefault)?.id;
    const set = await callApi(port, sub.apiKey, "PATCH", `/v1/campaigns/${campaignId}`, { followUps: STEPS });
    expect(set.status).toBe(200);
    for (let i = 0; i < CONVERSATIONS; i++) {
      const res = await callApi(port, sub.apiKey, "POST", "/v1/incoming_custom_channel_message", {
        customData: {
          messageSid: `q-${i}`,
          fromId: `quiet-${i}`,
          toId: "shop",
          body: "What are your opening hours?",
        },
      });
      expect(res.status).toBe(200);
    }
    // Kills while the replies are written and the steps fall due (2 s and 4 s after them).
    const kills: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, 700 + Math.random() * 1200));
      kills.push(Date.now());
      await kill(server);
      server = await start(["serve"], env);
    }

    const db = openShared(database);
    try {
      const followUps = () =>
        db.kysely
          .selectFrom("messages")
          .select(["id", "conversation_id", "external_id", "status", "created_at", "body"])
          .where("account_id", "=", sub.accountId)
          .where("bot_outcome", "=", "follow_up")
          .execute();
      await waitFor(
        async () =>
          (await followUps()).filter((m) => m.status === "sent").length >= CONVERSATIONS * STEPS.length,
        90_000,
        "every follow-up sent",
      );
      await expectJobsFinished(db);
      await kill(server, "SIGTERM");

      const messages = await db.kysely
        .selectFrom("messages")
        .select([
          "id",
          "conversation_id",
          "direction",
          "sender",
          "bot_outcome",
          "external_id",
          "status",
          "created_at",
        ])
        .where("account_id", "=", sub.accountId)
        .orderBy("id")
        .execute();
      const byId = new Map(messages.map((m) => [m.id, m]));
      const sent = messages.filter((m) => m.bot_outcome === "follow_up");
      expect(sent).toHaveLength(CONVERSATIONS * STEPS.length);
      expect(new Set(sent.map((m) => m.external_id)).size).toBe(sent.length);
      // The kills fell inside the schedule: follow-ups were written before the last kill and after the first.
      expect(sent.some((m) => Number(m.created_at) < (kills.at(-1) as number))).toBe(true);
      expect(sent.some((m) => Number(m.created_at) > (kills[0] as number))).toBe(true);
      // Per conversation: inbound, the bot's answer, step 1 after the answer, step 2 after step 1.
      const byConversation = new Map<string, typeof messages>();
      for (const m of messages) {
        byConversation.set(m.conversation_id, [...(byConversation.get(m.conversation_id) ?? []), m]);
      }
      expect(byConversation.size).toBe(CONVERSATIONS);
      for (const thread of byConversation.values()) {
        expect(thread.map((m) => m.bot_outcome ?? m.direction)).toEqual([
          "inbound",
          "answer",
          "follow_up",
          "follow_up",
        ]);
        const [, answer, first, second] = thread as [
          unknown,
          (typeof messages)[number],
          (typeof messages)[number],
          (typeof messages)[number],
        ];
        expect(first.external_id).toBe(`followup:${answer.id}:1`);
        expect(second.external_id).toBe(`followup:${first.id}:2`);
        for (const f of [first, second]) {
          const after = byId.get(String(f.external_id).split(":")[1] as string);
          expect(Number(f.created_at) - Number(after?.created_at)).toBeGreaterThanOrEqual(2_000);
          expect(f.status).toBe("sent");
        }
      }
      // Delivered, each under its own webhook-id (at least once), and nothing the receiver got is unknown.
      const delivered = new Set(receiver.hits.filter((h) => h.mode === "ok").map((h) => h.webhookId));
      expect(sent.filter((m) => !delivered.has(m.id))).toEqual([]);
      const bots = new Set(messages.filter((m) => m.sender === "bot").map((m) => m.id));
      expect(receiver.hits.filter((h) => !bots.has(h.webhookId))).toEqual([]);
      // Paid once each: the balance is the sum of its history, one debit per bot message.
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
      const debits = history.filter((t) => t.kind === "bot_reply").map((t) => t.message_id);
      expect(debits.length).toBe(bots.size);
      expect(new Set(debits)).toEqual(bots);
    } finally {
      await kill(server, "SIGTERM");
      await db.close();
    }
  }, 240_000);
});

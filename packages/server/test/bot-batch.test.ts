// Bot replies due together (issue 36): the worker claims many bot.reply jobs at once and writes their
// plain replies in one transaction. Through the real HTTP server, the real worker (drain claims every
// queued job in one claim) and the real delivery, on SQLite and PostgreSQL: every message answered
// exactly once, credits exact, and the cases that leave the batch (a twin job, credits running out, a
// fallback, a hand-over) decided one by one.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { HANDOVER_MESSAGE } from "../src/modules/bot/handover.ts";
import { botReplyJob } from "../src/modules/bot/reply-job.ts";
import { enqueueJobs } from "../src/platform/jobs.ts";
import { json, startTestApp, type TestApp } from "./helpers.ts";

const KNOWLEDGE = [
  { question: "What are your opening hours?", answer: "We are open 9am to 6pm, Monday to Saturday." },
  { question: "Do you repair bikes?", answer: "Yes, our workshop repairs all kinds of bikes." },
  { question: "Do you deliver?", answer: "We deliver within 10 miles for free." },
];
const QUESTIONS = [
  ["when are you open? what are the opening hours", KNOWLEDGE[0]!.answer],
  ["do you repair bikes", KNOWLEDGE[1]!.answer],
  ["do you deliver", KNOWLEDGE[2]!.answer],
] as const;

describe("bot replies due together", () => {
  let app: TestApp;
  let receiver: http.Server;
  let receiverUrl = "";
  const delivered: Array<{ messageId: string; body: string; toId: string }> = [];
  let seq = 0;

  beforeAll(async () => {
    app = await startTestApp({ BOT_REPLY_COST: "1", BOT_METERING: "all" });
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        delivered.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await new Promise<void>((r) => receiver.close(() => r()));
  });

  async function shop(credits: number) {
    const acc = await app.account({ credits });
    await updateSettings(app.parley.db, acc.accountId, { webhook_url: `${receiverUrl}/replies` });
    const campaigns = await app.inject({ method: "GET", url: `/v1/campaigns?apiKey=${acc.apiKey}` });
    const def = json<{ data: { id: string; isDefault: boolean }[] }>(campaigns).data.find((c) => c.isDefault);
    const patched = await app.inject({
      method: "PATCH",
      url: `/v1/campaigns/${def!.id}?apiKey=${acc.apiKey}`,
      payload: { knowledge: KNOWLEDGE },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    return acc;
  }

  async function send(acc: { apiKey: string }, fromId: string, body: string): Promise<string> {
    const res = await app.inject({
      method: "POST",
      url: `/v1/incoming_custom_channel_message?apiKey=${acc.apiKey}`,
      payload: {
        customData: { messageSid: `batch-${++seq}`, fromId, toId: "shop", channel: "webchat", body },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    return json<{ messageId: string }>(res).messageId;
  }

  const botMessages = (accountId: string) =>
    app.parley.db.kysely
      .selectFrom("messages")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("sender", "=", "bot")
      .execute();
  const balance = async (apiKey: string) =>
    json<{ credits: number }>(await app.inject({ method: "GET", url: `/v1/account?apiKey=${apiKey}` }))
      .credits;
  const conversationOf = async (apiKey: string, messageId: string) => {
    const m = json<{ conversationId: string }>(
      await app.inject({ method: "GET", url: `/v1/messages/${messageId}?apiKey=${apiKey}` }),
    );
    return json<{ botPaused: boolean; humanAlert: boolean; humanAlertReason: string | null }>(
      await app.inject({ method: "GET", url: `/v1/conversations/${m.conversationId}?apiKey=${apiKey}` }),
    );
  };
  const queuedReplyJobs = async (accountId: string) =>
    (
      await app.parley.db.kysely
        .selectFrom("jobs")
        .select("id")
        .where("account_id", "=", accountId)
        .where("type", "=", botReplyJob.type)
        .execute()
    ).length;
  async function waitForDelivery(ids: string[]) {
    const until = Date.now() + 10_000;
    while (!ids.every((id) => delivered.some((d) => d.messageId === id))) {
      if (Date.now() > until) throw new Error("replies not delivered in time");
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it("answers every message of a batch once, in one transaction, with its debit and delivery", async () => {
    const acc = await shop(10);
    const inbound: Array<{ id: string; answer: string; from: string }> = [];
    for (let i = 0; i < 6; i++) {
      const [question, answer] = QUESTIONS[i % 3]!;
      const from = `customer-${i % 3}`;
      inbound.push({ id: await send(acc, from, question), answer, from });
    }
    await app.parley.worker.drain();

    const replies = await botMessages(acc.accountId);
    expect(replies).toHaveLength(6);
    for (const m of inbound) {
      const reply = replies.find((r) => r.external_id === `bot:${m.id}`);
      expect(reply?.body).toBe(m.answer);
      expect(reply?.to_id).toBe(m.from);
      expect(reply?.bot_outcome).toBe("answer");
    }
    // Written together: one transaction gives every reply of the batch the same time.
    expect(new Set(replies.map((r) => r.created_at)).size).toBe(1);
    expect(await balance(acc.apiKey)).toBe(4);
    const debits = await app.parley.db.kysely
      .selectFrom("credit_transactions")
      .select(["message_id", "amount"])
      .where("account_id", "=", acc.accountId)
      .where("kind", "=", "bot_reply")
      .execute();
    expect(debits.map((d) => d.message_id).sort()).toEqual(replies.map((r) => r.id).sort());
    expect(debits.every((d) => d.amount === -100)).toBe(true);
    expect(await queuedReplyJobs(acc.accountId)).toBe(0);
    await waitForDelivery(replies.map((r) => r.id));
    for (const r of replies) expect(delivered.filter((d) => d.messageId === r.id)).toHaveLength(1);
  });

  it("a twin job of a message in the same batch: the batch is decided one by one and answers once", async () => {
    const acc = await shop(10);
    const ids = [
      await send(acc, "twin-a", QUESTIONS[0][0]),
      await send(acc, "twin-b", QUESTIONS[1][0]),
      await send(acc, "twin-c", QUESTIONS[2][0]),
    ];
    // As after a worker died with the job running: the same message's job queued again.
    await app.parley.db.write((trx) =>
      enqueueJobs(trx, [botReplyJob.create({ messageId: ids[0]! }, { accountId: acc.accountId })]),
    );
    await app.parley.worker.drain();

    const replies = await botMessages(acc.accountId);
    expect(replies.map((r) => r.external_id).sort()).toEqual(ids.map((id) => `bot:${id}`).sort());
    expect(await balance(acc.apiKey)).toBe(7);
    expect(await queuedReplyJobs(acc.accountId)).toBe(0);
  });

  it("credits running out inside a batch: replies while they last, the rest alerted, balance exact", async () => {
    const acc = await shop(2);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await send(acc, `poor-${i}`, QUESTIONS[i % 3]![0]));
    await app.parley.worker.drain();

    const replies = await botMessages(acc.accountId);
    expect(replies).toHaveLength(2);
    expect(await balance(acc.apiKey)).toBe(0);
    const answered = new Set(replies.map((r) => r.external_id?.slice(4)));
    const unanswered = ids.filter((id) => !answered.has(id));
    expect(unanswered).toHaveLength(2);
    for (const id of unanswered) {
      expect(await conversationOf(acc.apiKey, id)).toMatchObject({
        humanAlert: true,
        humanAlertReason: "out_of_credits",
      });
    }
    expect(await queuedReplyJobs(acc.accountId)).toBe(0);
  });

  it("answers, a fallback and a hand-over in one batch: each with its own rules", async () => {
    const acc = await shop(10);
    const answered = [await send(acc, "mix-a", QUESTIONS[0][0]), await send(acc, "mix-b", QUESTIONS[1][0])];
    const unknown = await send(acc, "mix-c", "what is the airspeed of an unladen swallow");
    const person = await send(acc, "mix-d", "can I talk to a human please");
    await app.parley.worker.drain();

    const replies = await botMessages(acc.accountId);
    const byInbound = new Map(replies.map((r) => [r.external_id, r]));
    expect(byInbound.get(`bot:${answered[0]}`)?.bot_outcome).toBe("answer");
    expect(byInbound.get(`bot:${answered[1]}`)?.bot_outcome).toBe("answer");
    expect(byInbound.get(`bot:${unknown}`)?.bot_outcome).toBe("fallback");
    expect(byInbound.get(`bot:${person}`)).toMatchObject({ bot_outcome: "handover", body: HANDOVER_MESSAGE });
    expect(replies).toHaveLength(4);
    expect(await conversationOf(acc.apiKey, unknown)).toMatchObject({
      humanAlert: true,
      humanAlertReason: "no_answer",
    });
    expect(await conversationOf(acc.apiKey, person)).toMatchObject({
      botPaused: true,
      humanAlertReason: "human_requested",
    });
    expect(await conversationOf(acc.apiKey, answered[0]!)).toMatchObject({ humanAlert: false });
    expect(await balance(acc.apiKey)).toBe(6);
  });
});

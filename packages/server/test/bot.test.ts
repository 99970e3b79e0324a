// The AI bot end to end: inbound messages through POST /v1/incoming_custom_channel_message, the real
// worker (drain), the real delivery to a local webhook receiver, both databases. The LLM side talks to
// a local OpenAI-compatible stand-in (llm-stub.ts) that records every request.
import http from "node:http";
import type net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { HANDOFF_TOKEN } from "../src/modules/bot/engine-llm.ts";
import { createBotModule } from "../src/modules/bot/index.ts";
import { BOT_REPLY_JOB, runBotReply } from "../src/modules/bot/reply-job.ts";
import { credit } from "../src/modules/credits/ledger.ts";
import { MODULES } from "../src/modules/index.ts";
import { findMessageByExternalId } from "../src/modules/messaging/repo.ts";
import type { AccountUpdate } from "../src/platform/db/schema.ts";
import { enqueueJobs } from "../src/platform/jobs.ts";
import { json, startTestApp, type TestApp } from "./helpers.ts";
import { type LlmStub, startLlmStub, textOf } from "./llm-stub.ts";

// ---------------------------------------------------------------------------------------------------
// A real webhook receiver (replies and account events)
// ---------------------------------------------------------------------------------------------------

interface Hit {
  path: string;
  body: Record<string, unknown>;
}

interface Receiver {
  url: string;
  hits: Hit[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const hits: Hit[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      hits.push({ path: req.url ?? "", body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

const KNOWLEDGE = [
  { question: "What are your opening hours?", answer: "We are open 9am to 6pm, Monday to Saturday." },
  { question: "Do you repair bikes?", answer: "Yes, our workshop repairs all kinds of bikes." },
  { question: "Do you deliver?", answer: "We deliver within 10 miles for free." },
];

interface Acc {
  accountId: string;
  apiKey: string;
}

let seq = 0;

function makeHelpers(getApp: () => TestApp) {
  const t = () => getApp();
  return {
    async account(credits = 10, patch: AccountUpdate = {}): Promise<Acc> {
      const acc = await t().account({ credits });
      if (Object.keys(patch).length) await updateSettings(t().parley.db, acc.accountId, patch);
      return acc;
    },
    async send(
      acc: Acc,
      body: string,
      extra: Record<string, unknown> = {},
      messageType?: "text" | "reaction",
    ): Promise<string> {
      const res = await t().inject({
        method: "POST",
        url: `/v1/incoming_custom_channel_message?apiKey=${acc.apiKey}`,
        payload: {
          customData: {
            messageSid: `sid-${++seq}-${Date.now()}`,
            fromId: "user-1",
            toId: "shop",
            channel: "webchat",
            body,
            ...extra,
          },
          ...(messageType ? { messageType } : {}),
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      return json<{ messageId: string }>(res).messageId;
    },
    async drain(): Promise<void> {
      await t().parley.worker.drain();
    },
    async reply(acc: Acc, inboundId: string) {
      return findMessageByExternalId(t().parley.db.kysely, acc.accountId, `bot:${inboundId}`);
    },
    async replies(acc: Acc) {
      return t()
        .parley.db.kysely.selectFrom("messages")
        .selectAll()
        .where("account_id", "=", acc.accountId)
        .where("sender", "=", "bot")
        .orderBy("id")
        .execute();
    },
    async get<T = Record<string, unknown>>(acc: Acc, path: string): Promise<T> {
      const sep = path.includes("?") ? "&" : "?";
      const res = await t().inject({ method: "GET", url: `${path}${sep}apiKey=${acc.apiKey}` });
      expect(res.statusCode, res.body).toBe(200);
      return json<T>(res);
    },
    async call(acc: Acc, method: "POST" | "PATCH", path: string, payload: unknown) {
      return t().inject({ method, url: `${path}?apiKey=${acc.apiKey}`, payload: payload as object });
    },
    async message(acc: Acc, id: string) {
      const res = await t().inject({ method: "GET", url: `/v1/messages/${id}?apiKey=${acc.apiKey}` });
      return json<{ conversationId: string; contactId: string; campaignId: string | null }>(res);
    },
    async balance(acc: Acc): Promise<number> {
      const res = await t().inject({ method: "GET", url: `/v1/account?apiKey=${acc.apiKey}` });
      return json<{ credits: number }>(res).credits;
    },
    async debits(acc: Acc) {
      return t()
        .parley.db.kysely.selectFrom("credit_transactions")
        .selectAll()
        .where("account_id", "=", acc.accountId)
        .where("kind", "=", "bot_reply")
        .execute();
    },
    async defaultCampaign(acc: Acc): Promise<string> {
      const page = await this.get<{ data: { id: string; isDefault: boolean }[] }>(acc, "/v1/campaigns");
      const def = page.data.find((c) => c.isDefault);
      if (!def) throw new Error("no default campaign");
      return def.id;
    },
    async createCampaign(acc: Acc, body: Record<string, unknown>): Promise<string> {
      const res = await this.call(acc, "POST", "/v1/campaigns", body);
      expect(res.statusCode, res.body).toBe(201);
      return json<{ id: string }>(res).id;
    },
    async patchCampaign(acc: Acc, id: string, body: Record<string, unknown>): Promise<void> {
      const res = await this.call(acc, "PATCH", `/v1/campaigns/${id}`, body);
      expect(res.statusCode, res.body).toBe(200);
    },
    async conversation(acc: Acc, conversationId: string) {
      return this.get<{
        id: string;
        channel: string | null;
        campaignId: string | null;
        botPaused: boolean;
        botActive: boolean;
        humanAlert: boolean;
        humanAlertReason: string | null;
        lastMessageAt: string;
      }>(acc, `/v1/conversations/${conversationId}`);
    },
  };
}

async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const LLM_TIMEOUT_MS = 1_500;
const botModules = () =>
  MODULES.map((m) => (m.name === "bot" ? createBotModule({ llmTimeoutMs: LLM_TIMEOUT_MS }) : m));

let stub: LlmStub;
beforeAll(async () => {
  stub = await startLlmStub();
});
afterAll(() => stub.close());

// ---------------------------------------------------------------------------------------------------
// App A: no platform LLM (auto = builtin), loopback allowed for webhooks and accounts' own LLM URLs
// ---------------------------------------------------------------------------------------------------

describe("bot (builtin engine, switches, routing, own LLM, credits)", () => {
  let app: TestApp;
  let rx: Receiver;
  const h = makeHelpers(() => app);

  beforeAll(async () => {
    // Every account pays per reply here (the default meters only sub-accounts): the credit rules are what is tested.
    app = await startTestApp({ BOT_REPLY_COST: "1", BOT_METERING: "all" }, { modules: botModules() });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await app.close();
    await rx.close();
  });
  beforeEach(() => stub.reset());

  async function shop(credits = 10, patch: AccountUpdate = {}): Promise<Acc> {
    const acc = await h.account(credits, {
      webhook_url: `${rx.url}/replies/${++seq}`,
      events_webhook_url: `${rx.url}/events/${seq}`,
      ...patch,
    });
    await h.patchCampaign(acc, await h.defaultCampaign(acc), { knowledge: KNOWLEDGE });
    return acc;
  }

  const hitsFor = async (acc: Acc, kind: "replies" | "events") => {
    const row = await app.parley.db.kysely
      .selectFrom("accounts")
      .select(["webhook_url", "events_webhook_url"])
      .where("id", "=", acc.accountId)
      .executeTakeFirstOrThrow();
    const url = kind === "replies" ? row.webhook_url : row.events_webhook_url;
    const path = new URL(url ?? "http://x/none").pathname;
    return rx.hits.filter((hit) => hit.path === path);
  };

  it("answers a matching question with the knowledge answer and delivers it to the webhook", async () => {
    const acc = await shop();
    const inbound = await h.send(acc, "hey, when are you open? what are the opening hours");
    await h.drain();
    const reply = await h.reply(acc, inbound);
    expect(reply?.body).toBe(KNOWLEDGE[0]!.answer);
    expect(reply).toMatchObject({
      sender: "bot",
      direction: "outbound",
      to_id: "user-1",
      channel: "webchat",
    });
    const defaultId = await h.defaultCampaign(acc);
    expect(reply?.campaign_id).toBe(defaultId);

    await waitFor(() => rx.hits.some((hit) => hit.body.messageId === reply?.id));
    const delivered = (await hitsFor(acc, "replies"))[0]!.body;
    expect(delivered).toMatchObject({
      messageId: reply!.id,
      body: KNOWLEDGE[0]!.answer,
      toId: "user-1",
      channel: "webchat",
      sender: "bot",
      campaignId: defaultId,
    });
    const msg = await h.message(acc, inbound);
    const conv = await h.conversation(acc, msg.conversationId);
    expect(conv).toMatchObject({ campaignId: defaultId, humanAlert: false, botActive: true });
    expect((await h.get<{ status: string }>(acc, `/v1/messages/${reply!.id}`)).status).toBe("sent");
  });

  it("answers through a knowledge alternative set over the API, which the stored question alone misses", async () => {
    const acc = await shop();
    const message = "could you bring the bike round to my house";
    const without = await h.send(acc, message);
    await h.drain();
    expect((await h.reply(acc, without))?.body).toBe(
      "Thanks for your message! A team member will reply shortly.",
    );

    const withAlternative = KNOWLEDGE.map((entry, i) =>
      i === 2 ? { ...entry, alternatives: ["Can you bring my new bike to my house?"] } : entry,
    );
    await h.patchCampaign(acc, await h.defaultCampaign(acc), { knowledge: withAlternative });
    const inbound = await h.send(acc, message);
    await h.drain();
    const reply = await h.reply(acc, inbound);
    expect(reply?.body).toBe(KNOWLEDGE[2]!.answer);
    await waitFor(() => rx.hits.some((hit) => hit.body.messageId === reply?.id));
    expect((await hitsFor(acc, "replies")).map((hit) => hit.body.body)).toContain(KNOWLEDGE[2]!.answer);
  });

  it("sends the fallback for an unknown question and raises a human alert with an event", async () => {
    const acc = await shop();
    const inbound = await h.send(acc, "Can I bring my parrot to your yoga retreat in Peru?");
    await h.drain();
    const reply = await h.reply(acc, inbound);
    expect(reply?.body).toBe("Thanks for your message! A team member will reply shortly.");
    await waitFor(() => rx.hits.some((hit) => hit.body.messageId === reply?.id));
    expect((await hitsFor(acc, "replies")).map((hit) => hit.body.body)).toEqual([reply!.body]);
    const { conversationId, contactId } = await h.message(acc, inbound);
    const conv = await h.conversation(acc, conversationId);
    expect(conv).toMatchObject({ humanAlert: true, humanAlertReason: "no_answer" });

    const alerted = await h.get<{ data: { id: string }[] }>(acc, "/v1/conversations?humanAlert=true");
    expect(alerted.data.map((c) => c.id)).toEqual([conversationId]);
    const calm = await h.get<{ data: { id: string }[] }>(acc, "/v1/conversations?humanAlert=false");
    expect(calm.data).toEqual([]);

    await waitFor(() =>
      rx.hits.some((hit) => hit.body.type === "conversation.human_alert" && hit.body.message_id === inbound),
    );
    const events = await hitsFor(acc, "events");
    expect(events).toHaveLength(1);
    expect(events[0]!.body).toMatchObject({
      type: "conversation.human_alert",
      conversation_id: conversationId,
      contact_id: contactId,
      reason: "no_answer",
      message_id: inbound,
    });
    expect(typeof events[0]!.body.created_at).toBe("string");

    // A second unanswerable question while the alert is open: no second fallback, no second event.
    const again = await h.send(acc, "Do you sell submarines?");
    await h.drain();
    expect(await h.reply(acc, again)).toBeUndefined();
    expect(await hitsFor(acc, "events")).toHaveLength(1);

    // Resuming the bot from the API clears the alert.
    const res = await h.call(acc, "POST", `/v1/conversations/${conversationId}/bot`, { active: true });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({ humanAlert: false, humanAlertReason: null, botPaused: false });
  });

  describe("the fallback goes out once per unanswered run", () => {
    const FALLBACK = "Thanks for your message! A team member will reply shortly.";
    const UNANSWERABLE = ["Do you sell submarines?", "Can I pay in seashells?", "Is the moon for sale?"];
    const fallbacks = async (acc: Acc) =>
      (await h.replies(acc)).filter((r) => r.bot_outcome === "fallback").map((r) => r.body);

    it("three unanswerable messages posted at once (concurrent jobs) give one fallback, one debit and the alert", async () => {
      const acc = await shop(10);
      const ids = await Promise.all(UNANSWERABLE.map((body) => h.send(acc, body, { fromId: "once-1" })));
      await h.drain();
      expect(await fallbacks(acc)).toEqual([FALLBACK]);
      expect(await h.debits(acc)).toHaveLength(1);
      const { conversationId } = await h.message(acc, ids[0]!);
      expect(await h.conversation(acc, conversationId)).toMatchObject({
        humanAlert: true,
        humanAlertReason: "no_answer",
      });

      // Still waiting for an answer: a fourth gets none either, the alert stays.
      await h.send(acc, "Hello? Anyone?", { fromId: "once-1" });
      await h.drain();
      expect(await fallbacks(acc)).toEqual([FALLBACK]);
      expect((await h.conversation(acc, conversationId)).humanAlert).toBe(true);

      // The bot answers: the run is over, the next unanswerable message gets the fallback again.
      await h.send(acc, "do you deliver?", { fromId: "once-1" });
      await h.drain();
      await h.send(acc, "Do you rent out canoes?", { fromId: "once-1" });
      await h.drain();
      expect(await fallbacks(acc)).toEqual([FALLBACK, FALLBACK]);

      // A person answers (the bot pauses); resumed, the next unanswerable message gets it again.
      const human = await h.call(acc, "POST", `/v1/conversations/${conversationId}/messages`, {
        body: "Hi, I'm Sam from the shop: how can I help?",
      });
      expect(human.statusCode, human.body).toBe(201);
      await h.call(acc, "POST", `/v1/conversations/${conversationId}/bot`, { active: true });
      await h.send(acc, "Do you sell hot-air balloons?", { fromId: "once-1" });
      await h.drain();
      expect(await fallbacks(acc)).toEqual([FALLBACK, FALLBACK, FALLBACK]);
      // Another contact's run is its own.
      await h.send(acc, UNANSWERABLE[0]!, { fromId: "once-2" });
      await h.drain();
      expect(await fallbacks(acc)).toHaveLength(4);
    });

    it("three runs of the job in parallel (as on several workers) still write one fallback", async () => {
      const acc = await shop(10);
      await updateSettings(app.parley.db, acc.accountId, { bot_active: 0 });
      const ids = await Promise.all(UNANSWERABLE.map((body) => h.send(acc, body, { fromId: "once-3" })));
      await h.drain();
      await updateSettings(app.parley.db, acc.accountId, { bot_active: 1 });
      const outcomes = await Promise.all(ids.map((id) => runBotReply(app.parley.ctx, id)));
      expect(outcomes.filter((o) => o.action === "replied")).toHaveLength(1);
      expect(await fallbacks(acc)).toEqual([FALLBACK]);
      expect(await h.debits(acc)).toHaveLength(1);
    });
  });

  it("charges one credit per reply, in the same transaction as the reply", async () => {
    const acc = await shop(3);
    const a = await h.send(acc, "do you deliver?");
    const b = await h.send(acc, "do you repair bikes?");
    await h.drain();
    const replies = await h.replies(acc);
    // Jobs run concurrently (on PostgreSQL really so): compare without order.
    expect(replies.map((r) => r.body).sort()).toEqual([KNOWLEDGE[2]!.answer, KNOWLEDGE[1]!.answer].sort());
    expect(await h.balance(acc)).toBe(1);
    const debits = await h.debits(acc);
    expect(debits.map((d) => d.amount)).toEqual([-100, -100]);
    expect(debits.map((d) => d.message_id).sort()).toEqual(replies.map((r) => r.id).sort());
    expect([(await h.reply(acc, a))?.id, (await h.reply(acc, b))?.id].sort()).toEqual(
      replies.map((r) => r.id).sort(),
    );
  });

  it("stops at zero credits: no reply, an out_of_credits alert, and replies again after a top-up", async () => {
    const acc = await shop(1);
    const first = await h.send(acc, "do you deliver?");
    await h.drain();
    expect((await h.reply(acc, first))?.body).toBe(KNOWLEDGE[2]!.answer);
    expect(await h.balance(acc)).toBe(0);

    const second = await h.send(acc, "do you repair bikes?");
    await h.drain();
    expect(await h.reply(acc, second)).toBeUndefined();
    const { conversationId } = await h.message(acc, second);
    expect(await h.conversation(acc, conversationId)).toMatchObject({
      humanAlert: true,
      humanAlertReason: "out_of_credits",
    });
    await waitFor(() =>
      rx.hits.some((hit) => hit.body.reason === "out_of_credits" && hit.body.message_id === second),
    );
    expect(await h.balance(acc)).toBe(0);
    expect(await h.debits(acc)).toHaveLength(1);

    await credit(app.parley.db.kysely, acc.accountId, { amount: 500, kind: "grant", description: "top-up" });
    const third = await h.send(acc, "what are your opening hours?");
    await h.drain();
    expect((await h.reply(acc, third))?.body).toBe(KNOWLEDGE[0]!.answer);
    expect(await h.balance(acc)).toBe(4);
  });

  describe("switches suppress the reply and use no credit", () => {
    async function expectSilent(acc: Acc, inbound: string, creditsBefore: number, debitsBefore = 0) {
      await h.drain();
      expect(await h.reply(acc, inbound)).toBeUndefined();
      expect(await h.balance(acc)).toBe(creditsBefore);
      expect(await h.debits(acc)).toHaveLength(debitsBefore);
    }

    it("account botActive off (parley account set --bot off)", async () => {
      const acc = await shop(5, { bot_active: 0 });
      expect((await h.get<{ botActive: boolean }>(acc, "/v1/account")).botActive).toBe(false);
      await expectSilent(acc, await h.send(acc, "do you deliver?"), 5);
    });

    it("contact botActive off (PATCH /v1/contacts/{id})", async () => {
      const acc = await shop(5);
      // The contact writes first with the bot on, and is answered…
      const first = await h.send(acc, "do you deliver?", { fromId: "quiet-1" });
      await h.drain();
      expect(await h.reply(acc, first)).toBeDefined();
      const { contactId, conversationId } = await h.message(acc, first);
      const patch = await h.call(acc, "PATCH", `/v1/contacts/${contactId}`, { botActive: false });
      expect(patch.statusCode, patch.body).toBe(200);
      expect((await h.conversation(acc, conversationId)).botActive).toBe(false);
      // …then not any more.
      const second = await h.send(acc, "do you repair bikes?", { fromId: "quiet-1" });
      await expectSilent(acc, second, 4, 1);
    });

    it("conversation paused by a person's reply, resumed through POST /v1/conversations/{id}/bot", async () => {
      const acc = await shop(5);
      const first = await h.send(acc, "do you deliver?", { fromId: "pause-1" });
      await h.drain();
      expect(await h.reply(acc, first)).toBeDefined();
      const { conversationId } = await h.message(acc, first);
      const human = await h.call(acc, "POST", `/v1/conversations/${conversationId}/messages`, {
        body: "Hi, Sam here, I'll take it from here",
      });
      expect(human.statusCode, human.body).toBe(201);
      expect(await h.conversation(acc, conversationId)).toMatchObject({ botPaused: true, botActive: false });

      const second = await h.send(acc, "do you repair bikes?", { fromId: "pause-1" });
      await h.drain();
      expect(await h.reply(acc, second)).toBeUndefined();
      expect(await h.balance(acc)).toBe(4);

      const resumed = await h.call(acc, "POST", `/v1/conversations/${conversationId}/bot`, { active: true });
      expect(resumed.statusCode).toBe(200);
      expect(json(resumed)).toMatchObject({ id: conversationId, botPaused: false, botActive: true });
      const third = await h.send(acc, "do you repair bikes?", { fromId: "pause-1" });
      await h.drain();
      expect((await h.reply(acc, third))?.body).toBe(KNOWLEDGE[1]!.answer);

      // An operator can pause too.
      const paused = await h.call(acc, "POST", `/v1/conversations/${conversationId}/bot`, { active: false });
      expect(json(paused)).toMatchObject({ botPaused: true, botActive: false });
      const fourth = await h.send(acc, "what are your opening hours?", { fromId: "pause-1" });
      await h.drain();
      expect(await h.reply(acc, fourth)).toBeUndefined();
      expect(await h.balance(acc)).toBe(3);
    });

    it("a person's reply goes out on the channel the contact last wrote from when the conversation has none", async () => {
      const acc = await shop(5);
      const first = await h.send(acc, "do you deliver?", { fromId: "chan-1", channel: undefined });
      const { conversationId } = await h.message(acc, first);
      expect((await h.conversation(acc, conversationId)).channel).toBeNull();
      await h.send(acc, "do you repair bikes?", { fromId: "chan-1", channel: "sms-gateway" });
      await h.send(acc, "and on Sundays?", { fromId: "chan-1", channel: undefined });
      const human = await h.call(acc, "POST", `/v1/conversations/${conversationId}/messages`, {
        body: "Hi, Sam here",
      });
      expect(human.statusCode, human.body).toBe(201);
      expect(json(human)).toMatchObject({ direction: "outbound", sender: "human", channel: "sms-gateway" });
    });

    it("a conversation's lastMessageAt follows each new inbound message, not a repeated one", async () => {
      const acc = await shop(5);
      const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
      const first = await h.send(acc, "do you deliver?", { fromId: "last-1", messageSid: "last-sid-1" });
      const { conversationId } = await h.message(acc, first);
      await pause();
      const second = await h.send(acc, "do you repair bikes?", { fromId: "last-1" });
      const view = await h.get<{ conversationId: string; createdAt: string }>(acc, `/v1/messages/${second}`);
      expect(view.conversationId).toBe(conversationId);
      expect((await h.conversation(acc, conversationId)).lastMessageAt).toBe(view.createdAt);
      await pause();
      expect(await h.send(acc, "do you deliver?", { fromId: "last-1", messageSid: "last-sid-1" })).toBe(
        first,
      );
      expect((await h.conversation(acc, conversationId)).lastMessageAt).toBe(view.createdAt);
      // One bot job per new message: the repeat enqueued nothing.
      await h.drain();
      expect(await h.reply(acc, first)).toBeDefined();
      expect(await h.reply(acc, second)).toBeDefined();
      expect(await h.debits(acc)).toHaveLength(2);
    });

    it("a draft campaign (routed by campaignId) does not answer", async () => {
      const acc = await shop(5);
      const draft = await h.createCampaign(acc, { name: "Spring sale", knowledge: KNOWLEDGE });
      await expectSilent(acc, await h.send(acc, "do you deliver?", { campaignId: draft }), 5);
    });

    it("a paused campaign does not answer (default campaign paused)", async () => {
      const acc = await shop(5);
      await h.patchCampaign(acc, await h.defaultCampaign(acc), { status: "paused" });
      await expectSilent(acc, await h.send(acc, "do you deliver?"), 5);
    });

    it("a paused keyword campaign is skipped by keyword routing (the default answers)", async () => {
      const acc = await shop(5);
      await h.createCampaign(acc, {
        name: "Rentals",
        status: "paused",
        keywords: ["rental"],
        knowledge: [{ question: "Rental price?", answer: "RENTAL: 20 a day" }],
      });
      const inbound = await h.send(acc, "rental: do you deliver?");
      await h.drain();
      expect((await h.reply(acc, inbound))?.campaign_id).toBe(await h.defaultCampaign(acc));
    });
  });

  describe("routing", () => {
    it("routes by customData.campaignId and records it on the reply and the conversation", async () => {
      const acc = await shop();
      const vip = await h.createCampaign(acc, {
        name: "VIP",
        status: "live",
        knowledge: [{ question: "Do you deliver?", answer: "VIP: same-day delivery, always free." }],
      });
      const inbound = await h.send(acc, "do you deliver?", { campaignId: vip, fromId: "vip-1" });
      await h.drain();
      const reply = await h.reply(acc, inbound);
      expect(reply).toMatchObject({ body: "VIP: same-day delivery, always free.", campaign_id: vip });
      const { conversationId } = await h.message(acc, inbound);
      expect((await h.conversation(acc, conversationId)).campaignId).toBe(vip);
      const listed = await h.get<{ data: { id: string }[] }>(acc, `/v1/conversations?campaignId=${vip}`);
      expect(listed.data.map((c) => c.id)).toEqual([conversationId]);
    });

    it("ignores another account's campaignId (falls through to the default)", async () => {
      const acc = await shop();
      const other = await shop();
      const foreign = await h.createCampaign(other, {
        name: "Theirs",
        status: "live",
        knowledge: [{ question: "Do you deliver?", answer: "THEIRS" }],
      });
      const inbound = await h.send(acc, "do you deliver?", { campaignId: foreign });
      await h.drain();
      const reply = await h.reply(acc, inbound);
      expect(reply?.body).toBe(KNOWLEDGE[2]!.answer);
      expect(reply?.campaign_id).toBe(await h.defaultCampaign(acc));
    });

    it("routes by keyword: whole word, case-insensitive, the oldest live campaign first", async () => {
      const acc = await shop();
      const older = await h.createCampaign(acc, {
        name: "Rentals",
        status: "live",
        keywords: ["rental", "hire"],
        knowledge: [{ question: "Do you deliver?", answer: "RENTALS: we deliver rental bikes." }],
      });
      const newer = await h.createCampaign(acc, {
        name: "Rentals too",
        status: "live",
        keywords: ["Rental"],
        knowledge: [{ question: "Do you deliver?", answer: "NEWER" }],
      });
      expect(newer > older).toBe(true);
      const hit = await h.send(acc, "RENTAL question: do you deliver?", { fromId: "kw-1" });
      const inside = await h.send(acc, "My rentals: do you deliver?", { fromId: "kw-2" });
      await h.drain();
      expect(await h.reply(acc, hit)).toMatchObject({
        body: "RENTALS: we deliver rental bikes.",
        campaign_id: older,
      });
      // "rentals" is not the word "rental": the default campaign answers.
      expect((await h.reply(acc, inside))?.campaign_id).toBe(await h.defaultCampaign(acc));
    });

    it("an explicit campaignId wins over a keyword", async () => {
      const acc = await shop();
      await h.createCampaign(acc, {
        name: "Rentals",
        status: "live",
        keywords: ["rental"],
        knowledge: [{ question: "Do you deliver?", answer: "RENTALS" }],
      });
      const chosen = await h.createCampaign(acc, {
        name: "Chosen",
        status: "live",
        knowledge: [{ question: "Rental: do you deliver?", answer: "CHOSEN" }],
      });
      const inbound = await h.send(acc, "rental: do you deliver?", { campaignId: chosen });
      await h.drain();
      expect((await h.reply(acc, inbound))?.body).toBe("CHOSEN");
    });
  });

  describe("the account's own LLM (OpenAI-compatible)", () => {
    async function llmShop(credits = 5): Promise<Acc> {
      return shop(credits, {
        llm_base_url: stub.baseUrl,
        llm_api_key: "acct-key-123",
        llm_model: "acct-model",
      });
    }

    it("sends instructions, knowledge and history; the answer becomes the reply; no credit used", async () => {
      const acc = await llmShop(5);
      const def = await h.defaultCampaign(acc);
      await h.patchCampaign(acc, def, { instructions: "You are Bikey, the shop's cheerful assistant." });
      stub.respond = (_req, n) => ({
        content: n === 0 ? "Hello! How can I help?" : "Yes, we fix bikes: book online.",
      });

      const first = await h.send(acc, "Hi there", { fromId: "llm-1" });
      await h.drain();
      expect((await h.reply(acc, first))?.body).toBe("Hello! How can I help?");
      const second = await h.send(acc, "Can you repair my bike?", { fromId: "llm-1" });
      await h.drain();
      const reply = await h.reply(acc, second);
      expect(reply).toMatchObject({
        body: "Yes, we fix bikes: book online.",
        campaign_id: def,
        sender: "bot",
      });

      expect(stub.requests).toHaveLength(2);
      const req = stub.requests[1]!;
      expect(req.path).toBe("/v1/chat/completions");
      expect(req.headers.authorization).toBe("Bearer acct-key-123");
      expect(req.body.model).toBe("acct-model");
      const [system, ...turns] = req.body.messages;
      expect(system?.role).toBe("system");
      const prompt = textOf(system!.content);
      expect(prompt).toContain("You are Bikey, the shop's cheerful assistant.");
      expect(prompt).toContain(KNOWLEDGE[1]!.answer);
      expect(prompt).toContain(HANDOFF_TOKEN);
      expect(turns.map((m) => [m.role, textOf(m.content)])).toEqual([
        ["user", "Hi there"],
        ["assistant", "Hello! How can I help?"],
        ["user", "Can you repair my bike?"],
      ]);
      expect(await h.balance(acc)).toBe(5);
      expect(await h.debits(acc)).toHaveLength(0);
      await waitFor(() => rx.hits.some((hit) => hit.body.messageId === reply?.id));
    });

    it("uses the campaign's model over the account's and sends at most the last 20 messages", async () => {
      const acc = await llmShop();
      await h.patchCampaign(acc, await h.defaultCampaign(acc), { model: "campaign-model" });
      await updateSettings(app.parley.db, acc.accountId, { bot_active: 0 });
      for (let i = 1; i <= 24; i++) await h.send(acc, `message ${i}`, { fromId: "long-1" });
      await h.drain();
      await updateSettings(app.parley.db, acc.accountId, { bot_active: 1 });
      const last = await h.send(acc, "message 25", { fromId: "long-1" });
      await h.drain();
      expect((await h.reply(acc, last))?.body).toBe("stub answer");
      expect(stub.requests).toHaveLength(1);
      const { body } = stub.requests[0]!;
      expect(body.model).toBe("campaign-model");
      const turns = body.messages.filter((m) => m.role !== "system").map((m) => textOf(m.content));
      expect(turns).toHaveLength(20);
      expect(turns[0]).toBe("message 6");
      expect(turns[19]).toBe("message 25");
    });

    it("the model's hand-over answer sends the fallback and raises a no_answer alert", async () => {
      const acc = await llmShop();
      stub.respond = () => ({ content: HANDOFF_TOKEN });
      const inbound = await h.send(acc, "can you ship a piano to Antarctica?", { fromId: "handoff-1" });
      await h.drain();
      expect((await h.reply(acc, inbound))?.body).toMatch(/team member/);
      const { conversationId } = await h.message(acc, inbound);
      expect((await h.conversation(acc, conversationId)).humanAlertReason).toBe("no_answer");
    });

    it("an LLM failure (500, retried once) gives the fallback and an llm_error alert", async () => {
      const acc = await llmShop();
      stub.respond = () => ({ status: 500, headers: { "retry-after-ms": "10" } });
      const inbound = await h.send(acc, "do you deliver?", { fromId: "fail-1" });
      await h.drain();
      expect(stub.requests).toHaveLength(2);
      const reply = await h.reply(acc, inbound);
      expect(reply?.body).toBe("Thanks for your message! A team member will reply shortly.");
      const { conversationId } = await h.message(acc, inbound);
      expect(await h.conversation(acc, conversationId)).toMatchObject({
        humanAlert: true,
        humanAlertReason: "llm_error",
      });
      await waitFor(() =>
        rx.hits.some((hit) => hit.body.reason === "llm_error" && hit.body.message_id === inbound),
      );
      const jobs = await app.parley.db.kysely
        .selectFrom("jobs")
        .select("id")
        .where("type", "=", BOT_REPLY_JOB)
        .execute();
      expect(jobs).toEqual([]);
    });

    it("one failure then success: the retry's answer is the reply", async () => {
      const acc = await llmShop();
      stub.respond = (_r, n) =>
        n === 0 ? { status: 503, headers: { "retry-after-ms": "10" } } : { content: "second try" };
      const inbound = await h.send(acc, "do you deliver?", { fromId: "retry-1" });
      await h.drain();
      expect((await h.reply(acc, inbound))?.body).toBe("second try");
    });

    it("an LLM timeout gives the fallback and an llm_error alert", async () => {
      const acc = await llmShop();
      stub.respond = () => ({ content: "too late", delayMs: LLM_TIMEOUT_MS + 3_000 });
      const inbound = await h.send(acc, "do you deliver?", { fromId: "slow-1" });
      const started = Date.now();
      await h.drain();
      expect(Date.now() - started).toBeLessThan(LLM_TIMEOUT_MS + 2_500);
      expect((await h.reply(acc, inbound))?.body).toMatch(/team member/);
      const { conversationId } = await h.message(acc, inbound);
      expect((await h.conversation(acc, conversationId)).humanAlertReason).toBe("llm_error");
    });

    it("engine builtin on a campaign keeps the LLM out even when one is configured", async () => {
      const acc = await llmShop();
      await h.patchCampaign(acc, await h.defaultCampaign(acc), { engine: "builtin" });
      const inbound = await h.send(acc, "do you deliver?", { fromId: "builtin-1" });
      await h.drain();
      expect((await h.reply(acc, inbound))?.body).toBe(KNOWLEDGE[2]!.answer);
      expect(stub.requests).toHaveLength(0);
      // Builtin replies are the platform's work: charged even for an account with its own LLM.
      expect(await h.balance(acc)).toBe(4);
    });

    it("engine llm without any LLM configured sends the fallback with an llm_not_configured alert", async () => {
      const acc = await shop();
      await h.patchCampaign(acc, await h.defaultCampaign(acc), { engine: "llm" });
      const inbound = await h.send(acc, "do you deliver?", { fromId: "nollm-1" });
      await h.drain();
      expect((await h.reply(acc, inbound))?.body).toMatch(/team member/);
      const { conversationId } = await h.message(acc, inbound);
      expect((await h.conversation(acc, conversationId)).humanAlertReason).toBe("llm_not_configured");
    });
  });

  describe("idempotency and reactions", () => {
    it("running the job twice for one message gives one reply and one debit", async () => {
      const acc = await shop(5);
      const inbound = await h.send(acc, "do you deliver?");
      await h.drain();
      const again = await runBotReply(app.parley.ctx, inbound);
      expect(again).toEqual({ action: "skipped", reason: "already_replied" });
      expect(await h.replies(acc)).toHaveLength(1);
      expect(await h.debits(acc)).toHaveLength(1);
      expect(await h.balance(acc)).toBe(4);
    });

    it("two concurrent runs (and two queued jobs) for one message give one reply and one debit", async () => {
      const acc = await shop(5);
      const a = await h.send(acc, "do you deliver?", { fromId: "dup-1" });
      const outcomes = await Promise.all([runBotReply(app.parley.ctx, a), runBotReply(app.parley.ctx, a)]);
      expect(outcomes.map((o) => o.action).sort()).toEqual(["replied", "skipped"]);

      const b = await h.send(acc, "do you repair bikes?", { fromId: "dup-2" });
      await enqueueJobs(app.parley.db.kysely, [
        { type: BOT_REPLY_JOB, accountId: acc.accountId, payload: { messageId: b } },
        { type: BOT_REPLY_JOB, accountId: acc.accountId, payload: { messageId: b } },
      ]);
      await h.drain();
      const replies = await h.replies(acc);
      expect(replies.map((r) => r.external_id).sort()).toEqual([`bot:${a}`, `bot:${b}`].sort());
      expect(await h.debits(acc)).toHaveLength(2);
      expect(await h.balance(acc)).toBe(3);
    });

    it("reactions never reach the bot", async () => {
      const acc = await shop(5);
      const text = await h.send(acc, "do you deliver?", { fromId: "react-1", messageSid: "react-target" });
      await h.drain();
      const reaction = await h.send(acc, "👍", { fromId: "react-1", reactionTo: "react-target" }, "reaction");
      const queued = await app.parley.db.kysely
        .selectFrom("jobs")
        .select("payload")
        .where("type", "=", BOT_REPLY_JOB)
        .execute();
      expect(queued.filter((j) => j.payload.includes(reaction))).toEqual([]);
      await h.drain();
      // Even a job queued by mistake for a reaction does nothing.
      expect(await runBotReply(app.parley.ctx, reaction)).toEqual({
        action: "skipped",
        reason: "not_inbound_text",
      });
      expect((await h.replies(acc)).map((r) => r.external_id)).toEqual([`bot:${text}`]);
      expect(await h.balance(acc)).toBe(4);
    });
  });

  describe("conversation endpoints", () => {
    it("answer 404 for another account's conversation and 400 for a bad body", async () => {
      const acc = await shop();
      const other = await shop();
      const inbound = await h.send(acc, "hello");
      const { conversationId } = await h.message(acc, inbound);
      const get = await app.inject({
        method: "GET",
        url: `/v1/conversations/${conversationId}?apiKey=${other.apiKey}`,
      });
      expect(get.statusCode).toBe(404);
      expect(json<{ error: { code: string } }>(get).error.code).toBe("CONVERSATION_NOT_FOUND");
      const post = await h.call(other, "POST", `/v1/conversations/${conversationId}/bot`, { active: false });
      expect(post.statusCode).toBe(404);
      const bad = await h.call(acc, "POST", `/v1/conversations/${conversationId}/bot`, { active: "yes" });
      expect(bad.statusCode).toBe(400);
      expect(json<{ error: { message: string } }>(bad).error.message).toMatch(/active/);
      const missing = await h.call(acc, "POST", `/v1/conversations/${conversationId}/bot`, {});
      expect(missing.statusCode).toBe(400);
      expect((await h.conversation(acc, conversationId)).botPaused).toBe(false);
    });

    it("pages through conversations with a cursor", async () => {
      const acc = await shop();
      for (const fromId of ["p-1", "p-2", "p-3"]) await h.send(acc, "hello", { fromId });
      const first = await h.get<{ data: { id: string }[]; hasMore: boolean; nextCursor: string }>(
        acc,
        "/v1/conversations?limit=2",
      );
      expect(first.data).toHaveLength(2);
      expect(first.hasMore).toBe(true);
      const second = await h.get<{ data: { id: string }[]; hasMore: boolean }>(
        acc,
        `/v1/conversations?limit=2&cursor=${first.nextCursor}`,
      );
      expect(second.data).toHaveLength(1);
      expect(second.hasMore).toBe(false);
      expect(new Set([...first.data, ...second.data].map((c) => c.id)).size).toBe(3);
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// App B: a platform LLM (LLM_BASE_URL on loopback, operator-trusted), BOT_REPLY_COST=2, and no
// loopback in OUTBOUND_ALLOW_CIDRS, so a tenant's own LLM URL on 127.0.0.1 is refused by the guard.
// ---------------------------------------------------------------------------------------------------

describe("bot with a platform LLM", () => {
  let app: TestApp;
  const h = makeHelpers(() => app);

  beforeAll(async () => {
    app = await startTestApp(
      {
        LLM_BASE_URL: stub.baseUrl,
        LLM_API_KEY: "platform-secret",
        LLM_MODEL: "platform-model",
        BOT_REPLY_COST: "2",
        BOT_METERING: "all",
        OUTBOUND_ALLOW_CIDRS: "",
      },
      { modules: botModules() },
    );
  });
  afterAll(() => app.close());
  beforeEach(() => stub.reset());

  it("auto uses the platform LLM with the platform key and charges BOT_REPLY_COST", async () => {
    const acc = await h.account(10);
    stub.respond = () => ({ content: "Platform answer" });
    const inbound = await h.send(acc, "do you deliver?");
    await h.drain();
    const reply = await h.reply(acc, inbound);
    expect(reply?.body).toBe("Platform answer");
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]!.headers.authorization).toBe("Bearer platform-secret");
    expect(stub.requests[0]!.body.model).toBe("platform-model");
    expect(await h.balance(acc)).toBe(8);
    const debits = await h.debits(acc);
    expect(debits).toHaveLength(1);
    expect(debits[0]).toMatchObject({ amount: -200, message_id: reply!.id, balance_after: 800 });
  });

  it("an account that brings its own key uses it on the platform endpoint and pays no credits", async () => {
    const acc = await h.account(10, { llm_api_key: "byok-456" });
    const inbound = await h.send(acc, "do you deliver?");
    await h.drain();
    expect((await h.reply(acc, inbound))?.body).toBe("stub answer");
    expect(stub.requests[0]!.headers.authorization).toBe("Bearer byok-456");
    expect(await h.balance(acc)).toBe(10);
    expect(await h.debits(acc)).toHaveLength(0);
  });

  it("at zero credits the platform LLM is not even called: no reply, out_of_credits alert", async () => {
    const acc = await h.account(1);
    const inbound = await h.send(acc, "do you deliver?");
    await h.drain();
    expect(await h.reply(acc, inbound)).toBeUndefined();
    expect(stub.requests).toHaveLength(0);
    const { conversationId } = await h.message(acc, inbound);
    expect((await h.conversation(acc, conversationId)).humanAlertReason).toBe("out_of_credits");
    expect(await h.balance(acc)).toBe(1);
  });

  it("an account's own LLM URL goes through the SSRF guard (loopback refused here)", async () => {
    const acc = await h.account(10, {
      llm_base_url: stub.baseUrl,
      llm_api_key: "tenant-key",
      llm_model: "m",
    });
    const inbound = await h.send(acc, "do you deliver?");
    await h.drain();
    expect(stub.requests).toHaveLength(0);
    expect((await h.reply(acc, inbound))?.body).toMatch(/team member/);
    const { conversationId } = await h.message(acc, inbound);
    expect((await h.conversation(acc, conversationId)).humanAlertReason).toBe("llm_error");
    // Its own (failed) LLM: the fallback costs nothing either.
    expect(await h.balance(acc)).toBe(10);
  });
});

// ---------------------------------------------------------------------------------------------------
// App C: the default metering (BOT_METERING unset = subaccounts)
// ---------------------------------------------------------------------------------------------------

describe("bot metering by default: only agency sub-accounts pay", () => {
  let app: TestApp;
  const h = makeHelpers(() => app);

  beforeAll(async () => {
    app = await startTestApp({}, { modules: botModules() });
  });
  afterAll(() => app.close());

  it("a new standalone account with no credits gets its first message answered, and nothing is debited", async () => {
    const acc = await h.account(0);
    await h.patchCampaign(acc, await h.defaultCampaign(acc), { knowledge: KNOWLEDGE });
    const inbound = await h.send(acc, "do you deliver?");
    await h.drain();
    expect((await h.reply(acc, inbound))?.body).toBe(KNOWLEDGE[2]!.answer);
    expect(await h.balance(acc)).toBe(0);
    expect(await h.debits(acc)).toHaveLength(0);
  });

  it("a sub-account still pays BOT_REPLY_COST per reply and stops at zero with an out_of_credits alert", async () => {
    const agency = await app.account({ kind: "agency" });
    const sub = await app.account({ kind: "subaccount", parentAccountId: agency.accountId, credits: 1 });
    await h.patchCampaign(sub, await h.defaultCampaign(sub), { knowledge: KNOWLEDGE });
    const first = await h.send(sub, "do you deliver?");
    await h.drain();
    expect((await h.reply(sub, first))?.body).toBe(KNOWLEDGE[2]!.answer);
    expect(await h.balance(sub)).toBe(0);
    expect(await h.debits(sub)).toHaveLength(1);

    const second = await h.send(sub, "do you repair bikes?");
    await h.drain();
    expect(await h.reply(sub, second)).toBeUndefined();
    const { conversationId } = await h.message(sub, second);
    expect(await h.conversation(sub, conversationId)).toMatchObject({
      humanAlert: true,
      humanAlertReason: "out_of_credits",
    });
  });
});

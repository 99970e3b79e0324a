// Follow-ups (issue 35): a campaign's steps sent to a customer who went quiet. End to end through the
// real worker (started, polling every 20 ms) with steps of 2–3 seconds: inbound messages through
// POST /v1/incoming_custom_channel_message, the bot's reply, the follow-up job, delivery to a local
// receiver; the LLM stand-in (llm-stub.ts) writes instruction steps. The scenarios run concurrently, each
// in its own account, on whatever database the run uses (SQLite, or PostgreSQL with DATABASE_URL).
import { afterAll, beforeAll, describe, type ExpectStatic, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import type { MessageRow } from "../src/platform/db/schema.ts";
import { type Browser, signIn } from "./app-helpers.ts";
import { balanceOf, json, startTestApp, type TestApp } from "./helpers.ts";
import { type ChatRequest, type LlmStub, startLlmStub, textOf } from "./llm-stub.ts";
import { type Receiver, startReceiver } from "./receiver.ts";
import { type MetaStandIn, metaSignature, startMetaStandIn, whatsappMessages } from "./stand-ins/meta.ts";

const KNOWLEDGE = [{ question: "Do you deliver?", answer: "Yes, we deliver every day." }];
const ASK = "do you deliver?";
/** Nothing in the knowledge matches it: the bot falls back (which starts no clock). */
const UNANSWERABLE = "zebra quantum marmalade";
const FOLLOW_UP_JOB = "bot.follow_up";

interface Shop {
  t: TestApp;
  accountId: string;
  apiKey: string;
  campaignId: string;
  browser?: Browser;
}

let seq = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

function call(shop: Shop, method: "GET" | "POST" | "PATCH", url: string, payload?: unknown) {
  return shop.t.inject({
    method,
    url,
    headers: { "x-api-key": shop.apiKey },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function ok<T = Record<string, unknown>>(
  shop: Shop,
  method: "GET" | "POST" | "PATCH",
  url: string,
  payload?: unknown,
): Promise<T> {
  const res = await call(shop, method, url, payload);
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return json<T>(res);
}

/** An account with 100 credits, its webhook on the receiver, and follow-ups on its default campaign. */
async function shopWith(
  t: TestApp,
  receiver: Receiver,
  campaign: Record<string, unknown>,
  options: { browser?: boolean } = {},
): Promise<Shop> {
  const acc = await t.account({ credits: 100 });
  let browser: Browser | undefined;
  if (options.browser) {
    const user = await t.parley.db.kysely
      .selectFrom("users")
      .select("email")
      .where("id", "=", acc.userId)
      .executeTakeFirstOrThrow();
    browser = await signIn(t, user.email);
  }
  await updateSettings(t.parley.db, acc.accountId, { webhook_url: receiver.url });
  const shop: Shop = {
    t,
    accountId: acc.accountId,
    apiKey: acc.apiKey,
    campaignId: "",
    ...(browser ? { browser } : {}),
  };
  const page = await ok<{ data: { id: string; isDefault: boolean }[] }>(shop, "GET", "/v1/campaigns");
  shop.campaignId = page.data.find((c) => c.isDefault)!.id;
  await ok(shop, "PATCH", `/v1/campaigns/${shop.campaignId}`, { knowledge: KNOWLEDGE, ...campaign });
  return shop;
}

async function say(shop: Shop, body: string, fromId: string, firstName?: string): Promise<string> {
  const res = await ok<{ messageId: string }>(shop, "POST", "/v1/incoming_custom_channel_message", {
    customData: {
      messageSid: `sid-${++seq}-${Date.now()}`,
      fromId,
      toId: "shop",
      channel: "webchat",
      body,
      ...(firstName ? { firstName } : {}),
    },
  });
  return res.messageId;
}

const messageByExternalId = (shop: Shop, externalId: string) =>
  shop.t.parley.db.kysely
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", shop.accountId)
    .where("external_id", "=", externalId)
    .executeTakeFirst();

/** The bot's reply to an inbound message, once the bot job wrote it. */
const botReply = (shop: Shop, inboundId: string): Promise<MessageRow> =>
  until("the bot's reply", () => messageByExternalId(shop, `bot:${inboundId}`));

const followUpsIn = (shop: Shop, conversationId: string) =>
  shop.t.parley.db.kysely
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", shop.accountId)
    .where("conversation_id", "=", conversationId)
    .where("bot_outcome", "=", "follow_up")
    .orderBy("id")
    .execute();

/** The follow-up jobs that act on a message (queued, running or dead). */
const jobsAfter = (shop: Shop, messageId: string) =>
  shop.t.parley.db.kysely
    .selectFrom("jobs")
    .select(["id", "status", "run_at", "payload"])
    .where("type", "=", FOLLOW_UP_JOB)
    .where("subject_id", "=", messageId)
    .execute();

/** Waits until the follow-up job queued after `messageId` has run and is gone. */
async function settled(shop: Shop, messageId: string): Promise<void> {
  await until("the follow-up job to run", async () => (await jobsAfter(shop, messageId)).length === 0);
}

/** A bot reply that answered, with its step-1 job queued in the same commit. */
async function answered(shop: Shop, expect: ExpectStatic, fromId: string, firstName?: string) {
  const reply = await botReply(shop, await say(shop, ASK, fromId, firstName));
  expect(reply.bot_outcome).toBe("answer");
  expect(await jobsAfter(shop, reply.id)).toHaveLength(1);
  return reply;
}

const stats = (shop: Shop) =>
  ok<{ followUps: { sent: number; answered: number } }>(
    shop,
    "GET",
    `/v1/campaigns/${shop.campaignId}/stats`,
  );

let app: TestApp;
let llmApp: TestApp;
let receiver: Receiver;
let stub: LlmStub;
let meta: MetaStandIn;

// --- WhatsApp, against the Meta stand-in (stand-ins/meta.ts) ---

const PHONE_NUMBER_ID = "106540352242922";
const APP_SECRET = "5e0c7a9b2d4f6e8a1c3b5d7f9e0a2c4b";

interface WhatsApp {
  channelId: string;
  /** What Parley sent to Meta through this channel (its token is its own). */
  sends: () => Record<string, unknown>[];
}

async function whatsappChannel(shop: Shop): Promise<WhatsApp> {
  const token = `EAAGfollowUps${++seq}${shop.accountId}`;
  meta.tokens.add(token);
  const channel = await ok<{ id: string }>(shop, "POST", "/v1/channels", {
    type: "whatsapp",
    name: "Our WhatsApp",
    config: {
      phoneNumberId: PHONE_NUMBER_ID,
      accessToken: token,
      appSecret: APP_SECRET,
      verifyToken: "follow-ups-verify",
    },
  });
  return {
    channelId: channel.id,
    sends: () =>
      meta
        .sends()
        .filter((r) => r.authorization === `Bearer ${token}`)
        .map((r) => r.body ?? {}),
  };
}

/** A customer's WhatsApp message, signed as Meta sends it; answers the bot's reply once it is Sent. */
async function whatsappSays(shop: Shop, wa: WhatsApp, waId: string, name: string, body: string) {
  const payload = JSON.stringify(
    whatsappMessages(PHONE_NUMBER_ID, { waId, name }, [{ type: "text", text: { body } }]),
  );
  const res = await shop.t.inject({
    method: "POST",
    url: `/v1/channels/${wa.channelId}/inbound`,
    headers: {
      "content-type": "application/json",
      "x-hub-signature-256": metaSignature(APP_SECRET, payload),
    },
    payload,
  });
  if (res.statusCode !== 200) throw new Error(`inbound: ${res.statusCode} ${res.body}`);
  return until("the bot's WhatsApp reply, sent", () =>
    shop.t.parley.db.kysely
      .selectFrom("messages")
      .selectAll()
      .where("account_id", "=", shop.accountId)
      .where("to_id", "=", waId)
      .where("bot_outcome", "=", "answer")
      .where("status", "=", "sent")
      .executeTakeFirst(),
  );
}

/** The customer's last message in the conversation was 25 hours ago: WhatsApp's window is closed. */
const windowClosed = (shop: Shop, conversationId: string) =>
  shop.t.parley.db.write((trx) =>
    trx
      .updateTable("messages")
      .set({ created_at: Date.now() - 25 * 3_600_000 })
      .where("account_id", "=", shop.accountId)
      .where("conversation_id", "=", conversationId)
      .where("direction", "=", "inbound")
      .execute(),
  );

beforeAll(async () => {
  [receiver, stub, meta] = await Promise.all([startReceiver(), startLlmStub(), startMetaStandIn()]);
  [app, llmApp] = await Promise.all([
    startTestApp({ BOT_METERING: "all", META_GRAPH_URL: meta.url }),
    startTestApp({ LLM_BASE_URL: stub.baseUrl, LLM_API_KEY: "platform-key", LLM_MODEL: "platform-model" }),
  ]);
  app.parley.worker.start();
  llmApp.parley.worker.start();
});
afterAll(async () => {
  await Promise.all([app?.close(), llmApp?.close()]);
  await Promise.all([receiver?.close(), stub?.close(), meta?.close()]);
});

describe.concurrent("follow-ups", () => {
  it("validation: 400 VALIDATION_ERROR naming the step, and nothing changes", async ({ expect }) => {
    const shop = await shopWith(app, receiver, {
      followUps: [{ after: " pt24h ", message: "  Still there?  " }],
    });
    const saved = await ok<{ followUps: unknown[] }>(shop, "GET", `/v1/campaigns/${shop.campaignId}`);
    expect(saved.followUps).toEqual([{ after: "PT24H", message: "Still there?" }]);
    const campaignsBefore = (await ok<{ data: unknown[] }>(shop, "GET", "/v1/campaigns")).data.length;

    const refused: [unknown[], RegExp][] = [
      [[{ after: "24 hours", message: "x" }], /followUps\[0\]\.after must be an ISO 8601 duration/],
      [
        [
          { after: "PT1H", message: "x" },
          { after: "P1W", message: "y" },
        ],
        /followUps\[1\]\.after/,
      ],
      [[{ after: "PT", message: "x" }], /followUps\[0\]\.after/],
      [[{ after: "PT0S", message: "x" }], /followUps\[0\]\.after must be between PT1S and P30D/],
      [[{ after: "P31D", message: "x" }], /followUps\[0\]\.after must be between PT1S and P30D/],
      [[{ after: "PT1H" }], /followUps\[0\] needs exactly one of message and instruction/],
      [[{ after: "PT1H", message: "x", instruction: "y" }], /exactly one of message and instruction/],
      [[{ after: "PT1H", message: "   " }], /followUps\[0\]\.message must not be empty/],
      [[{ after: "PT1H", message: "x".repeat(2001) }], /followUps\.0\.message must be at most 2000/],
      [Array.from({ length: 10 }, () => ({ after: "PT1H", message: "x" })), /followUps/],
      // The default campaign's engine is auto: an instruction is fine there, not on builtin.
      [[{ after: "PT1H", instruction: "remind them" }], /followUps\[0\]\.instruction needs the LLM engine/],
    ];
    for (const [followUps, message] of refused) {
      const engine = String(message).includes("instruction needs") ? { engine: "builtin" } : {};
      const patch = await call(shop, "PATCH", `/v1/campaigns/${shop.campaignId}`, { followUps, ...engine });
      expect(patch.statusCode, patch.body).toBe(400);
      expect(json<{ error: { code: string; message: string } }>(patch).error.code).toBe("VALIDATION_ERROR");
      expect(json<{ error: { message: string } }>(patch).error.message).toMatch(message);
      const post = await call(shop, "POST", "/v1/campaigns", {
        name: `refused ${++seq}`,
        followUps,
        ...engine,
      });
      expect(post.statusCode, post.body).toBe(400);
    }
    // An instruction step on engine auto is kept; switching that campaign to builtin is then refused.
    await ok(shop, "PATCH", `/v1/campaigns/${shop.campaignId}`, {
      followUps: [{ after: "P1DT2H30M", instruction: "Ask if the delivery time suits them" }],
    });
    const toBuiltin = await call(shop, "PATCH", `/v1/campaigns/${shop.campaignId}`, { engine: "builtin" });
    expect(toBuiltin.statusCode).toBe(400);
    expect(toBuiltin.body).toMatch(/followUps\[0\]\.instruction needs the LLM engine/);
    const after = await ok<{ engine: string; followUps: unknown[] }>(
      shop,
      "GET",
      `/v1/campaigns/${shop.campaignId}`,
    );
    expect(after.engine).toBe("auto");
    expect(after.followUps).toEqual([
      { after: "P1DT2H30M", instruction: "Ask if the delivery time suits them" },
    ]);
    expect((await ok<{ data: unknown[] }>(shop, "GET", "/v1/campaigns")).data).toHaveLength(campaignsBefore);
  });

  it("sends each step once, not before its time, the next after the previous; credits and stats", async ({
    expect,
  }) => {
    const shop = await shopWith(
      app,
      receiver,
      {
        followUps: [
          { after: "PT2S", message: "Still there, {{firstName|friend}}?" },
          { after: "PT2S", message: "Last call, {{ firstName | friend }}!" },
        ],
      },
      { browser: true },
    );
    const credits = await balanceOf(app, shop.accountId);
    const reply = await answered(shop, expect, "ann-1", "Ann");
    const conversationId = reply.conversation_id;
    const sent = await until("two follow-ups", async () => {
      const rows = await followUpsIn(shop, conversationId);
      return rows.length >= 2 ? rows : undefined;
    });
    const [f1, f2] = sent as [MessageRow, MessageRow];
    expect(f1.body).toBe("Still there, Ann?");
    expect(f2.body).toBe("Last call, Ann!");
    expect(f1.external_id).toBe(`followup:${reply.id}:1`);
    expect(f2.external_id).toBe(`followup:${f1.id}:2`);
    expect([f1.sender, f1.direction, f1.campaign_id, f1.to_id]).toEqual([
      "bot",
      "outbound",
      shop.campaignId,
      "ann-1",
    ]);
    // Not before its time, and not long after it.
    expect(f1.created_at - reply.created_at).toBeGreaterThanOrEqual(2_000);
    expect(f1.created_at - reply.created_at).toBeLessThan(6_000);
    expect(f2.created_at - f1.created_at).toBeGreaterThanOrEqual(2_000);
    expect(f2.created_at - f1.created_at).toBeLessThan(6_000);
    // There is no third step: nothing is queued after the second.
    expect(await jobsAfter(shop, f2.id)).toHaveLength(0);
    // Delivered like any outbound message.
    await until("the follow-ups delivered", async () => {
      const rows = await followUpsIn(shop, conversationId);
      return rows.every((r) => r.status === "sent");
    });
    const hooks = receiver.received.map((r) => JSON.parse(r.body) as { messageId: string; body: string });
    expect(hooks.filter((h) => h.messageId === f1.id).map((h) => h.body)).toContain("Still there, Ann?");
    // A credit each, like the bot's reply (BOT_METERING=all).
    expect(await balanceOf(app, shop.accountId)).toBe(credits - 300);
    const debits = await app.parley.db.kysely
      .selectFrom("credit_transactions")
      .select(["message_id", "amount", "kind"])
      .where("account_id", "=", shop.accountId)
      .where("message_id", "in", [f1.id, f2.id])
      .execute();
    expect(debits.map((d) => [d.amount, d.kind])).toEqual([
      [-100, "bot_reply"],
      [-100, "bot_reply"],
    ]);
    expect((await stats(shop)).followUps).toEqual({ sent: 2, answered: 0 });
    // The customer answers the last one: it counts as answered (the first, followed by ours, does not).
    await say(shop, UNANSWERABLE, "ann-1");
    expect((await stats(shop)).followUps).toEqual({ sent: 2, answered: 1 });
    const appStats = await shop.browser!.req({
      method: "GET",
      url: `/app/api/campaigns/${shop.campaignId}/stats`,
    });
    expect(json<{ followUps: unknown }>(appStats).followUps).toEqual({ sent: 2, answered: 1 });
    // Exactly once: no other follow-up in the account.
    const all = await app.parley.db.kysely
      .selectFrom("messages")
      .select("id")
      .where("account_id", "=", shop.accountId)
      .where("bot_outcome", "=", "follow_up")
      .execute();
    expect(all).toHaveLength(2);
  });

  it("a customer's message cancels the pending step", async ({ expect }) => {
    const shop = await shopWith(app, receiver, { followUps: [{ after: "PT2S", message: "Still there?" }] });
    const reply = await answered(shop, expect, "cancel-1");
    // The customer writes before the step is due; the bot's fallback to it starts no clock.
    const fallback = await botReply(shop, await say(shop, UNANSWERABLE, "cancel-1"));
    expect(fallback.bot_outcome).toBe("fallback");
    expect(await jobsAfter(shop, fallback.id)).toHaveLength(0);
    await settled(shop, reply.id);
    expect(await followUpsIn(shop, reply.conversation_id)).toEqual([]);
  });

  it("a person's reply starts the clock again, and its follow-up goes out though the bot is paused", async ({
    expect,
  }) => {
    const shop = await shopWith(app, receiver, {
      followUps: [{ after: "PT3S", message: "Any questions left?" }],
    });
    const reply = await answered(shop, expect, "restart-1");
    await sleep(1_000);
    const person = await ok<{ id: string }>(
      shop,
      "POST",
      `/v1/conversations/${reply.conversation_id}/messages`,
      {
        body: "Hi, Sam from the shop here.",
      },
    );
    const human = await shop.t.parley.db.kysely
      .selectFrom("messages")
      .selectAll()
      .where("id", "=", person.id)
      .executeTakeFirstOrThrow();
    expect(await jobsAfter(shop, human.id)).toHaveLength(1);
    const [f1] = await until("the follow-up after the person's reply", async () => {
      const rows = await followUpsIn(shop, reply.conversation_id);
      return rows.length > 0 ? rows : undefined;
    });
    expect(f1!.external_id).toBe(`followup:${human.id}:1`);
    expect(f1!.created_at - human.created_at).toBeGreaterThanOrEqual(3_000);
    expect(f1!.body).toBe("Any questions left?");
    await settled(shop, reply.id);
    expect(await followUpsIn(shop, reply.conversation_id)).toHaveLength(1);
    const conversation = await ok<{ botPaused: boolean }>(
      shop,
      "GET",
      `/v1/conversations/${reply.conversation_id}`,
    );
    expect(conversation.botPaused).toBe(true);
  });

  it("not sent to a resolved conversation", async ({ expect }) => {
    const shop = await shopWith(
      app,
      receiver,
      { followUps: [{ after: "PT2S", message: "Still there?" }] },
      { browser: true },
    );
    const reply = await answered(shop, expect, "resolved-1");
    const res = await shop.browser!.req({
      method: "PATCH",
      url: `/app/api/conversations/${reply.conversation_id}`,
      payload: { status: "resolved" },
    });
    expect(res.statusCode, res.body).toBe(200);
    await settled(shop, reply.id);
    expect(await followUpsIn(shop, reply.conversation_id)).toEqual([]);
  });

  it("not sent to a contact who opted out: SMS STOP, or the label no-follow-up", async ({ expect }) => {
    const shop = await shopWith(app, receiver, { followUps: [{ after: "PT2S", message: "Still there?" }] });
    const [stopped, labelled] = await Promise.all([
      answered(shop, expect, "stop-1"),
      answered(shop, expect, "label-1"),
    ]);
    // What a Twilio STOP records on the contact.
    await app.parley.db.write((trx) =>
      trx
        .updateTable("contacts")
        .set({ sms_opted_out_at: Date.now() })
        .where("account_id", "=", shop.accountId)
        .where("id", "=", stopped.contact_id)
        .execute(),
    );
    await ok(shop, "PATCH", `/v1/contacts/${labelled.contact_id}`, { labels: ["VIP", "No-Follow-Up"] });
    await Promise.all([settled(shop, stopped.id), settled(shop, labelled.id)]);
    expect(await followUpsIn(shop, stopped.conversation_id)).toEqual([]);
    expect(await followUpsIn(shop, labelled.conversation_id)).toEqual([]);
  });

  it("not sent while the bot is off: paused on the conversation, off for the contact, campaign paused", async ({
    expect,
  }) => {
    const shop = await shopWith(app, receiver, { followUps: [{ after: "PT2S", message: "Still there?" }] });
    const other = await shopWith(app, receiver, { followUps: [{ after: "PT2S", message: "Still there?" }] });
    const [paused, contactOff, campaignOff] = await Promise.all([
      answered(shop, expect, "paused-1"),
      answered(shop, expect, "contact-off-1"),
      answered(other, expect, "campaign-off-1"),
    ]);
    await ok(shop, "POST", `/v1/conversations/${paused.conversation_id}/bot`, { active: false });
    await ok(shop, "PATCH", `/v1/contacts/${contactOff.contact_id}`, { botActive: false });
    await ok(other, "PATCH", `/v1/campaigns/${other.campaignId}`, { status: "paused" });
    await Promise.all([
      settled(shop, paused.id),
      settled(shop, contactOff.id),
      settled(other, campaignOff.id),
    ]);
    expect(await followUpsIn(shop, paused.conversation_id)).toEqual([]);
    expect(await followUpsIn(shop, contactOff.conversation_id)).toEqual([]);
    expect(await followUpsIn(other, campaignOff.conversation_id)).toEqual([]);
  });

  it("an instruction step is written by the LLM from the conversation", async ({ expect }) => {
    const isFollowUp = (req: ChatRequest) => /follow-up/i.test(textOf(req.body.messages[0]?.content ?? null));
    stub.respond = (req) =>
      isFollowUp(req)
        ? { content: "Still thinking about the blue bike, Bo?", usage: { prompt: 40, completion: 9 } }
        : { content: "Yes: the blue bike is 300 euros." };
    const shop = await shopWith(llmApp, receiver, {
      engine: "llm",
      instructions: "You sell bikes.",
      followUps: [{ after: "PT2S", instruction: "Remind them of the bike they asked about" }],
    });
    const reply = await botReply(shop, await say(shop, "Do you have a blue bike?", "bo-1", "Bo"));
    expect(reply.body).toBe("Yes: the blue bike is 300 euros.");
    const [f1] = await until("the LLM's follow-up", async () => {
      const rows = await followUpsIn(shop, reply.conversation_id);
      return rows.length > 0 ? rows : undefined;
    });
    expect(f1!.body).toBe("Still thinking about the blue bike, Bo?");
    expect(f1!.created_at - reply.created_at).toBeGreaterThanOrEqual(2_000);
    const req = stub.requests.find(isFollowUp)!;
    const system = textOf(req.body.messages[0]!.content);
    expect(system).toContain("You sell bikes.");
    expect(system).toContain("Remind them of the bike they asked about");
    const turns = req.body.messages.slice(1).map((m) => [m.role, textOf(m.content)]);
    expect(turns).toEqual([
      ["user", "Do you have a blue bike?"],
      ["assistant", "Yes: the blue bike is 300 euros."],
    ]);
    const usage = await llmApp.parley.db.kysely
      .selectFrom("bot_replies")
      .select(["input_tokens", "output_tokens"])
      .where("message_id", "=", f1!.id)
      .executeTakeFirst();
    expect(usage).toEqual({ input_tokens: 40, output_tokens: 9 });
    expect(stub.requests.filter(isFollowUp)).toHaveLength(1);
  });

  it("a step's WhatsApp template: kept as given, refused naming the field (400, nothing changes)", async ({
    expect,
  }) => {
    const template = { name: "still_there", language: "en_US", parameters: [" {{firstName|there}} ", "42"] };
    const shop = await shopWith(app, receiver, {
      followUps: [
        { after: "PT24H", message: "Still there?", whatsappTemplate: template },
        { after: "P2D", message: "Last call", whatsappTemplate: { name: "last_call", language: "en" } },
        { after: "P3D", message: "Bye", whatsappTemplate: null },
      ],
    });
    const saved = [
      {
        after: "PT24H",
        message: "Still there?",
        whatsappTemplate: {
          name: "still_there",
          language: "en_US",
          parameters: ["{{firstName|there}}", "42"],
        },
      },
      {
        after: "P2D",
        message: "Last call",
        whatsappTemplate: { name: "last_call", language: "en", parameters: [] },
      },
      { after: "P3D", message: "Bye" },
    ];
    const url = `/v1/campaigns/${shop.campaignId}`;
    expect((await ok<{ followUps: unknown[] }>(shop, "GET", url)).followUps).toEqual(saved);
    const step = (whatsappTemplate: unknown) => [
      { after: "PT1H", message: "x" },
      { after: "PT2H", message: "y", whatsappTemplate },
    ];
    const refused: [unknown, RegExp][] = [
      [{ language: "en_US" }, /followUps\[1\]\.whatsappTemplate\.name is required/],
      [
        { name: "Still There", language: "en_US" },
        /followUps\[1\]\.whatsappTemplate\.name must be the approved/,
      ],
      [{ name: "x".repeat(513), language: "en" }, /followUps\[1\]\.whatsappTemplate\.name must be/],
      [{ name: "still_there" }, /followUps\[1\]\.whatsappTemplate\.language is required/],
      [
        { name: "still_there", language: "en-US" },
        /followUps\[1\]\.whatsappTemplate\.language must be a WhatsApp language code/,
      ],
      [{ name: "still_there", language: "english" }, /followUps\[1\]\.whatsappTemplate\.language/],
      [
        { name: "still_there", language: "en", parameters: Array.from({ length: 11 }, () => "p") },
        /followUps\[1\]\.whatsappTemplate\.parameters must have at most 10 items/,
      ],
      [
        { name: "still_there", language: "en", parameters: ["ok", "  "] },
        /followUps\[1\]\.whatsappTemplate\.parameters\[1\] must not be empty/,
      ],
      [
        { name: "still_there", language: "en", parameters: ["x".repeat(1025)] },
        /followUps\[1\]\.whatsappTemplate\.parameters\[0\] must be at most 1024 characters/,
      ],
      // Types are the schema's: the field is named too.
      [{ name: 7, language: "en" }, /followUps\.1\.whatsappTemplate\.name must be string/],
      ["still_there", /followUps\.1\.whatsappTemplate must be object/],
    ];
    for (const [whatsappTemplate, message] of refused) {
      const patch = await call(shop, "PATCH", url, { followUps: step(whatsappTemplate) });
      expect(patch.statusCode, patch.body).toBe(400);
      const error = json<{ error: { code: string; message: string } }>(patch).error;
      expect(error.code).toBe("VALIDATION_ERROR");
      expect(error.message).toMatch(message);
      const post = await call(shop, "POST", "/v1/campaigns", {
        name: `refused ${++seq}`,
        followUps: step(whatsappTemplate),
      });
      expect(post.statusCode, post.body).toBe(400);
    }
    expect((await ok<{ followUps: unknown[] }>(shop, "GET", url)).followUps).toEqual(saved);
  });

  it("WhatsApp: the message within the 24-hour window, the template outside it (parameters filled), none without a template", async ({
    expect,
  }) => {
    const template = {
      name: "still_there",
      language: "en_US",
      parameters: ["{{firstName|friend}}", "Dana Bikes"],
    };
    const shop = await shopWith(app, receiver, {
      followUps: [
        { after: "PT3S", message: "Still there, {{firstName|friend}}?", whatsappTemplate: template },
      ],
    });
    const plain = await shopWith(app, receiver, { followUps: [{ after: "PT3S", message: "Still there?" }] });
    const [wa, waPlain] = await Promise.all([whatsappChannel(shop), whatsappChannel(plain)]);
    const [inside, outside, untemplated] = await Promise.all([
      whatsappSays(shop, wa, "14155550301", "Ann", ASK),
      whatsappSays(shop, wa, "14155550302", "Bo", ASK),
      whatsappSays(plain, waPlain, "14155550303", "Cy", ASK),
    ]);
    await Promise.all([
      windowClosed(shop, outside.conversation_id),
      windowClosed(plain, untemplated.conversation_id),
    ]);
    const sentIn = async (s: Shop, conversationId: string) =>
      until("the follow-up, sent", async () => {
        const rows = await followUpsIn(s, conversationId);
        return rows[0]?.status === "sent" ? rows : undefined;
      });
    const [[text], [templated]] = await Promise.all([
      sentIn(shop, inside.conversation_id),
      sentIn(shop, outside.conversation_id),
      settled(plain, untemplated.id),
    ]);
    // Within the window: the step's message, as free text.
    expect([text!.body, text!.template]).toEqual(["Still there, Ann?", null]);
    expect(
      wa
        .sends()
        .filter((s) => s.to === "14155550301")
        .at(-1),
    ).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "14155550301",
      type: "text",
      text: { preview_url: false, body: "Still there, Ann?" },
    });
    // Outside it: the approved template, its parameters filled for the contact; the inbox shows which.
    expect(templated!.body).toBe('WhatsApp template still_there (en_US): "Bo", "Dana Bikes"');
    expect(JSON.parse(templated!.template!)).toEqual({
      name: "still_there",
      language: "en_US",
      parameters: ["Bo", "Dana Bikes"],
    });
    expect(
      wa
        .sends()
        .filter((s) => s.to === "14155550302")
        .at(-1),
    ).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "14155550302",
      type: "template",
      template: {
        name: "still_there",
        language: { code: "en_US" },
        components: [
          {
            type: "body",
            parameters: [
              { type: "text", text: "Bo" },
              { type: "text", text: "Dana Bikes" },
            ],
          },
        ],
      },
    });
    // A step without a template is skipped outside the window: nothing written, nothing sent.
    expect(await followUpsIn(plain, untemplated.conversation_id)).toEqual([]);
    expect(waPlain.sends().filter((s) => s.to === "14155550303")).toHaveLength(1);
    expect((await stats(shop)).followUps).toEqual({ sent: 2, answered: 0 });
  });

  it("an outgoing campaign's first message starts the clock: on WhatsApp its follow-up goes out as the step's template", async ({
    expect,
  }) => {
    const shop = await shopWith(app, receiver, {});
    const wa = await whatsappChannel(shop);
    const list = await ok<{ id: string }>(shop, "POST", "/v1/lists", { name: "Spring customers" });
    const contact = await ok<{ id: string }>(shop, "POST", "/v1/contacts", {
      firstName: "Eve",
      phone: "+14155550401",
    });
    await ok(shop, "POST", `/v1/lists/${list.id}/contacts`, { contactId: contact.id });
    const campaign = await ok<{ id: string }>(shop, "POST", "/v1/campaigns", {
      name: "Spring sale",
      status: "live",
      knowledge: KNOWLEDGE,
      outgoing: {
        message: "Our spring sale starts today, {{firstName|there}}!",
        listId: list.id,
        channelId: wa.channelId,
        template: { name: "spring_sale", language: "en_US", parameters: ["{{firstName|there}}"] },
        ratePerMinute: 600,
      },
      followUps: [
        {
          after: "PT2S",
          message: "Did you see our sale, {{firstName|there}}?",
          whatsappTemplate: { name: "sale_reminder", language: "en", parameters: ["{{firstName|there}}"] },
        },
      ],
    });
    await ok(shop, "POST", `/v1/campaigns/${campaign.id}/start`);
    const first = await until("the first message", () =>
      shop.t.parley.db.kysely
        .selectFrom("messages")
        .selectAll()
        .where("account_id", "=", shop.accountId)
        .where("campaign_id", "=", campaign.id)
        .where("bot_outcome", "is", null)
        .executeTakeFirst(),
    );
    // Its step-1 job was written with it.
    expect(await jobsAfter(shop, first.id)).toHaveLength(1);
    const [f1] = await until("the follow-up after the first message", async () => {
      const rows = await followUpsIn(shop, first.conversation_id);
      return rows[0]?.status === "sent" ? rows : undefined;
    });
    expect(f1!.external_id).toBe(`followup:${first.id}:1`);
    expect(f1!.campaign_id).toBe(campaign.id);
    expect(f1!.created_at - first.created_at).toBeGreaterThanOrEqual(2_000);
    // Eve never wrote: WhatsApp's window was never open, so the template goes out.
    expect(f1!.body).toBe('WhatsApp template sale_reminder (en): "Eve"');
    expect(wa.sends().map((s) => (s.template as { name?: string } | undefined)?.name)).toEqual([
      "spring_sale",
      "sale_reminder",
    ]);
    expect(wa.sends()[1]).toMatchObject({
      to: "14155550401",
      type: "template",
      template: {
        name: "sale_reminder",
        language: { code: "en" },
        components: [{ type: "body", parameters: [{ type: "text", text: "Eve" }] }],
      },
    });
    await settled(shop, f1!.id);
    expect(await followUpsIn(shop, first.conversation_id)).toHaveLength(1);
    const figures = await ok<{ followUps: unknown }>(shop, "GET", `/v1/campaigns/${campaign.id}/stats`);
    expect(figures.followUps).toEqual({ sent: 1, answered: 0 });
  });

  it("the Meta stand-in takes a template send as Meta documents it and refuses a malformed one as Meta does", async ({
    expect,
  }) => {
    const token = `EAAGstandIn${++seq}`;
    meta.tokens.add(token);
    const send = async (template: unknown) => {
      const res = await fetch(`${meta.url}/v21.0/${PHONE_NUMBER_ID}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          messaging_product: "whatsapp",
          to: "14155550000",
          type: "template",
          template,
        }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const accepted = await send({
      name: "still_there",
      language: { code: "en_US" },
      components: [{ type: "body", parameters: [{ type: "text", text: "Ann" }] }],
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({
      messaging_product: "whatsapp",
      messages: [{ id: expect.any(String) }],
    });
    expect((await send({ name: "still_there", language: { code: "en" } })).status).toBe(200);
    expect(await send({ language: { code: "en" } })).toMatchObject({
      status: 400,
      body: {
        error: {
          message: "(#100) Invalid parameter",
          type: "OAuthException",
          code: 100,
          error_data: { messaging_product: "whatsapp", details: "Parameter name is missing or empty" },
          fbtrace_id: expect.any(String),
        },
      },
    });
    expect(await send({ name: "still_there", language: "en" })).toMatchObject({
      status: 400,
      body: { error: { code: 100, error_data: { details: "Parameter language is missing or empty" } } },
    });
    const emptyText = await send({
      name: "still_there",
      language: { code: "en" },
      components: [{ type: "body", parameters: [{ type: "text", text: "" }] }],
    });
    expect(emptyText).toMatchObject({ status: 400, body: { error: { code: 131008 } } });
  });
});

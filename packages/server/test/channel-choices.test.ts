// The bot's "Did you mean" choices (messages.suggestions) as each built-in channel shows them, end to
// end on SQLite and on PostgreSQL: the real app listening on 127.0.0.1 (providers post to its port, as
// through a TLS-terminating proxy at PUBLIC_URL), the real worker, and the local stand-ins that speak
// the providers' contracts (test/stand-ins). On each channel the customer asks "opening hours?", the
// provider receives the choices as its own buttons (WhatsApp reply buttons, Messenger and Instagram
// quick replies, a Telegram inline keyboard; the widget's messages carry them), the customer presses
// the second one, and the answer to that entry goes out. On SMS the choices are the numbered text.
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../src/context.ts";
import { buttonLabels, pressedBody } from "../src/modules/channels/adapters/choice-buttons.ts";
import { messengerAdapter } from "../src/modules/channels/adapters/messenger.ts";
import {
  keyboardOf,
  parseTelegramUpdate,
  telegramInboundReply,
} from "../src/modules/channels/adapters/telegram.ts";
import type { DecryptedChannel } from "../src/modules/channels/adapters/types.ts";
import {
  interactiveOf,
  parseWhatsAppPayload,
  whatsappAdapter,
} from "../src/modules/channels/adapters/whatsapp.ts";
import type { MessageRow } from "../src/platform/db/schema.ts";
import { drainUntil, json, type Page, startTestApp, type TestApp } from "./helpers.ts";
import {
  type MetaStandIn,
  messengerEvent,
  metaSignature,
  startMetaStandIn,
  whatsappMessages,
} from "./stand-ins/meta.ts";
import { startTelegramStandIn, type TelegramStandIn } from "./stand-ins/telegram.ts";
import { startTwilioStandIn, type TwilioStandIn, type WebhookRequest } from "./stand-ins/twilio.ts";

const PUBLIC_URL = "https://parley.example";
const SHOP = "https://shop.example";
const PHONE_NUMBER_ID = "106540352242922";
const PAGE_ID = "1122334455667";
const APP_SECRET = "3f9a1c0e5b7d4a2e8c6f1b0d9e7a5c3b";

const KNOWLEDGE = [
  { question: "What are your opening hours on weekdays?", answer: "Monday to Friday 9:00 to 18:00." },
  { question: "What are your opening hours at weekends?", answer: "Saturday 10:00 to 16:00, closed Sunday." },
  { question: "How much does a bike service cost?", answer: "A full service is £60." },
  { question: "How much does a puncture repair cost?", answer: "A puncture repair is £12." },
  { question: "Where can I park?", answer: "Free parking behind the shop." },
];
const ASK = "opening hours?";
const CHOICES_BODY =
  "Did you mean:\n1. What are your opening hours on weekdays?\n2. What are your opening hours at weekends?\n" +
  "Reply with the number, or ask in other words.";
const WEEKEND = "Saturday 10:00 to 16:00, closed Sunday.";
const SUGGESTIONS = [
  { id: "1", title: KNOWLEDGE[0]!.question },
  { id: "2", title: KNOWLEDGE[1]!.question },
];

let t: TestApp;
let meta: MetaStandIn;
let tg: TelegramStandIn;
let tw: TwilioStandIn;
/** Where the app listens: every provider call and widget request goes there over HTTP. */
let origin = "";
let seq = 0;

/** A provider's POST on PUBLIC_URL's path, sent to the listening port instead. */
async function post(url: string, headers: Record<string, string>, body: string) {
  const u = new URL(url);
  const res = await fetch(`${origin}${u.pathname}${u.search}`, { method: "POST", headers, body });
  return { status: res.status, body: await res.text(), headers: Object.fromEntries(res.headers) };
}

beforeAll(async () => {
  meta = await startMetaStandIn();
  tg = await startTelegramStandIn();
  tw = await startTwilioStandIn({ deliver: (req: WebhookRequest) => post(req.url, req.headers, req.body) });
  t = await startTestApp({
    META_GRAPH_URL: meta.url,
    TELEGRAM_API_URL: tg.url,
    TWILIO_API_URL: tw.url,
    PUBLIC_URL,
    DELIVERY_RETRY_SCHEDULE: "0.05,0.05,0.05",
  });
  await t.parley.app.listen({ port: 0, host: "127.0.0.1" });
  origin = `http://127.0.0.1:${(t.parley.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  await Promise.all([meta?.close(), tg?.close(), tw?.close()]);
});

const call = (apiKey: string, method: "GET" | "POST" | "PATCH", url: string, payload?: unknown) =>
  t.inject({
    method,
    url,
    headers: { "x-api-key": apiKey },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

/** An account whose default campaign (builtin engine) holds the five entries, with one channel. */
async function shop(type: string, config: Record<string, unknown>) {
  const acc = await t.account();
  const campaigns = json<Page<{ id: string; isDefault: boolean }>>(
    await call(acc.apiKey, "GET", "/v1/campaigns"),
  );
  const campaignId = campaigns.data.find((c) => c.isDefault)!.id;
  const patched = await call(acc.apiKey, "PATCH", `/v1/campaigns/${campaignId}`, {
    knowledge: KNOWLEDGE,
    engine: "builtin",
  });
  expect(patched.statusCode, patched.body).toBe(200);
  const res = await call(acc.apiKey, "POST", "/v1/channels", { type, name: `Our ${type}`, config });
  expect(res.statusCode, res.body).toBe(201);
  return { acc, channel: json<{ id: string; inboundUrl: string | null }>(res) };
}

const messagesOf = (accountId: string) =>
  t.parley.db.kysely
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();

/** The account's `n`th reply (1-based), once Sent. */
async function reply(accountId: string, n: number) {
  let found: MessageRow | undefined;
  await drainUntil(
    t,
    async () => {
      found = (await messagesOf(accountId)).filter((m) => m.direction === "outbound")[n - 1];
      if (found?.status === "failed") throw new Error(`reply ${n} failed: ${found.error}`);
      return found?.status === "sent";
    },
    15_000,
  );
  return found!;
}

/** The choices went out as such, with the choices stored on the message. */
function expectChoices(m: MessageRow) {
  expect(m).toMatchObject({ sender: "bot", bot_outcome: "choices", body: CHOICES_BODY });
  expect(JSON.parse(m.suggestions!)).toEqual([
    { ...SUGGESTIONS[0], entry: 0 },
    { ...SUGGESTIONS[1], entry: 1 },
  ]);
}

function metaToken() {
  const token = `EAAG${++seq}ChoicesTokenFromMetaBusinessSettings${randomBytes(4).toString("hex")}`;
  meta.tokens.add(token);
  return token;
}

/** A webhook POST as Meta sends it: JSON signed with the app secret, over HTTP to the inbound URL. */
function metaDeliver(inboundUrl: string, payload: unknown) {
  const body = JSON.stringify(payload);
  return post(
    inboundUrl,
    { "content-type": "application/json", "x-hub-signature-256": metaSignature(APP_SECRET, body) },
    body,
  );
}

const sendsWith = (token: string) => meta.sends().filter((r) => r.authorization === `Bearer ${token}`);

describe("WhatsApp: reply buttons", () => {
  it("the choices go as an interactive button message; pressing the second gets its answer", async () => {
    const token = metaToken();
    const { acc, channel } = await shop("whatsapp", {
      phoneNumberId: PHONE_NUMBER_ID,
      accessToken: token,
      appSecret: APP_SECRET,
    });
    const customer = { waId: "14155550177", name: "Ana" };
    const asked = await metaDeliver(
      channel.inboundUrl!,
      whatsappMessages(PHONE_NUMBER_ID, customer, [{ type: "text", text: { body: ASK } }]),
    );
    expect(asked.status, asked.body).toBe(200);
    expectChoices(await reply(acc.accountId, 1));
    const offered = sendsWith(token);
    expect(offered).toHaveLength(1);
    expect(offered[0]!.path).toBe(`/v21.0/${PHONE_NUMBER_ID}/messages`);
    // Both questions start alike: cut to 20 characters they would be the same ("What are your
    // openi…"), which WhatsApp refuses; the words they share are left out.
    expect(offered[0]!.body).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: customer.waId,
      type: "interactive",
      interactive: {
        type: "button",
        body: { text: CHOICES_BODY },
        action: {
          buttons: [
            { type: "reply", reply: { id: "1", title: "On weekdays?" } },
            { type: "reply", reply: { id: "2", title: "At weekends?" } },
          ],
        },
      },
    });

    // The customer taps "At weekends?": WhatsApp posts an interactive button_reply with its id.
    const pressed = await metaDeliver(
      channel.inboundUrl!,
      whatsappMessages(PHONE_NUMBER_ID, customer, [
        {
          type: "interactive",
          context: { from: "15550783881", id: offered[0]!.answeredId },
          interactive: { type: "button_reply", button_reply: { id: "2", title: "At weekends?" } },
        },
      ]),
    );
    expect(pressed.status, pressed.body).toBe(200);
    const answer = await reply(acc.accountId, 2);
    expect(answer).toMatchObject({ body: WEEKEND, bot_outcome: "answer", suggestions: null });
    const inbound = (await messagesOf(acc.accountId)).filter((m) => m.direction === "inbound");
    expect(inbound.map((m) => m.body)).toEqual([ASK, "2"]);
    expect(sendsWith(token)[1]!.body).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: customer.waId,
      type: "text",
      text: { preview_url: false, body: WEEKEND },
    });
  });

  it("more than 3 choices go as a list; labels are unique and within WhatsApp's limits", () => {
    const four = [
      { id: "1", title: "How much does a bike service cost?", entry: 2 },
      { id: "2", title: "How much does a puncture repair cost?", entry: 3 },
      { id: "3", title: "Where can I park?", entry: 4 },
      { id: "4", title: "What are your opening hours on weekdays?", entry: 0 },
    ];
    expect(interactiveOf("Did you mean: …", four)).toEqual({
      type: "list",
      body: { text: "Did you mean: …" },
      action: {
        button: "Choose",
        sections: [
          {
            rows: [
              {
                id: "1",
                title: "How much does a bike se…",
                description: "How much does a bike service cost?",
              },
              {
                id: "2",
                title: "How much does a punctur…",
                description: "How much does a puncture repair cost?",
              },
              { id: "3", title: "Where can I park?" },
              {
                id: "4",
                title: "What are your opening h…",
                description: "What are your opening hours on weekdays?",
              },
            ],
          },
        ],
      },
    });
    // A body over 1,024 characters is cut; 3 choices are buttons of at most 20 characters.
    const long = interactiveOf("x".repeat(2000), four.slice(0, 3)) as {
      body: { text: string };
      action: { buttons: { reply: { title: string } }[] };
    };
    expect(long.body.text).toHaveLength(1024);
    expect(long.body.text.endsWith("…")).toBe(true);
    expect(long.action.buttons.map((b) => b.reply.title)).toEqual([
      "How much does a bik…",
      "How much does a pun…",
      "Where can I park?",
    ]);
  });

  it("outside the 24-hour window the buttons are not sent either (free-form, like any text)", async () => {
    const m = {
      body: CHOICES_BODY,
      template: null,
      media_content_type: null,
      suggestions: JSON.stringify(SUGGESTIONS.map((s, i) => ({ ...s, entry: i }))),
    } as unknown as MessageRow;
    const channel = {
      config: { phoneNumberId: PHONE_NUMBER_ID, graphVersion: "v21.0" },
      secrets: { accessToken: "x" },
    } as unknown as DecryptedChannel;
    const before = meta.requests.length;
    const target = { address: "14155550100", phone: null, mediaUrl: null };
    const ctx = {} as AppContext;
    for (const lastInboundAt of [null, Date.now() - 25 * 3600_000]) {
      expect(await whatsappAdapter.send(ctx, channel, m, { ...target, lastInboundAt })).toMatchObject({
        ok: false,
        errorClass: "outside_window",
      });
      expect(await messengerAdapter.send(ctx, channel, m, { ...target, lastInboundAt })).toMatchObject({
        ok: false,
        errorClass: "outside_window",
      });
    }
    expect(meta.requests.length).toBe(before);
  });

  it("a button or list reply is read as the choice's number; another tool's button keeps its title", () => {
    const payload = whatsappMessages(PHONE_NUMBER_ID, { waId: "14155550101", name: "Bo" }, [
      { type: "interactive", interactive: { type: "button_reply", button_reply: { id: "1", title: "On…" } } },
      { type: "interactive", interactive: { type: "list_reply", list_reply: { id: "3", title: "Where…" } } },
      {
        type: "interactive",
        interactive: { type: "button_reply", button_reply: { id: "order-42", title: "Track my order" } },
      },
    ]);
    expect(parseWhatsAppPayload(payload).map((e) => e.kind === "message" && e.body)).toEqual([
      "1",
      "3",
      "Track my order",
    ]);
  });
});

describe("Messenger and Instagram: quick replies", () => {
  for (const [type, object, prefix] of [
    ["messenger", "page", "fb"],
    ["instagram", "instagram", "ig"],
  ] as const) {
    it(`${type}: the choices go as quick replies under the text; the second one's payload gets its answer`, async () => {
      const token = metaToken();
      const { acc, channel } = await shop(type, {
        pageId: PAGE_ID,
        pageAccessToken: token,
        appSecret: APP_SECRET,
      });
      const psid = `${6_000_000_000 + ++seq}`;
      const asked = await metaDeliver(
        channel.inboundUrl!,
        messengerEvent(object, PAGE_ID, [
          { sender: { id: psid }, message: { mid: `m_${randomBytes(8).toString("hex")}`, text: ASK } },
        ]),
      );
      expect(asked.status, asked.body).toBe(200);
      expectChoices(await reply(acc.accountId, 1));
      const offered = sendsWith(token);
      expect(offered).toHaveLength(1);
      expect(offered[0]!.path).toBe(`/v21.0/${PAGE_ID}/messages`);
      expect(offered[0]!.body).toEqual({
        recipient: { id: psid },
        messaging_type: "RESPONSE",
        message: {
          text: CHOICES_BODY,
          quick_replies: [
            { content_type: "text", title: "On weekdays?", payload: "1" },
            { content_type: "text", title: "At weekends?", payload: "2" },
          ],
        },
      });

      // A tap on a quick reply: a message whose text is the title, with the payload beside it.
      const pressed = await metaDeliver(
        channel.inboundUrl!,
        messengerEvent(object, PAGE_ID, [
          {
            sender: { id: psid },
            message: {
              mid: `m_${randomBytes(8).toString("hex")}`,
              text: "At weekends?",
              quick_reply: { payload: "2" },
            },
          },
        ]),
      );
      expect(pressed.status, pressed.body).toBe(200);
      expect(await reply(acc.accountId, 2)).toMatchObject({ body: WEEKEND, bot_outcome: "answer" });
      const inbound = (await messagesOf(acc.accountId)).filter((m) => m.direction === "inbound");
      expect(inbound.map((m) => [m.body, m.from_id, m.external_id?.slice(0, 3)])).toEqual([
        [ASK, psid, `${prefix}:`],
        ["2", psid, `${prefix}:`],
      ]);
      expect(sendsWith(token)[1]!.body).toEqual({
        recipient: { id: psid },
        messaging_type: "RESPONSE",
        message: { text: WEEKEND },
      });
    });
  }
});

describe("Telegram: an inline keyboard", () => {
  const newToken = () =>
    `${700_000_000 + Math.floor(Math.random() * 99_999_999)}:AAE${randomBytes(24).toString("base64url")}`;

  it("the choices go as one button per row; a press (callback_query) gets its answer, once", async () => {
    const token = newToken();
    tg.addBot(token);
    const { acc } = await shop("telegram", { botToken: token });
    // The webhook takes presses as well as messages.
    expect(tg.webhookOf(token)?.allowed_updates).toEqual(["message", "callback_query"]);
    const user = { id: 500_100_000 + ++seq, first_name: "Zoë", last_name: "Choice" };
    const asked = await tg.deliver(token, tg.textUpdate(token, user, ASK), { origin });
    expect(asked.status, asked.body).toBe(200);
    expectChoices(await reply(acc.accountId, 1));
    const offered = tg.calls("sendMessage", token);
    expect(offered.map((c) => c.status)).toEqual([200]);
    expect(offered[0]!.body).toEqual({
      chat_id: String(user.id),
      text: CHOICES_BODY,
      reply_markup: {
        inline_keyboard: [
          [{ text: SUGGESTIONS[0]!.title, callback_data: "1" }],
          [{ text: SUGGESTIONS[1]!.title, callback_data: "2" }],
        ],
      },
    });

    // The person taps the second button: Telegram posts a callback_query naming the bot's message.
    const press = {
      update_id: 900_000_000 + seq,
      callback_query: {
        id: `${4_382_000_000_000 + seq}`,
        from: { id: user.id, is_bot: false, first_name: "Zoë", last_name: "Choice", language_code: "en" },
        message: {
          message_id: 2,
          from: { id: Number(token.split(":")[0]), is_bot: true, first_name: "Shop Bot" },
          chat: { id: user.id, first_name: "Zoë", last_name: "Choice", type: "private" },
          date: Math.floor(Date.now() / 1000),
          text: CHOICES_BODY,
          reply_markup: offered[0]!.body.reply_markup,
        },
        chat_instance: "-5126398143201234567",
        data: "2",
      },
    };
    const pressed = await tg.deliver(token, press, { origin });
    expect(pressed.status, pressed.body).toBe(200);
    // Answered in the webhook's own HTTP response, so the button stops spinning at once.
    expect(JSON.parse(pressed.body)).toEqual({
      method: "answerCallbackQuery",
      callback_query_id: press.callback_query.id,
    });
    expect(JSON.parse(asked.body)).toEqual({ ok: true });
    // Telegram retries an update it did not get a 2xx for: the same press is one message.
    expect((await tg.deliver(token, press, { origin })).status).toBe(200);
    expect(await reply(acc.accountId, 2)).toMatchObject({ body: WEEKEND, bot_outcome: "answer" });
    await t.parley.worker.drain();
    const all = await messagesOf(acc.accountId);
    const inbound = all.filter((m) => m.direction === "inbound");
    expect(inbound.map((m) => [m.body, m.from_id, m.external_id])).toEqual([
      [ASK, String(user.id), expect.stringMatching(/^tg:\d+:\d+$/)],
      ["2", String(user.id), `tg:cb:${press.callback_query.id}`],
    ]);
    expect(new Set(all.map((m) => `${m.conversation_id} ${m.contact_id}`)).size).toBe(1);
    expect(all.filter((m) => m.direction === "outbound")).toHaveLength(2);
    expect(tg.calls("sendMessage", token)[1]!.body).toEqual({ chat_id: String(user.id), text: WEEKEND });
    // The answer Telegram takes in the webhook's own response, for the press not to spin.
    expect(telegramInboundReply(press)).toEqual({
      status: 200,
      contentType: "application/json",
      body: JSON.stringify({ method: "answerCallbackQuery", callback_query_id: press.callback_query.id }),
    });
    expect(telegramInboundReply(tg.textUpdate(token, user, "hi"))).toBeNull();
  });

  it("presses that are not a person's in a private chat yield nothing; the keyboard keeps valid ids only", () => {
    const query = (extra: Record<string, unknown>) => ({
      update_id: 1,
      callback_query: {
        id: "77",
        from: { id: 42, is_bot: false, first_name: "A" },
        message: { message_id: 3, chat: { id: 42, type: "private" }, date: 0 },
        chat_instance: "1",
        data: "1",
        ...extra,
      },
    });
    expect(parseTelegramUpdate(query({}))).toMatchObject([{ kind: "message", body: "1", address: "42" }]);
    for (const bad of [
      { message: undefined, inline_message_id: "AAA" },
      { message: { message_id: 3, chat: { id: -100, type: "group" }, date: 0 } },
      { from: { id: 43, is_bot: true, first_name: "Bot" } },
      { data: undefined, game_short_name: "game" },
      { id: undefined },
    ]) {
      expect(parseTelegramUpdate(query(bad))).toEqual([]);
    }
    expect(keyboardOf([])).toBeNull();
    expect(keyboardOf([{ id: "x".repeat(65), title: "Too long an id", entry: 0 }])).toBeNull();
  });
});

describe("the website chat widget", () => {
  async function widget(
    channelId: string,
    method: "GET" | "POST",
    rest: string,
    token?: string,
    body?: unknown,
  ) {
    const res = await fetch(`${origin}/widget/v1/channels/${channelId}${rest}`, {
      method,
      headers: {
        origin: SHOP,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as unknown };
  }

  it("the bot's message carries its choices; sending the second's title gets its answer", async () => {
    const { acc, channel } = await shop("web", { allowedOrigins: [SHOP] });
    const visitor = await widget(channel.id, "POST", "/visitors");
    expect(visitor.status).toBe(201);
    const token = (visitor.json as { visitorToken: string }).visitorToken;
    const asked = await widget(channel.id, "POST", "/messages", token, { body: ASK, clientMessageId: "c1" });
    expect(asked.status, JSON.stringify(asked.json)).toBe(201);
    expect(asked.json).not.toHaveProperty("suggestions");
    expectChoices(await reply(acc.accountId, 1));
    type Shown = { body: string; sender: string; suggestions?: unknown };
    const shown = (await widget(channel.id, "GET", "/messages", token)).json as Shown[];
    expect(shown.map(({ body, sender, suggestions }) => ({ body, sender, suggestions }))).toEqual([
      { body: ASK, sender: "visitor", suggestions: undefined },
      { body: CHOICES_BODY, sender: "bot", suggestions: SUGGESTIONS },
    ]);

    // What the widget's button sends: the choice's question, as the visitor's message.
    const pressed = await widget(channel.id, "POST", "/messages", token, {
      body: SUGGESTIONS[1]!.title,
      clientMessageId: "c2",
    });
    expect(pressed.status).toBe(201);
    expect(await reply(acc.accountId, 2)).toMatchObject({ body: WEEKEND, bot_outcome: "answer" });
    const after = (await widget(channel.id, "GET", "/messages", token)).json as Shown[];
    expect(after.slice(2)).toEqual([
      expect.objectContaining({ body: SUGGESTIONS[1]!.title, sender: "visitor" }),
      expect.objectContaining({ body: WEEKEND, sender: "bot" }),
    ]);
    expect(after[3]).not.toHaveProperty("suggestions");
  });
});

describe("SMS through Twilio: no buttons", () => {
  it("the choices arrive as the numbered text; the customer's 2 gets its answer", async () => {
    const { acc, channel } = await shop("twilio_sms", {
      accountSid: tw.accountSid,
      authToken: tw.authToken,
      from: tw.number,
    });
    const from = "+14155550188";
    const asked = await tw.incoming(channel.inboundUrl!, { from, body: ASK });
    expect(asked.answer.status, asked.answer.body).toBe(200);
    expectChoices(await reply(acc.accountId, 1));
    const sent = () => tw.requests.filter((r) => r.form.To === from).map((r) => r.form.Body);
    expect(sent()).toEqual([CHOICES_BODY]);
    expect((await tw.incoming(channel.inboundUrl!, { from, body: "2" })).answer.status).toBe(200);
    await reply(acc.accountId, 2);
    expect(sent()).toEqual([CHOICES_BODY, WEEKEND]);
  });
});

describe("button labels", () => {
  it("cut to the limit; alike questions lose their shared words; numbered as a last resort", () => {
    expect(buttonLabels(SUGGESTIONS, 20)).toEqual(["On weekdays?", "At weekends?"]);
    expect(buttonLabels(SUGGESTIONS, 60)).toEqual(SUGGESTIONS.map((s) => s.title));
    expect(buttonLabels([{ id: "1", title: "Where can I park my bike overnight?" }], 20)).toEqual([
      "Where can I park my…",
    ]);
    const alike = [
      { id: "1", title: "Opening hours weekdays" },
      { id: "2", title: "Opening hours weekends" },
    ];
    expect(buttonLabels(alike, 6)).toEqual(["Weekd…", "Weeke…"]);
    // Without the words they share, the tails still read the same when cut: numbered.
    expect(buttonLabels(alike, 5)).toEqual(["1. O…", "2. O…"]);
    expect(pressedBody("2", "At weekends?")).toBe("2");
    expect(pressedBody(" 3 ", null)).toBe("3");
    expect(pressedBody("order-42", "Track my order")).toBe("Track my order");
    expect(pressedBody(null, null)).toBe("");
  });
});

// The telegram channel end to end, on SQLite and on PostgreSQL: the real app listening on 127.0.0.1 (its
// PUBLIC_URL an https:// address, as Telegram demands; updates are posted to the listening port, as a
// TLS-terminating proxy would), the real worker, and a local stand-in for the Bot API
// (test/stand-ins/telegram.ts). Covered: setWebhook on create (token masked in every answer), a refused
// token, updates checked by their secret token header and stored once, the bot's replies through
// sendMessage (retried on a 500, failed with Telegram's description on a 400, the channel `error` on a
// 401), a photo fetched through getFile, deleteWebhook on delete, and the update parser's defences.
import { createHash, randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  parseTelegramUpdate,
  splitText,
  telegramAdapter,
} from "../src/modules/channels/adapters/telegram.ts";
import { json, type Page, startTestApp, type TestApp } from "./helpers.ts";
import { startTelegramStandIn, type TelegramStandIn, type TelegramUser } from "./stand-ins/telegram.ts";

const PUBLIC_URL = "https://parley.example.com";
const KNOWLEDGE = [{ question: "What are your opening hours?", answer: "We are open 9 to 6." }];
// The start of a JPEG (what file-type recognises), as Telegram's file server would serve a photo.
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  Buffer.from("JFIF\0"),
  randomBytes(200),
]);

type Channel = {
  id: string;
  type: string;
  status: string;
  lastError: string | null;
  config: Record<string, unknown>;
  inboundUrl: string | null;
};
type Conversation = { id: string; contactId: string; channelId: string | null };
type Attempt = {
  statusCode: number | null;
  errorClass: string | null;
  attemptNumber: number | null;
  nextAttemptAt: string | null;
};
type Message = {
  id: string;
  conversationId: string;
  direction: string;
  sender: string;
  body: string;
  status: string;
  messageSid: string | null;
  media: { state: string; contentType: string | null; size: number | null; sha256: string | null } | null;
  error: { errorClass: string; message: string; statusCode: number | null } | null;
  deliveryAttempts: Attempt[];
};

let t: TestApp;
let tg: TelegramStandIn;
/** Where the app listens (the stand-in posts updates there instead of PUBLIC_URL's host). */
let origin: string;
let userSeq = 0;

/** A token as BotFather gives it, unique to the test. */
const newToken = () =>
  `${700_000_000 + Math.floor(Math.random() * 99_999_999)}:AAE${randomBytes(24).toString("base64url")}`;
const newUser = (): TelegramUser => ({
  id: 500_000_000 + ++userSeq,
  first_name: "Zoë",
  last_name: `Tester${userSeq}`,
  username: `zoe_${userSeq}`,
});

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 10_000) {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await t.parley.worker.drain();
    await new Promise((r) => setTimeout(r, 25));
  }
}

const call = (apiKey: string, method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: unknown) =>
  t.inject({
    method,
    url,
    headers: { "x-api-key": apiKey },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

/** An account whose default campaign knows its opening hours, with a telegram channel for `token`. */
async function shop(token = newToken(), opts: { addBot?: boolean } = {}) {
  if (opts.addBot !== false) tg.addBot(token);
  const acc = await t.account();
  const campaigns = json<Page<{ id: string; isDefault: boolean }>>(
    await call(acc.apiKey, "GET", "/v1/campaigns"),
  );
  const campaignId = campaigns.data.find((c) => c.isDefault)!.id;
  const patched = await call(acc.apiKey, "PATCH", `/v1/campaigns/${campaignId}`, { knowledge: KNOWLEDGE });
  expect(patched.statusCode, patched.body).toBe(200);
  const res = await call(acc.apiKey, "POST", "/v1/channels", {
    type: "telegram",
    name: "Shop bot",
    config: { botToken: token },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { acc, token, channel: json<Channel>(res), createBody: res.body };
}

const conversations = async (apiKey: string) =>
  json<Page<Conversation>>(await call(apiKey, "GET", "/v1/conversations")).data;
const messagesOf = async (apiKey: string, contactId: string) =>
  json<Page<Message>>(await call(apiKey, "GET", `/v1/contacts/${contactId}/messages`)).data;
const messageById = async (apiKey: string, id: string) =>
  json<Message>(await call(apiKey, "GET", `/v1/messages/${id}`));
const channelOf = async (apiKey: string, id: string) =>
  json<Channel>(await call(apiKey, "GET", `/v1/channels/${id}`));
const messageCount = async (accountId: string) =>
  Number(
    (
      await t.parley.db.kysely
        .selectFrom("messages")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("account_id", "=", accountId)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** The conversation of the channel and its messages, once `ready` holds for them. */
async function conversationOf(
  apiKey: string,
  channelId: string,
  ready: (messages: Message[]) => boolean = (m) => m.length > 0,
) {
  return waitFor("the channel's conversation", async () => {
    const conv = (await conversations(apiKey)).find((c) => c.channelId === channelId);
    if (!conv) return null;
    const messages = await messagesOf(apiKey, conv.contactId);
    return ready(messages) ? { conv, messages } : null;
  });
}

/** A person asks the bot its opening hours; resolves with the bot's reply once it is done. */
async function askOpeningHours(s: Awaited<ReturnType<typeof shop>>, user = newUser()) {
  const delivered = await tg.deliver(s.token, tg.textUpdate(s.token, user, "What are your opening hours?"), {
    origin,
  });
  expect(delivered.status, delivered.body).toBe(200);
  const { messages } = await conversationOf(s.acc.apiKey, s.channel.id, (m) =>
    m.some((x) => x.sender === "bot"),
  );
  const id = messages.find((m) => m.sender === "bot")!.id;
  // Done: sent, or failed with no further attempt scheduled (a failed attempt with a retry due shows
  // failed meanwhile).
  const reply = await waitFor("the bot's reply to be done", async () => {
    const m = await messageById(s.acc.apiKey, id);
    const last = m.deliveryAttempts.at(-1);
    return m.status === "sent" || (m.status === "failed" && last && last.nextAttemptAt === null) ? m : null;
  });
  return { user, reply };
}

beforeAll(async () => {
  tg = await startTelegramStandIn();
  t = await startTestApp({
    TELEGRAM_API_URL: tg.url,
    PUBLIC_URL,
    DELIVERY_RETRY_SCHEDULE: "0.05,0.05,0.05",
  });
  await t.parley.app.listen({ port: 0, host: "127.0.0.1" });
  origin = `http://127.0.0.1:${(t.parley.app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await t?.close();
  await tg?.close();
});

describe("telegram channel: connecting", () => {
  it("creating a channel registers its inbound URL as the bot's webhook with a secret token; the token is masked", async () => {
    const s = await shop();
    expect(s.channel).toMatchObject({
      type: "telegram",
      status: "active",
      lastError: null,
      inboundUrl: `${PUBLIC_URL}/v1/channels/${s.channel.id}/inbound`,
    });
    const calls = tg.calls("setWebhook", s.token);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.status).toBe(200);
    const secret = calls[0]!.body.secret_token as string;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{32,256}$/);
    expect(calls[0]!.body).toEqual({
      url: `${PUBLIC_URL}/v1/channels/${s.channel.id}/inbound`,
      secret_token: secret,
      allowed_updates: ["message", "callback_query"],
    });
    expect(tg.webhookOf(s.token)?.url).toBe(s.channel.inboundUrl);

    // Neither the token nor the webhook secret is ever answered: masked to their last 4 characters.
    expect(s.channel.config.botToken).toBe(`••••${s.token.slice(-4)}`);
    for (const body of [
      s.createBody,
      (await call(s.acc.apiKey, "GET", `/v1/channels/${s.channel.id}`)).body,
    ]) {
      expect(body).not.toContain(s.token.split(":")[1]);
      expect(body).not.toContain(secret);
    }
  });

  it("a token Telegram refuses: the channel is created with status error and Telegram's description", async () => {
    const token = newToken();
    const s = await shop(token, { addBot: false });
    expect(tg.calls("setWebhook", token).map((c) => c.status)).toEqual([401]);
    expect(s.channel.status).toBe("error");
    expect(s.channel.lastError).toContain("Unauthorized");
    expect(s.channel.lastError).not.toContain(token.split(":")[1]);
    expect((await channelOf(s.acc.apiKey, s.channel.id)).status).toBe("error");
  });

  it("a webhook Telegram refuses (its description in lastError), e.g. setWebhook answering 400", async () => {
    const token = newToken();
    tg.addBot(token);
    tg.queue(token, "setWebhook", {
      error_code: 400,
      description: "Bad Request: bad webhook: Failed to resolve host",
    });
    const s = await shop(token, { addBot: false });
    expect(s.channel.status).toBe("error");
    expect(s.channel.lastError).toContain("Bad Request: bad webhook: Failed to resolve host");
  });

  it("deleting the channel deletes the bot's webhook", async () => {
    const s = await shop();
    expect(tg.webhookOf(s.token)).not.toBeNull();
    const res = await call(s.acc.apiKey, "DELETE", `/v1/channels/${s.channel.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(tg.calls("deleteWebhook", s.token).map((c) => c.status)).toEqual([200]);
    expect(tg.webhookOf(s.token)).toBeNull();
  });
});

describe("telegram channel: updates", () => {
  it("an update with the right secret token: 200, then an incoming message in the channel's conversation", async () => {
    const s = await shop();
    const user = newUser();
    const update = tg.textUpdate(s.token, user, "Hello from Telegram");
    const res = await tg.deliver(s.token, update, { origin });
    expect(res.status, res.body).toBe(200);
    const { conv, messages } = await conversationOf(s.acc.apiKey, s.channel.id);
    expect(conv.channelId).toBe(s.channel.id);
    const chatMessage = (update.message as { message_id: number }).message_id;
    expect(messages[0]).toMatchObject({
      direction: "inbound",
      sender: "contact",
      body: "Hello from Telegram",
      conversationId: conv.id,
      messageSid: `tg:${user.id}:${chatMessage}`,
    });
    const contact = json<{ firstName: string | null; lastName: string | null }>(
      await call(s.acc.apiKey, "GET", `/v1/contacts/${conv.contactId}`),
    );
    expect(contact).toMatchObject({ firstName: "Zoë", lastName: user.last_name });
  });

  it("a wrong or missing secret token header: 401 and nothing stored", async () => {
    const s = await shop();
    const user = newUser();
    const wrong = await tg.deliver(s.token, tg.textUpdate(s.token, user, "let me in"), {
      origin,
      secret: "x".repeat(43),
    });
    expect(wrong.status, wrong.body).toBe(401);
    const missing = await tg.deliver(s.token, tg.textUpdate(s.token, user, "let me in"), {
      origin,
      secret: null,
    });
    expect(missing.status, missing.body).toBe(401);
    // Another channel's secret does not open this one either.
    const other = await shop();
    const crossed = await tg.deliver(s.token, tg.textUpdate(s.token, user, "let me in"), {
      origin,
      secret: tg.webhookOf(other.token)!.secret_token,
    });
    expect(crossed.status, crossed.body).toBe(401);
    await t.parley.worker.drain();
    expect(await messageCount(s.acc.accountId)).toBe(0);
    expect(await conversations(s.acc.apiKey)).toEqual([]);
  });

  it("the same update delivered twice (Telegram retries) is stored once", async () => {
    const s = await shop();
    const update = tg.textUpdate(s.token, newUser(), "only once please");
    for (let i = 0; i < 2; i++) {
      const res = await tg.deliver(s.token, update, { origin });
      expect(res.status, res.body).toBe(200);
    }
    await conversationOf(s.acc.apiKey, s.channel.id);
    // Both deliveries' jobs have run: still one incoming message.
    for (let i = 0; i < 3; i++) await t.parley.worker.drain();
    const { messages } = await conversationOf(s.acc.apiKey, s.channel.id);
    expect(messages.filter((m) => m.direction === "inbound").map((m) => m.body)).toEqual([
      "only once please",
    ]);
  });

  it("updates Parley does not handle (an edit, another bot, a group) are accepted and store nothing", async () => {
    const s = await shop();
    const user = newUser();
    const base = tg.textUpdate(s.token, user, "hi") as {
      update_id: number;
      message: Record<string, unknown>;
    };
    const updates = [
      { update_id: base.update_id + 1, edited_message: base.message },
      {
        update_id: base.update_id + 2,
        message: { ...base.message, from: { id: 42, is_bot: true, first_name: "Other bot" } },
      },
      {
        update_id: base.update_id + 3,
        message: { ...base.message, chat: { id: -100123, type: "supergroup", title: "Fans" } },
      },
    ];
    for (const update of updates) {
      const res = await tg.deliver(s.token, update, { origin });
      expect(res.status, res.body).toBe(200);
    }
    for (let i = 0; i < 3; i++) await t.parley.worker.drain();
    expect(await messageCount(s.acc.accountId)).toBe(0);
  });

  it("a photo: fetched through getFile (the largest size) and stored with the message", async () => {
    const s = await shop();
    const { update, largestFileId } = tg.photoUpdate(s.token, newUser(), JPEG, "Is this in stock?");
    const res = await tg.deliver(s.token, update, { origin });
    expect(res.status, res.body).toBe(200);
    const { messages } = await conversationOf(s.acc.apiKey, s.channel.id, (m) =>
      m.some((x) => x.direction === "inbound" && x.media?.state !== "pending"),
    );
    const inbound = messages.find((m) => m.direction === "inbound")!;
    expect(inbound.body).toBe("Is this in stock?");
    expect(inbound.media).toMatchObject({
      state: "stored",
      contentType: "image/jpeg",
      size: JPEG.length,
      sha256: createHash("sha256").update(JPEG).digest("hex"),
    });
    const getFile = tg.calls("getFile", s.token);
    expect(getFile.map((c) => c.body.file_id)).toEqual([largestFileId]);
    const downloads = tg.calls("file", s.token);
    expect(downloads).toHaveLength(1);
    expect(downloads[0]).toMatchObject({
      status: 200,
      body: { file_path: expect.stringMatching(/^photos\//) },
    });
    const media = await call(s.acc.apiKey, "GET", `/v1/messages/${inbound.id}/media`);
    expect(media.statusCode).toBe(200);
    expect(media.rawPayload.equals(JPEG)).toBe(true);
  });
});

describe("telegram channel: replies", () => {
  it("the bot's reply goes out with sendMessage to the person's chat and becomes sent", async () => {
    const s = await shop();
    const { user, reply } = await askOpeningHours(s);
    expect(reply).toMatchObject({ sender: "bot", body: "We are open 9 to 6.", status: "sent", error: null });
    const sent = tg.calls("sendMessage", s.token);
    expect(sent).toHaveLength(1);
    expect(String(sent[0]!.body.chat_id)).toBe(String(user.id));
    expect(sent[0]!.body.text).toBe("We are open 9 to 6.");
    expect(reply.deliveryAttempts).toHaveLength(1);
    expect(reply.deliveryAttempts[0]).toMatchObject({ errorClass: null, attemptNumber: 1 });
  });

  it("sendMessage answering 500, then ok: sent once, both attempts recorded", async () => {
    const s = await shop();
    tg.queue(s.token, "sendMessage", { error_code: 500, description: "Internal Server Error" });
    const { reply } = await askOpeningHours(s);
    expect(reply.status).toBe("sent");
    expect(tg.calls("sendMessage", s.token).map((c) => c.status)).toEqual([500, 200]);
    expect(reply.deliveryAttempts.map((a) => [a.attemptNumber, a.statusCode, a.errorClass])).toEqual([
      [1, 500, "provider_unavailable"],
      [2, null, null],
    ]);
  });

  it("a final error answer (400 chat not found): the reply fails with Telegram's description, no retry", async () => {
    const s = await shop();
    tg.queue(s.token, "sendMessage", { error_code: 400, description: "Bad Request: chat not found" });
    const { reply } = await askOpeningHours(s);
    expect(reply.status).toBe("failed");
    expect(reply.error?.message).toContain("Bad Request: chat not found");
    expect(reply.error?.statusCode).toBe(400);
    expect(reply.deliveryAttempts).toHaveLength(1);
    expect(tg.calls("sendMessage", s.token)).toHaveLength(1);
    expect((await channelOf(s.acc.apiKey, s.channel.id)).status).toBe("active");
  });

  it("a 401 on send: the reply fails and the channel turns error with Telegram's description", async () => {
    const s = await shop();
    tg.queue(s.token, "sendMessage", { error_code: 401, description: "Unauthorized" });
    const { reply } = await askOpeningHours(s);
    expect(reply.status).toBe("failed");
    expect(reply.error?.message).toContain("Unauthorized");
    expect(reply.error?.message).not.toContain(s.token.split(":")[1]);
    const channel = await channelOf(s.acc.apiKey, s.channel.id);
    expect(channel.status).toBe("error");
    expect(channel.lastError).toContain("Unauthorized");
    expect(channel.lastError).not.toContain(s.token.split(":")[1]);
  });
});

describe("telegram adapter: pure parts", () => {
  it("parseConfig: the token as BotFather gives it; a webhook secret made once and kept", () => {
    const token = newToken();
    const first = telegramAdapter.parseConfig({ botToken: token });
    expect(first.config).toEqual({});
    expect(first.secrets.botToken).toBe(token);
    expect(first.secrets.webhookSecret).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    const renamed = telegramAdapter.parseConfig({}, first);
    expect(renamed.secrets).toEqual(first.secrets);
    const newBot = telegramAdapter.parseConfig({ botToken: newToken() }, first);
    expect(newBot.secrets.webhookSecret).toBe(first.secrets.webhookSecret);
    expect(telegramAdapter.parseConfig({ botToken: token }).secrets.webhookSecret).not.toBe(
      first.secrets.webhookSecret,
    );
    for (const bad of [{}, { botToken: "nope" }, { botToken: 12 }, { botToken: token, other: 1 }]) {
      expect(() => telegramAdapter.parseConfig(bad)).toThrow(/config\./);
    }
  });

  it("parseInbound: a malformed update yields no events and never throws", () => {
    const cases: unknown[] = [
      null,
      "text",
      [],
      {},
      { update_id: 1 },
      { update_id: 1, message: null },
      { update_id: 1, message: { message_id: "1", chat: { id: 1, type: "private" }, from: { id: 1 } } },
      { update_id: 1, message: { message_id: 1, chat: { id: "1", type: "private" }, from: { id: 1 } } },
      { update_id: 1, message: { message_id: 1, chat: { id: 1, type: "private" } } },
      {
        update_id: 1,
        message: { message_id: 1, chat: { id: 1, type: "private" }, from: { id: 1 }, photo: "x" },
      },
      {
        update_id: 1,
        message: { message_id: 1, chat: { id: 1, type: "private" }, from: { id: 1 }, photo: [null] },
      },
      {
        update_id: 1,
        message: { message_id: 1, chat: { id: 1, type: "private" }, from: { id: 1 }, text: 5 },
      },
    ];
    for (const update of cases)
      expect(telegramAdapter.parseInbound!(update), JSON.stringify(update)).toEqual([]);
  });

  it("parseInbound: a document keeps its file id, type and name; the caption is the body", () => {
    const [event] = parseTelegramUpdate({
      update_id: 7,
      message: {
        message_id: 12,
        date: 1,
        chat: { id: 99, type: "private", first_name: "Ana" },
        from: { id: 99, is_bot: false, first_name: "Ana" },
        caption: "my invoice",
        document: {
          file_id: "BQAC-1",
          file_unique_id: "u",
          file_name: "invoice.pdf",
          mime_type: "application/pdf",
        },
      },
    });
    expect(event).toEqual({
      kind: "message",
      externalId: "tg:99:12",
      address: "99",
      contact: { externalId: "tg:99", firstName: "Ana", lastName: null },
      body: "my invoice",
      media: { ref: "BQAC-1", contentType: "application/pdf", fileName: "invoice.pdf" },
    });
  });

  it("splitText: a text longer than Telegram's 4096 characters goes in parts, cut between words", () => {
    const text = `${"word ".repeat(1000)}\n${"more ".repeat(800)}`.trim();
    const parts = splitText(text);
    expect(parts.length).toBe(3);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(4096);
    expect(parts.join(" ").replace(/\s+/g, " ")).toBe(text.replace(/\s+/g, " "));
    expect(splitText("short")).toEqual(["short"]);
  });
});

// A person's reply with an attachment (issue 33): an image or PDF sent with POST
// /app/api/conversations/:id/messages is checked, stored in the file storage and delivered like any
// reply: the signed webhook carries it as `media` {url, contentType}, the url a signed link the
// receiver downloads without an API key. Bad files are a 4xx that stores nothing; another account reads
// nothing. On a Telegram conversation the channel sends it as a photo by the same link. Through the
// real HTTP server, worker, a local receiver and the Telegram stand-in, on SQLite or PostgreSQL.
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { blobKey, sha256Hex } from "../src/modules/messaging/media/store.ts";
import { ownerBrowser } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { makePng } from "./fixtures/png.ts";
import { callWithKey, errorCode, json, startTestApp, type TestApp } from "./helpers.ts";
import { type Receiver, startReceiver } from "./receiver.ts";
import { startTelegramStandIn, type TelegramStandIn } from "./stand-ins/telegram.ts";

let t: TestApp;
let webhook: Receiver;
let tg: TelegramStandIn;
/** Where the app listens (the Telegram stand-in posts updates there; links start with PUBLIC_URL). */
let origin: string;
const PUBLIC_URL = "https://parley.example.com";

const PDF = Buffer.from("%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n");

async function until<T>(what: string, probe: () => T | undefined | null | false) {
  const end = Date.now() + 10_000;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  [webhook, tg] = await Promise.all([startReceiver(), startTelegramStandIn()]);
  t = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "0.05,0.05", TELEGRAM_API_URL: tg.url, PUBLIC_URL });
  await t.parley.app.listen({ port: 0, host: "127.0.0.1" });
  origin = `http://127.0.0.1:${(t.parley.app.server.address() as AddressInfo).port}`;
  t.parley.worker.start();
}, 60_000);

afterAll(async () => {
  await t?.close();
  await webhook?.close();
  await tg?.close();
});

/** An account (bot off) whose webhook is the receiver, its owner signed in, and one conversation. */
async function setup() {
  const { acc, browser } = await ownerBrowser(t);
  await updateSettings(t.parley.db, acc.accountId, {
    bot_active: 0,
    webhook_url: `${webhook.url}/${acc.accountId}`,
  });
  const fromId = `cust-${Math.random().toString(36).slice(2, 8)}`;
  const res = await postIncoming(t, acc.apiKey, {
    customData: customData({ fromId, body: "Can you send the invoice?", channel: "livechat" }),
  });
  expect(res.statusCode, res.body).toBe(200);
  const { conversationId } = json<{ conversationId: string }>(
    await callWithKey(t, "GET", `/v1/messages/${json<{ messageId: string }>(res).messageId}`, acc.apiKey),
  );
  const reply = (payload: unknown) =>
    browser.req({
      method: "POST",
      url: `/app/api/conversations/${conversationId}/messages`,
      payload: payload as object,
    });
  const messageCount = async () =>
    (
      await t.parley.db.kysely
        .selectFrom("messages")
        .select("id")
        .where("account_id", "=", acc.accountId)
        .execute()
    ).length;
  return { acc, browser, fromId, conversationId, reply, messageCount };
}

const stored = async (bytes: Buffer) => (await t.parley.ctx.storage.get(blobKey(sha256Hex(bytes)))) !== null;

describe("attachments in a person's reply", () => {
  it("reach the webhook as media with a signed link, and are downloadable through the message's media routes", async () => {
    const { acc, browser, fromId, reply } = await setup();
    const png = makePng(3, 2);
    const res = await reply({
      body: "Here is the photo",
      attachment: { contentType: "image/png", data: png.toString("base64") },
    });
    expect(res.statusCode, res.body).toBe(201);
    const message = json<{ id: string; media: { state: string; contentType: string; url: string } }>(res);
    expect(message.media).toMatchObject({ state: "stored", contentType: "image/png" });

    const delivered = await until("the delivery", () =>
      webhook.received.find((r) => r.headers["webhook-id"] === message.id),
    );
    const payload = new Webhook(acc.webhookSecret).verify(
      delivered.body,
      delivered.headers as Record<string, string>,
    ) as Record<string, unknown>;
    // The spec's six fields as they always are, the attachment in the additive `media`.
    expect(payload).toMatchObject({
      messageId: message.id,
      userId: expect.any(String),
      body: "Here is the photo",
      toId: fromId,
      channel: "livechat",
      sender: "human",
      media: { url: expect.any(String), contentType: "image/png" },
    });
    const media = payload.media as { url: string };
    const link = new URL(media.url);
    expect(link.pathname).toBe(`/v1/media/${message.id}`);

    // The receiver downloads it without a key; the inbox and /v1 serve the same bytes.
    const viaLink = await t.inject({ method: "GET", url: `${link.pathname}${link.search}` });
    expect(viaLink.statusCode, viaLink.body).toBe(200);
    expect(viaLink.headers["content-type"]).toBe("image/png");
    expect(viaLink.rawPayload.equals(png)).toBe(true);
    const viaApp = await browser.req({ method: "GET", url: message.media.url });
    expect(viaApp.rawPayload.equals(png)).toBe(true);
    const viaKey = await callWithKey(t, "GET", `/v1/messages/${message.id}/media`, acc.apiKey);
    expect(viaKey.statusCode).toBe(200);
    expect(viaKey.rawPayload.equals(png)).toBe(true);

    // A tampered or expired link, or the link of one message used for another: 404, no bytes.
    const tampered = new URL(link);
    tampered.searchParams.set("signature", `${link.searchParams.get("signature")?.slice(0, -2)}xx`);
    const expired = new URL(link);
    expired.searchParams.set("expires", "1000");
    for (const url of [
      `${tampered.pathname}${tampered.search}`,
      `${expired.pathname}${expired.search}`,
      `/v1/media/msg_other${link.search}`,
      `/v1/media/${message.id}`,
    ]) {
      const bad = await t.inject({ method: "GET", url });
      expect([400, 404], `${url}: ${bad.body}`).toContain(bad.statusCode);
      expect(bad.rawPayload.equals(png)).toBe(false);
    }
  });

  it("sends a PDF on its own, without text", async () => {
    const { reply } = await setup();
    const res = await reply({
      body: "",
      attachment: { contentType: "application/pdf", data: PDF.toString("base64") },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = json<{ id: string }>(res).id;
    const delivered = await until("the delivery", () =>
      webhook.received.find((r) => r.headers["webhook-id"] === id),
    );
    const payload = JSON.parse(delivered.body) as { body: string; media: { contentType: string } };
    expect(payload.body).toBe("");
    expect(payload.media.contentType).toBe("application/pdf");
    // Without an attachment, the text is still required.
    const empty = await reply({ body: "  " });
    expect(empty.statusCode).toBe(400);
  });

  it("refuses a wrong type, a file that is not what it says, and a too-big file: 4xx, no message, nothing stored", async () => {
    const { reply, messageCount } = await setup();
    const before = await messageCount();
    const text = Buffer.from(`plain text ${Math.random()}`);
    const wrongType = await reply({
      body: "x",
      attachment: { contentType: "text/plain", data: text.toString("base64") },
    });
    expect(wrongType.statusCode).toBe(400);
    expect(errorCode(wrongType)).toBe("INVALID_MEDIA");
    expect(json<{ error: { message: string } }>(wrongType).error.message).toMatch(/images.*PDF/);

    const notAPng = Buffer.from(`not a png ${Math.random()}`);
    const mismatch = await reply({
      body: "x",
      attachment: { contentType: "image/png", data: notAPng.toString("base64") },
    });
    expect(mismatch.statusCode).toBe(400);
    expect(errorCode(mismatch)).toBe("INVALID_MEDIA");

    const big = Buffer.alloc(16 * 1024 * 1024 + 1, 7);
    PDF.copy(big);
    const tooBig = await reply({
      body: "x",
      attachment: { contentType: "application/pdf", data: big.toString("base64") },
    });
    expect(tooBig.statusCode).toBe(413);
    expect(errorCode(tooBig)).toBe("PAYLOAD_TOO_LARGE");

    expect(await messageCount()).toBe(before);
    for (const bytes of [text, notAPng, big]) expect(await stored(bytes)).toBe(false);
  });

  it("is read by nobody from another account", async () => {
    const a = await setup();
    const b = await setup();
    const png = makePng(2, 5);
    const res = await a.reply({
      body: "Yours",
      attachment: { contentType: "image/png", data: png.toString("base64") },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = json<{ id: string }>(res).id;
    const theirKey = await callWithKey(t, "GET", `/v1/messages/${id}/media`, b.acc.apiKey);
    expect(theirKey.statusCode).toBe(404);
    const theirApp = await b.browser.req({ method: "GET", url: `/app/api/messages/${id}/media` });
    expect(theirApp.statusCode).toBe(404);
    // B's own signed link does not open A's message either (the link names its account).
    const delivered = await until("the delivery", () =>
      webhook.received.find((r) => r.headers["webhook-id"] === id),
    );
    const link = new URL((JSON.parse(delivered.body) as { media: { url: string } }).media.url);
    link.searchParams.set("account", b.acc.accountId);
    const swapped = await t.inject({ method: "GET", url: `${link.pathname}${link.search}` });
    expect(swapped.statusCode).toBe(404);
    // And B cannot send into A's conversation with a file: 404, nothing stored.
    const other = makePng(7, 7);
    const into = await b.browser.req({
      method: "POST",
      url: `/app/api/conversations/${a.conversationId}/messages`,
      payload: { body: "x", attachment: { contentType: "image/png", data: other.toString("base64") } },
    });
    expect(into.statusCode).toBe(404);
    expect(await stored(other)).toBe(false);
  });

  it("goes out on a Telegram conversation as the channel's photo, fetched through the signed link", async () => {
    const { acc, browser } = await ownerBrowser(t);
    await updateSettings(t.parley.db, acc.accountId, { bot_active: 0 });
    const token = `${700_000_000 + Math.floor(Math.random() * 99_999_999)}:AAE${randomBytes(24).toString("base64url")}`;
    tg.addBot(token);
    const created = await callWithKey(t, "POST", "/v1/channels", acc.apiKey, {
      type: "telegram",
      name: "Shop bot",
      config: { botToken: token },
    });
    expect(created.statusCode, created.body).toBe(201);
    const user = { id: 600_000_000 + Math.floor(Math.random() * 1_000_000), first_name: "Ada" };
    const sent = await tg.deliver(token, tg.textUpdate(token, user, "A photo of it, please"), { origin });
    expect(sent.status, sent.body).toBe(200);
    // The conversation the update opened (read from the database: the list would need another call per poll).
    let conversationId = "";
    const end = Date.now() + 10_000;
    while (!conversationId && Date.now() < end) {
      const row = await t.parley.db.kysely
        .selectFrom("conversations")
        .select("id")
        .where("account_id", "=", acc.accountId)
        .executeTakeFirst();
      if (row) conversationId = row.id;
      else await new Promise((r) => setTimeout(r, 25));
    }
    const png = makePng(4, 4);
    const res = await browser.req({
      method: "POST",
      url: `/app/api/conversations/${conversationId}/messages`,
      payload: { body: "Here it is", attachment: { contentType: "image/png", data: png.toString("base64") } },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = json<{ id: string }>(res).id;
    const call = await until("the sendPhoto call", () => tg.calls("sendPhoto", token)[0]);
    expect(call.body).toMatchObject({ chat_id: String(user.id), caption: "Here it is" });
    const link = new URL(String(call.body.photo));
    expect(`${link.origin}${link.pathname}`).toBe(`${PUBLIC_URL}/v1/media/${id}`);
    const fetched = await t.inject({ method: "GET", url: `${link.pathname}${link.search}` });
    expect(fetched.rawPayload.equals(png)).toBe(true);
    expect(tg.calls("sendMessage", token)).toHaveLength(0);
  });
});

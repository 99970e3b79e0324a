// Provider channels on Meta (DESIGN.md section 9, docs/channels.md): WhatsApp Cloud API, Messenger and
// Instagram, against a local stand-in that speaks Meta's documented contract (stand-ins/meta.ts), through
// the real HTTP server and database: the subscription handshake, signed webhooks (and unsigned ones
// refused with nothing kept), idempotent incoming, the bot's reply in the provider's format, status
// callbacks, retries, refused credentials, the 24-hour window and attachments.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerBrowser } from "./app-helpers.ts";
import { drainUntil, json, startTestApp, type TestApp } from "./helpers.ts";
import {
  GRAPH_ERRORS,
  type MetaStandIn,
  messengerEvent,
  metaSignature,
  startMetaStandIn,
  whatsappMessages,
  whatsappStatus,
} from "./stand-ins/meta.ts";

const PUBLIC_URL = "https://parley.example";
const PHONE_NUMBER_ID = "106540352242922";
const PAGE_ID = "1122334455667";
const APP_SECRET = "3f9a1c0e5b7d4a2e8c6f1b0d9e7a5c3b";
const VERIFY_TOKEN = "meta-verify-token-42";
const KNOWLEDGE = [{ question: "What are your opening hours?", answer: "We are open 9 to 6." }];
// The smallest PNG (1×1, transparent): real bytes the attachment check recognises.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

type Channel = {
  id: string;
  status: string;
  lastError: string | null;
  config: Record<string, unknown>;
  inboundUrl: string;
};
type Message = { id: string; status: string; body: string; direction: string; error: unknown };

let t: TestApp;
let meta: MetaStandIn;
let tokenSeq = 0;

beforeAll(async () => {
  meta = await startMetaStandIn();
  t = await startTestApp({
    META_GRAPH_URL: meta.url,
    PUBLIC_URL,
    DELIVERY_RETRY_SCHEDULE: "0.05,0.05,0.05",
  });
});
afterAll(async () => {
  await t.close();
  await meta.close();
});

const call = (apiKey: string, method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: unknown) =>
  t.inject({
    method,
    url,
    headers: { "x-api-key": apiKey },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

const waitFor = (check: () => Promise<boolean> | boolean, timeoutMs?: number) =>
  drainUntil(t, check, timeoutMs);

/** A webhook POST exactly as Meta sends it: JSON, signed over the raw bytes with the app secret. */
function deliver(channelId: string, payload: unknown, signature?: string | null) {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { "content-type": "application/json" };
  const sig = signature === undefined ? metaSignature(APP_SECRET, body) : signature;
  if (sig !== null) headers["x-hub-signature-256"] = sig;
  return t.inject({ method: "POST", url: `/v1/channels/${channelId}/inbound`, headers, payload: body });
}

async function shop(type: "whatsapp" | "messenger" | "instagram" = "whatsapp") {
  const { acc, browser } = await ownerBrowser(t);
  const campaigns = json<{ data: { id: string; isDefault: boolean }[] }>(
    await call(acc.apiKey, "GET", "/v1/campaigns"),
  );
  const def = campaigns.data.find((c) => c.isDefault)!;
  expect(
    (await call(acc.apiKey, "PATCH", `/v1/campaigns/${def.id}`, { knowledge: KNOWLEDGE })).statusCode,
  ).toBe(200);
  const token = `EAAG${++tokenSeq}xYzTokenFromMetaBusinessSettings${tokenSeq}`;
  meta.tokens.add(token);
  const config =
    type === "whatsapp"
      ? {
          phoneNumberId: PHONE_NUMBER_ID,
          accessToken: token,
          appSecret: APP_SECRET,
          verifyToken: VERIFY_TOKEN,
        }
      : { pageId: PAGE_ID, pageAccessToken: token, appSecret: APP_SECRET, verifyToken: VERIFY_TOKEN };
  const res = await call(acc.apiKey, "POST", "/v1/channels", { type, name: `Our ${type}`, config });
  expect(res.statusCode, res.body).toBe(201);
  return { acc, browser, token, channel: json<Channel>(res) };
}

const db = () => t.parley.db.kysely;
const messagesOf = (accountId: string) =>
  db().selectFrom("messages").selectAll().where("account_id", "=", accountId).orderBy("id").execute();
const inboundJobs = (accountId: string) =>
  db()
    .selectFrom("jobs")
    .select("id")
    .where("account_id", "=", accountId)
    .where("type", "=", "channel.inbound")
    .execute();

/** The bot's reply to an inbound message, once it has a final status. */
async function botReplyTo(accountId: string, status: string[] = ["sent", "failed"]) {
  let reply: Awaited<ReturnType<typeof messagesOf>>[number] | undefined;
  await waitFor(async () => {
    reply = (await messagesOf(accountId)).find((m) => m.direction === "outbound");
    return reply !== undefined && status.includes(reply.status);
  });
  return reply!;
}

describe("WhatsApp Cloud API", () => {
  it("creates a channel with its secrets masked and the URL to paste back into Meta's console", async () => {
    const { channel, token } = await shop();
    expect(channel).toMatchObject({
      status: "active",
      lastError: null,
      inboundUrl: `${PUBLIC_URL}/v1/channels/${channel.id}/inbound`,
      config: {
        phoneNumberId: PHONE_NUMBER_ID,
        graphVersion: "v21.0",
        accessToken: `••••${token.slice(-4)}`,
      },
    });
    expect(JSON.stringify(channel)).not.toContain(token);
    expect(JSON.stringify(channel)).not.toContain(APP_SECRET);
    const row = await db()
      .selectFrom("channels")
      .selectAll()
      .where("id", "=", channel.id)
      .executeTakeFirstOrThrow();
    expect(`${row.config}${row.secrets}`).not.toContain(token);
  });

  it("refuses a config without its credentials, naming the field", async () => {
    const acc = await t.account();
    const res = await call(acc.apiKey, "POST", "/v1/channels", {
      type: "whatsapp",
      name: "WA",
      config: { phoneNumberId: PHONE_NUMBER_ID, appSecret: APP_SECRET },
    });
    expect(res.statusCode).toBe(400);
    expect(json<{ error: { code: string; message: string } }>(res).error).toMatchObject({
      code: "INVALID_CHANNEL_CONFIG",
      message: expect.stringContaining("accessToken"),
    });
  });

  it("answers Meta's verification handshake with the challenge, and 403 for a wrong token", async () => {
    const { channel } = await shop();
    const ok = await t.inject({
      method: "GET",
      url: `/v1/channels/${channel.id}/inbound?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe("1158201444");
    const wrong = await t.inject({
      method: "GET",
      url: `/v1/channels/${channel.id}/inbound?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1158201444`,
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.body).not.toContain("1158201444");
  });

  it("refuses an unsigned or wrongly signed webhook with 401 and keeps nothing", async () => {
    const { acc, channel } = await shop();
    const payload = whatsappMessages(PHONE_NUMBER_ID, { waId: "14155550101", name: "Mallory" }, [
      { type: "text", text: { body: "hello" } },
    ]);
    expect((await deliver(channel.id, payload, null)).statusCode).toBe(401);
    expect(
      (await deliver(channel.id, payload, metaSignature("another-secret", JSON.stringify(payload))))
        .statusCode,
    ).toBe(401);
    expect((await deliver(channel.id, payload, "sha256=00")).statusCode).toBe(401);
    await t.parley.worker.drain();
    expect(await inboundJobs(acc.accountId)).toEqual([]);
    expect(await messagesOf(acc.accountId)).toEqual([]);
    // An unknown channel (or a website chat's id) has no inbound URL at all.
    expect((await deliver("ch_unknown", payload)).statusCode).toBe(404);
    const site = await call(acc.apiKey, "POST", "/v1/channels", {
      type: "web",
      name: "Site",
      config: { allowedOrigins: ["https://shop.example"] },
    });
    expect((await deliver(json<Channel>(site).id, payload)).statusCode).toBe(404);
  });

  it("takes a signed message once (Meta retries), as the phone's contact, and the bot's answer goes out in WhatsApp's format", async () => {
    const { acc, channel, token } = await shop();
    const existing = json<{ id: string }>(
      await call(acc.apiKey, "POST", "/v1/contacts", { phone: "+14155550123" }),
    );
    const payload = whatsappMessages(PHONE_NUMBER_ID, { waId: "14155550123", name: "Maria Lopez" }, [
      { type: "text", text: { body: "What are your opening hours?" } },
    ]);
    const first = await deliver(channel.id, payload);
    expect(first.statusCode, first.body).toBe(200);
    expect((await deliver(channel.id, payload)).statusCode).toBe(200);
    const sendsBefore = meta.sends().length;
    const reply = await botReplyTo(acc.accountId);
    const all = await messagesOf(acc.accountId);
    expect(all.filter((m) => m.direction === "inbound")).toHaveLength(1);
    const inbound = all.find((m) => m.direction === "inbound")!;
    expect(inbound).toMatchObject({
      contact_id: existing.id,
      body: "What are your opening hours?",
      from_id: "14155550123",
    });
    const contact = json<{ firstName: string | null; phone: string }>(
      await call(acc.apiKey, "GET", `/v1/contacts/${existing.id}`),
    );
    expect(contact).toMatchObject({ firstName: "Maria Lopez", phone: "+14155550123" });
    const conversations = json<{ data: { id: string; channelId: string | null }[] }>(
      await call(acc.apiKey, "GET", "/v1/conversations"),
    );
    expect(conversations.data.map((c) => c.channelId)).toEqual([channel.id]);

    expect(reply).toMatchObject({ status: "sent", body: "We are open 9 to 6." });
    const sent = meta
      .sends()
      .slice(sendsBefore - 1)
      .filter((r) => r.authorization === `Bearer ${token}`);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe(`/v21.0/${PHONE_NUMBER_ID}/messages`);
    expect(sent[0]!.body).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "14155550123",
      type: "text",
      text: { preview_url: false, body: "We are open 9 to 6." },
    });
    expect(reply.provider_message_id).toMatch(/^wamid\./);

    // Meta's status callbacks move the reply forward, never back.
    for (const status of ["delivered", "read", "delivered"] as const) {
      const res = await deliver(
        channel.id,
        whatsappStatus(PHONE_NUMBER_ID, reply.provider_message_id!, "14155550123", status),
      );
      expect(res.statusCode).toBe(200);
      await t.parley.worker.drain();
    }
    const seen = json<Message>(await call(acc.apiKey, "GET", `/v1/messages/${reply.id}`));
    expect(seen.status).toBe("read");
  });

  it("a failed status carries Meta's error code and title", async () => {
    const { acc, channel } = await shop();
    await deliver(
      channel.id,
      whatsappMessages(PHONE_NUMBER_ID, { waId: "14155550124", name: "Sam" }, [
        { type: "text", text: { body: "What are your opening hours?" } },
      ]),
    );
    const reply = await botReplyTo(acc.accountId);
    expect(reply.status).toBe("sent");
    await deliver(
      channel.id,
      whatsappStatus(PHONE_NUMBER_ID, reply.provider_message_id!, "14155550124", "failed", {
        code: 131026,
        title: "Message undeliverable",
      }),
    );
    await waitFor(
      async () => (await messagesOf(acc.accountId)).find((m) => m.id === reply.id)?.status === "failed",
    );
    const failed = json<{ status: string; error: { message: string } }>(
      await call(acc.apiKey, "GET", `/v1/messages/${reply.id}`),
    );
    expect(JSON.stringify(failed.error)).toContain("131026");
    expect(JSON.stringify(failed.error)).toContain("Message undeliverable");
  });

  it("Meta answering 500 then 200: the reply ends Sent, sent once, two attempts recorded", async () => {
    const { acc, channel, token } = await shop();
    meta.forceSends(GRAPH_ERRORS.serverError);
    await deliver(
      channel.id,
      whatsappMessages(PHONE_NUMBER_ID, { waId: "14155550125", name: "Lee" }, [
        { type: "text", text: { body: "What are your opening hours?" } },
      ]),
    );
    const reply = await botReplyTo(acc.accountId, ["sent"]);
    const mine = meta.sends().filter((r) => r.authorization === `Bearer ${token}`);
    expect(mine).toHaveLength(2);
    const attempts = await db()
      .selectFrom("delivery_attempts")
      .selectAll()
      .where("message_id", "=", reply.id)
      .orderBy("attempt_number")
      .execute();
    expect(attempts.map((a) => [a.attempt_number, a.status_code, a.error_class])).toEqual([
      [1, 500, "provider_unavailable"],
      [2, null, null],
    ]);
  });

  it("a token Meta refuses fails the reply and turns the channel error with Meta's reason", async () => {
    const { acc, channel, token } = await shop();
    meta.tokens.delete(token);
    await deliver(
      channel.id,
      whatsappMessages(PHONE_NUMBER_ID, { waId: "14155550126", name: "Kim" }, [
        { type: "text", text: { body: "What are your opening hours?" } },
      ]),
    );
    const reply = await botReplyTo(acc.accountId, ["failed"]);
    expect(JSON.parse(reply.error!)).toMatchObject({ errorClass: "credentials_refused" });
    const ch = json<Channel>(await call(acc.apiKey, "GET", `/v1/channels/${channel.id}`));
    expect(ch.status).toBe("error");
    expect(ch.lastError).toContain("Error validating access token");
    expect(ch.lastError).not.toContain(token);
    // A new token and a resume: active again.
    const fresh = `${token}-renewed`;
    meta.tokens.add(fresh);
    const fixed = await call(acc.apiKey, "PATCH", `/v1/channels/${channel.id}`, {
      config: { accessToken: fresh },
      status: "active",
    });
    expect(json<Channel>(fixed)).toMatchObject({ status: "active", lastError: null });
  });

  it("outside the 24-hour window a reply is marked Failed with that reason and never sent", async () => {
    const { acc, browser, channel, token } = await shop();
    await deliver(
      channel.id,
      whatsappMessages(PHONE_NUMBER_ID, { waId: "14155550127", name: "Old" }, [
        { type: "text", text: { body: "hello there" } },
      ]),
    );
    await waitFor(async () => (await messagesOf(acc.accountId)).some((m) => m.direction === "inbound"));
    await t.parley.worker.drain();
    // The customer wrote 25 hours ago.
    await db()
      .updateTable("messages")
      .set({ created_at: Date.now() - 25 * 3600_000 })
      .where("account_id", "=", acc.accountId)
      .where("direction", "=", "inbound")
      .execute();
    const conversation = (await messagesOf(acc.accountId))[0]!.conversation_id;
    const before = meta.sends().filter((r) => r.authorization === `Bearer ${token}`).length;
    const sent = await browser.req({
      method: "POST",
      url: `/app/api/conversations/${conversation}/messages`,
      payload: { body: "Sorry for the late answer" },
    });
    expect(sent.statusCode, sent.body).toBeLessThan(300);
    const id = json<{ id: string }>(sent).id;
    await waitFor(
      async () => (await messagesOf(acc.accountId)).find((m) => m.id === id)?.status === "failed",
    );
    const failed = (await messagesOf(acc.accountId)).find((m) => m.id === id)!;
    expect(JSON.parse(failed.error!)).toMatchObject({
      errorClass: "outside_window",
      message: expect.stringContaining("24 hours"),
    });
    expect(meta.sends().filter((r) => r.authorization === `Bearer ${token}`).length).toBe(before);
  });

  it("an image is fetched through the Graph API with the token and stored with the message", async () => {
    const { acc, channel } = await shop();
    meta.addMedia("1037543291543636", "image/png", PNG);
    await deliver(
      channel.id,
      whatsappMessages(PHONE_NUMBER_ID, { waId: "14155550128", name: "Pic" }, [
        {
          type: "image",
          image: { id: "1037543291543636", mime_type: "image/png", sha256: "x", caption: "my receipt" },
        },
      ]),
    );
    await waitFor(async () => (await messagesOf(acc.accountId)).some((m) => m.direction === "inbound"));
    const inbound = (await messagesOf(acc.accountId)).find((m) => m.direction === "inbound")!;
    expect(inbound).toMatchObject({
      body: "my receipt",
      media_state: "stored",
      media_content_type: "image/png",
      media_size: PNG.length,
    });
    const file = await call(acc.apiKey, "GET", `/v1/messages/${inbound.id}/media`);
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(PNG)).toBe(true);
  });
});

describe("WhatsApp outgoing campaigns", () => {
  it("send each member with a phone an approved template (its parameters filled per member), skip those without", async () => {
    const { acc, channel, token } = await shop();
    const list = json<{ id: string }>(await call(acc.apiKey, "POST", "/v1/lists", { name: "Customers" }));
    const members = [
      { firstName: "Ana", phone: "+14155550201" },
      { phone: "+14155550202" },
      { firstName: "No Phone", email: "nophone@example.com" },
    ];
    for (const m of members) {
      const c = json<{ id: string }>(await call(acc.apiKey, "POST", "/v1/contacts", m));
      await call(acc.apiKey, "POST", `/v1/lists/${list.id}/contacts`, { contactId: c.id });
    }
    const outgoing = {
      message: "Order update for {{firstName|there}}",
      listId: list.id,
      channelId: channel.id,
      ratePerMinute: 600,
    };
    // WhatsApp delivers a first message only as an approved template: without one, 400.
    const refused = await call(acc.apiKey, "POST", "/v1/campaigns", { name: "No template", outgoing });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain("outgoing.template");
    const made = await call(acc.apiKey, "POST", "/v1/campaigns", {
      name: "Order updates",
      status: "live",
      outgoing: {
        ...outgoing,
        template: { name: "order_update", language: "en_US", parameters: ["{{firstName|there}}"] },
      },
    });
    expect(made.statusCode, made.body).toBe(201);
    const campaign = json<{ id: string; outgoing: Record<string, unknown> }>(made);
    expect(campaign.outgoing).toMatchObject({
      channelId: channel.id,
      template: { name: "order_update", language: "en_US", parameters: ["{{firstName|there}}"] },
    });
    const before = meta.sends().length;
    expect((await call(acc.apiKey, "POST", `/v1/campaigns/${campaign.id}/start`)).statusCode).toBe(200);
    await waitFor(async () => {
      const stats = json<{ state: string; sent: number }>(
        await call(acc.apiKey, "GET", `/v1/campaigns/${campaign.id}/stats`),
      );
      return stats.state === "done" && stats.sent === 2;
    });
    const sent = meta
      .sends()
      .slice(before)
      .filter((r) => r.authorization === `Bearer ${token}`);
    const byTo = Object.fromEntries(sent.map((r) => [r.body!.to, r.body]));
    expect(Object.keys(byTo).sort()).toEqual(["14155550201", "14155550202"]);
    expect(byTo["14155550201"]).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "14155550201",
      type: "template",
      template: {
        name: "order_update",
        language: { code: "en_US" },
        components: [{ type: "body", parameters: [{ type: "text", text: "Ana" }] }],
      },
    });
    expect(JSON.stringify(byTo["14155550202"])).toContain('"text":"there"');
    const stats = json<{ skippedByReason: Record<string, number> }>(
      await call(acc.apiKey, "GET", `/v1/campaigns/${campaign.id}/stats`),
    );
    expect(stats.skippedByReason).toMatchObject({ no_phone: 1, no_custom_channel_id: 0 });
    // The inbox shows the campaign's words for it, in the member's WhatsApp conversation.
    const conversations = json<{ data: { channelId: string | null }[] }>(
      await call(acc.apiKey, "GET", "/v1/conversations"),
    );
    expect(conversations.data.map((c) => c.channelId)).toEqual([channel.id, channel.id]);
  });
});

describe("Messenger and Instagram", () => {
  for (const [type, object] of [
    ["messenger", "page"],
    ["instagram", "instagram"],
  ] as const) {
    it(`${type}: a signed message is answered through the Send API with messaging_type RESPONSE; a delivery receipt moves the reply`, async () => {
      const { acc, browser, channel, token } = await shop(type);
      const psid = type === "messenger" ? "6789012345678901" : "17841400000000001";
      const payload = messengerEvent(object, PAGE_ID, [
        { sender: { id: psid }, message: { mid: `m_${type}_1`, text: "What are your opening hours?" } },
      ]);
      expect((await deliver(channel.id, payload, null)).statusCode).toBe(401);
      expect((await deliver(channel.id, payload)).statusCode).toBe(200);
      expect((await deliver(channel.id, payload)).statusCode).toBe(200);
      const reply = await botReplyTo(acc.accountId);
      expect(reply.status).toBe("sent");
      expect((await messagesOf(acc.accountId)).filter((m) => m.direction === "inbound")).toHaveLength(1);
      const sent = meta.sends().filter((r) => r.authorization === `Bearer ${token}`);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.path).toBe(`/v21.0/${PAGE_ID}/messages`);
      expect(sent[0]!.body).toEqual({
        recipient: { id: psid },
        messaging_type: "RESPONSE",
        message: { text: "We are open 9 to 6." },
      });
      const contact = await db()
        .selectFrom("contacts")
        .selectAll()
        .where("id", "=", reply.contact_id)
        .executeTakeFirstOrThrow();
      expect(contact.external_id).toBe(`${type === "messenger" ? "fb" : "ig"}:${psid}`);
      await deliver(
        channel.id,
        messengerEvent(object, PAGE_ID, [
          { sender: { id: psid }, delivery: { mids: [reply.provider_message_id], watermark: Date.now() } },
        ]),
      );
      await waitFor(
        async () => (await messagesOf(acc.accountId)).find((m) => m.id === reply.id)?.status === "delivered",
      );
      // The same subscription handshake as WhatsApp.
      const hub = await t.inject({
        method: "GET",
        url: `/v1/channels/${channel.id}/inbound?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=42`,
      });
      expect([hub.statusCode, hub.body]).toEqual([200, "42"]);
      // Outside the 24-hour window a reply is refused before the Send API is called.
      await db()
        .updateTable("messages")
        .set({ created_at: Date.now() - 25 * 3600_000 })
        .where("account_id", "=", acc.accountId)
        .where("direction", "=", "inbound")
        .execute();
      const late = await browser.req({
        method: "POST",
        url: `/app/api/conversations/${reply.conversation_id}/messages`,
        payload: { body: "Sorry for the wait" },
      });
      expect(late.statusCode, late.body).toBeLessThan(300);
      const lateId = json<{ id: string }>(late).id;
      await waitFor(
        async () => (await messagesOf(acc.accountId)).find((m) => m.id === lateId)?.status === "failed",
      );
      const failed = (await messagesOf(acc.accountId)).find((m) => m.id === lateId)!;
      expect(JSON.parse(failed.error!)).toMatchObject({ errorClass: "outside_window" });
      expect(meta.sends().filter((r) => r.authorization === `Bearer ${token}`)).toHaveLength(1);
    });
  }
});

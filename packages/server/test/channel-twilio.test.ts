// The `twilio_sms` channel end to end: a real Parley (real HTTP stack, real database, real worker)
// against a local stand-in of Twilio's Messages API (test/stand-ins/twilio.ts). Twilio's webhooks are
// built and signed exactly as Twilio does (form-encoded, X-Twilio-Signature over PUBLIC_URL + path and
// the parameters) and injected on the inbound path; Parley's calls to Twilio reach the stand-in over
// HTTP through the outbound address guard.
import { getExpectedTwilioSignature } from "twilio/lib/webhooks/webhooks.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { twilioAdapter } from "../src/modules/channels/adapters/twilio.ts";
import { decryptChannel } from "../src/modules/channels/service.ts";
import { makePng } from "./fixtures/png.ts";
import { drainUntil, errorCode, json, type Page, startTestApp, type TestApp } from "./helpers.ts";
import {
  startTwilioStandIn,
  type TwilioStandIn,
  twilioError,
  twilioSid,
  type WebhookRequest,
} from "./stand-ins/twilio.ts";

type Channel = {
  id: string;
  type: string;
  status: string;
  lastError: string | null;
  config: Record<string, unknown>;
  inboundUrl: string | null;
};
type MessageView = {
  id: string;
  conversationId: string;
  contactId: string;
  direction: string;
  sender: string;
  body: string;
  status: string;
  fromId: string | null;
  media: { state: string; contentType: string | null; size: number | null } | null;
  error: { errorClass: string; message: string } | null;
};
type Contact = { id: string; phone: string | null; smsOptedOutAt: string | null };

const PUBLIC_URL = "https://parley.example";
const HOURS_Q = "What are your opening hours?";
const HOURS_A = "We are open 9 to 6.";

let t: TestApp;
let tw: TwilioStandIn;
let phoneCounter = 0;
/** A sender number no other test uses. */
const newPhone = () => `+1415555${String(1000 + ++phoneCounter).padStart(4, "0")}`;

/** Twilio's POST, injected on the path of the URL it signed (PUBLIC_URL's). */
async function inject(req: WebhookRequest) {
  const url = new URL(req.url);
  const res = await t.inject({
    method: "POST",
    url: url.pathname + url.search,
    headers: req.headers,
    payload: req.body,
  });
  return { status: res.statusCode, body: res.body, headers: res.headers as Record<string, unknown> };
}

/** Runs the queued jobs (inbound, bot replies, deliveries) until the check holds. */
const waitFor = (check: () => Promise<boolean> | boolean, timeoutMs?: number) =>
  drainUntil(t, check, timeoutMs);

const call = (apiKey: string, method: string, url: string, payload?: unknown) =>
  t.inject({
    method: method as "POST",
    url,
    headers: { "x-api-key": apiKey },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

const twilioConfig = (extra: Record<string, unknown> = {}) => ({
  accountSid: tw.accountSid,
  authToken: tw.authToken,
  from: tw.number,
  ...extra,
});

/** An account whose default campaign knows its opening hours, with an SMS channel on the stand-in. */
async function smsShop() {
  const acc = await t.account();
  const campaigns = json<Page<{ id: string; isDefault: boolean }>>(
    await call(acc.apiKey, "GET", "/v1/campaigns"),
  );
  const campaignId = campaigns.data.find((c) => c.isDefault)!.id;
  const patched = await call(acc.apiKey, "PATCH", `/v1/campaigns/${campaignId}`, {
    knowledge: [{ question: HOURS_Q, answer: HOURS_A }],
  });
  expect(patched.statusCode, patched.body).toBe(200);
  const res = await call(acc.apiKey, "POST", "/v1/channels", {
    type: "twilio_sms",
    name: "SMS",
    config: twilioConfig(),
  });
  expect(res.statusCode, res.body).toBe(201);
  return { acc, ch: json<Channel>(res) };
}

const messageByExternalId = (accountId: string, externalId: string) =>
  t.parley.db.kysely
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("external_id", "=", externalId)
    .executeTakeFirst();

const messagesOf = (accountId: string) =>
  t.parley.db.kysely.selectFrom("messages").selectAll().where("account_id", "=", accountId).execute();

const getMessage = async (apiKey: string, id: string) =>
  json<MessageView>(await call(apiKey, "GET", `/v1/messages/${id}`));

/** A contact texts the channel; answers the stored inbound message once the job ran. */
async function textIn(
  accountId: string,
  ch: Channel,
  from: string,
  body: string,
  media?: Array<{ bytes: Buffer; contentType: string }>,
) {
  const sent = await tw.incoming(ch.inboundUrl!, { from, body, ...(media ? { media } : {}) });
  expect(sent.answer.status, sent.answer.body).toBe(200);
  let row: Awaited<ReturnType<typeof messageByExternalId>>;
  await waitFor(async () => {
    row = await messageByExternalId(accountId, `tw:${sent.messageSid}`);
    return row !== undefined;
  });
  return { ...sent, message: row! };
}

/** The bot's reply to an inbound message, once it has the wanted status. */
async function botReply(accountId: string, inboundId: string, status: string) {
  let row: Awaited<ReturnType<typeof messageByExternalId>>;
  await waitFor(async () => {
    row = await messageByExternalId(accountId, `bot:${inboundId}`);
    return row?.status === status;
  });
  return row!;
}

/** A person's reply in a conversation through the /v1 API; its id. */
async function reply(apiKey: string, conversationId: string, body: string): Promise<string> {
  const res = await call(apiKey, "POST", `/v1/conversations/${conversationId}/messages`, { body });
  expect(res.statusCode, res.body).toBe(201);
  return json<{ id: string }>(res).id;
}

const requestsTo = (to: string) => tw.requests.filter((r) => r.form.To === to);

describe("twilio_sms channel", () => {
  beforeAll(async () => {
    tw = await startTwilioStandIn({ deliver: inject });
    t = await startTestApp({
      TWILIO_API_URL: tw.url,
      PUBLIC_URL,
      DELIVERY_RETRY_SCHEDULE: "0.05,0.05,0.05",
    });
  });
  afterAll(async () => {
    await t?.close();
    await tw?.close();
  });

  describe("the channel", () => {
    it("creates one: the auth token masked in every answer and sealed at rest, the inbound URL given", async () => {
      const acc = await t.account();
      const res = await call(acc.apiKey, "POST", "/v1/channels", {
        type: "twilio_sms",
        name: "SMS",
        config: twilioConfig(),
      });
      expect(res.statusCode, res.body).toBe(201);
      const ch = json<Channel>(res);
      expect(ch).toMatchObject({
        type: "twilio_sms",
        status: "active",
        lastError: null,
        inboundUrl: `${PUBLIC_URL}/v1/channels/${ch.id}/inbound`,
        config: { accountSid: tw.accountSid, from: tw.number, authToken: `••••${tw.authToken.slice(-4)}` },
      });
      expect(res.body).not.toContain(tw.authToken);
      const row = await t.parley.db.kysely
        .selectFrom("channels")
        .selectAll()
        .where("id", "=", ch.id)
        .executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain(tw.authToken);
      expect(decryptChannel(t.parley.ctx, row).secrets).toEqual({ authToken: tw.authToken });

      // An update keeps what it does not name; the sender can become a Messaging Service.
      const service = twilioSid("MG");
      const patched = await call(acc.apiKey, "PATCH", `/v1/channels/${ch.id}`, {
        config: { messagingServiceSid: service },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(json<Channel>(patched).config).toEqual({
        accountSid: tw.accountSid,
        messagingServiceSid: service,
        authToken: `••••${tw.authToken.slice(-4)}`,
      });
      const again = await t.parley.db.kysely
        .selectFrom("channels")
        .selectAll()
        .where("id", "=", ch.id)
        .executeTakeFirstOrThrow();
      expect(decryptChannel(t.parley.ctx, again).secrets).toEqual({ authToken: tw.authToken });
    });

    it("refuses a config that is not a Twilio one (INVALID_CHANNEL_CONFIG) and stores nothing", async () => {
      const acc = await t.account();
      const bad: Array<Record<string, unknown>> = [
        {},
        { authToken: tw.authToken, from: tw.number },
        twilioConfig({ accountSid: "AC123" }),
        twilioConfig({ accountSid: `MG${"0".repeat(32)}` }),
        twilioConfig({ authToken: "short" }),
        twilioConfig({ authToken: undefined }),
        twilioConfig({ from: "4155550100" }),
        twilioConfig({ from: undefined }),
        twilioConfig({ messagingServiceSid: twilioSid("MG") }),
        twilioConfig({ from: undefined, messagingServiceSid: "MG42" }),
        twilioConfig({ botToken: "x" }),
      ];
      for (const config of bad) {
        const res = await call(acc.apiKey, "POST", "/v1/channels", { type: "twilio_sms", name: "x", config });
        expect(res.statusCode, `${JSON.stringify(config)} → ${res.body}`).toBe(400);
        expect(errorCode(res)).toBe("INVALID_CHANNEL_CONFIG");
      }
      const count = await t.parley.db.kysely
        .selectFrom("channels")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("account_id", "=", acc.accountId)
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(0);
    });
  });

  describe("inbound", () => {
    it("a signed SMS: 200 with empty TwiML, then an incoming message from the contact with that phone", async () => {
      const { acc, ch } = await smsShop();
      const phone = newPhone();
      const contact = json<Contact>(
        await call(acc.apiKey, "POST", "/v1/contacts", { firstName: "Ada", phone }),
      );
      const sent = await tw.incoming(ch.inboundUrl!, { from: phone, body: "Hello from my phone" });
      expect(sent.answer.status, sent.answer.body).toBe(200);
      expect(String(sent.answer.headers["content-type"])).toMatch(/^text\/xml/);
      expect(sent.answer.body).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');

      await waitFor(
        async () => (await messageByExternalId(acc.accountId, `tw:${sent.messageSid}`)) !== undefined,
      );
      const row = (await messageByExternalId(acc.accountId, `tw:${sent.messageSid}`))!;
      expect(row).toMatchObject({
        direction: "inbound",
        sender: "contact",
        body: "Hello from my phone",
        contact_id: contact.id,
        from_id: phone,
      });
      const conv = await t.parley.db.kysely
        .selectFrom("conversations")
        .selectAll()
        .where("id", "=", row.conversation_id)
        .executeTakeFirstOrThrow();
      expect(conv.channel_id).toBe(ch.id);

      // Twilio retries a webhook it thinks failed: the same request again stores nothing new.
      const again = await tw.redeliver(sent.request);
      expect(again.status).toBe(200);
      await t.parley.worker.drain();
      const inbound = (await messagesOf(acc.accountId)).filter((m) => m.direction === "inbound");
      expect(inbound).toHaveLength(1);
    });

    it("a wrong or missing signature, or another account's AccountSid: 403 and nothing stored", async () => {
      const { acc, ch } = await smsShop();
      const phone = newPhone();
      const forged = await tw.incoming(ch.inboundUrl!, {
        from: phone,
        body: "forged",
        signWith: "f".repeat(32),
      });
      expect(forged.answer.status, forged.answer.body).toBe(403);

      const unsigned = { ...forged.request, headers: { ...forged.request.headers } };
      delete unsigned.headers["x-twilio-signature"];
      expect((await inject(unsigned)).status).toBe(403);

      // Signed over another URL (another channel's, say): refused.
      const elsewhere = await tw.incoming(`${PUBLIC_URL}/v1/channels/ch_other/inbound`, {
        from: phone,
        body: "replayed",
        signWith: tw.authToken,
      });
      expect(elsewhere.answer.status).toBe(404);
      const moved = { ...elsewhere.request, url: ch.inboundUrl! };
      expect((await inject(moved)).status).toBe(403);

      // Validly signed with this token, but for another Twilio account.
      const params = { ...forged.request.params, AccountSid: twilioSid("AC") };
      const otherAccount: WebhookRequest = {
        url: ch.inboundUrl!,
        params,
        body: new URLSearchParams(params).toString(),
        headers: {
          ...forged.request.headers,
          "x-twilio-signature": getExpectedTwilioSignature(tw.authToken, ch.inboundUrl!, params),
        },
      };
      expect((await inject(otherAccount)).status).toBe(403);

      await t.parley.worker.drain();
      expect(await messagesOf(acc.accountId)).toHaveLength(0);
      const jobs = await t.parley.db.kysely
        .selectFrom("jobs")
        .select("id")
        .where("account_id", "=", acc.accountId)
        .where("type", "=", "channel.inbound")
        .execute();
      expect(jobs).toHaveLength(0);
    });

    it("a signed payload that is no message (no MessageSid, no From) is accepted and yields nothing", async () => {
      const { acc, ch } = await smsShop();
      const params = { AccountSid: tw.accountSid, ApiVersion: "2010-04-01", Body: "half a message" };
      const res = await inject({
        url: ch.inboundUrl!,
        params,
        body: new URLSearchParams(params).toString(),
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-twilio-signature": getExpectedTwilioSignature(tw.authToken, ch.inboundUrl!, params),
        },
      });
      expect(res.status, res.body).toBe(200);
      await t.parley.worker.drain();
      expect(await messagesOf(acc.accountId)).toHaveLength(0);
      const dead = await t.parley.db.kysely
        .selectFrom("jobs")
        .select(["status", "last_error"])
        .where("account_id", "=", acc.accountId)
        .where("type", "=", "channel.inbound")
        .execute();
      expect(dead).toEqual([]);
    });

    it("an MMS: its picture fetched with the channel's Basic auth (through Twilio's redirect) and stored", async () => {
      const { acc, ch } = await smsShop();
      const png = makePng(4, 3);
      const fetchesBefore = tw.mediaFetches.length;
      const { message } = await textIn(acc.accountId, ch, newPhone(), "look at this", [
        { bytes: png, contentType: "image/png" },
      ]);
      expect(message).toMatchObject({
        body: "look at this",
        media_state: "stored",
        media_content_type: "image/png",
      });
      expect(message.media_size).toBe(png.length);
      const fetches = tw.mediaFetches.slice(fetchesBefore);
      expect(fetches).toHaveLength(1);
      expect(fetches[0]!.authorization).toBe(
        `Basic ${Buffer.from(`${tw.accountSid}:${tw.authToken}`).toString("base64")}`,
      );
      const file = await call(acc.apiKey, "GET", `/v1/messages/${message.id}/media`);
      expect(file.statusCode).toBe(200);
      expect(file.headers["content-type"]).toMatch(/^image\/png/);
      expect(file.rawPayload.equals(png)).toBe(true);
    });
  });

  describe("replies", () => {
    it("the bot's answer reaches Twilio's Messages.json with To, From, Body and StatusCallback; Sent", async () => {
      const { acc, ch } = await smsShop();
      const phone = newPhone();
      const { message: inbound } = await textIn(acc.accountId, ch, phone, HOURS_Q);
      const answer = await botReply(acc.accountId, inbound.id, "sent");
      expect(answer).toMatchObject({ body: HOURS_A, direction: "outbound", error: null });

      const calls = requestsTo(phone);
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({
        method: "POST",
        path: `/2010-04-01/Accounts/${tw.accountSid}/Messages.json`,
        authorization: `Basic ${Buffer.from(`${tw.accountSid}:${tw.authToken}`).toString("base64")}`,
        status: 201,
      });
      expect(calls[0]!.contentType).toMatch(/^application\/x-www-form-urlencoded/);
      expect(calls[0]!.form).toEqual({
        To: phone,
        From: tw.number,
        Body: HOURS_A,
        StatusCallback: ch.inboundUrl,
      });
      // The provider's SID is kept: status callbacks find the message by it.
      const [sid] = [...tw.messages.values()].filter((m) => m.to === phone).map((m) => m.sid);
      expect(answer.provider_message_id).toBe(sid);
      const attempts = await t.parley.db.kysely
        .selectFrom("delivery_attempts")
        .selectAll()
        .where("message_id", "=", answer.id)
        .execute();
      expect(attempts).toHaveLength(1);
    });

    it("status callbacks move a reply to delivered, and another to failed with Twilio's error", async () => {
      const { acc, ch } = await smsShop();
      const phone = newPhone();
      const { message: inbound } = await textIn(acc.accountId, ch, phone, HOURS_Q);
      const first = await botReply(acc.accountId, inbound.id, "sent");
      const second = await reply(acc.apiKey, inbound.conversation_id, "Anything else?");
      await waitFor(async () => (await getMessage(acc.apiKey, second)).status === "sent");
      const sidOf = (body: string) =>
        [...tw.messages.values()].find((m) => m.to === phone && m.body === body)!.sid;

      for (const status of ["sent", "delivered"] as const) {
        const cb = await tw.statusCallback(sidOf(HOURS_A), status);
        expect(cb.answer.status, cb.answer.body).toBe(200);
        expect(cb.request.url).toBe(ch.inboundUrl);
      }
      await waitFor(async () => (await getMessage(acc.apiKey, first.id)).status === "delivered");

      const failed = await tw.statusCallback(sidOf("Anything else?"), "undelivered", { errorCode: "30003" });
      expect(failed.answer.status).toBe(200);
      await waitFor(async () => (await getMessage(acc.apiKey, second)).status === "failed");
      const view = await getMessage(acc.apiKey, second);
      expect(view.error?.message).toContain("30003");
      expect(view.error?.message).toContain("Unreachable destination handset");
      // A status callback is no message: nothing new came in.
      expect((await messagesOf(acc.accountId)).filter((m) => m.direction === "inbound")).toHaveLength(1);
    });

    it("Twilio answers 500, then 201: the reply is retried and Sent once", async () => {
      const { acc, ch } = await smsShop();
      const phone = newPhone();
      tw.queue({ status: 500, to: phone });
      const { message: inbound } = await textIn(acc.accountId, ch, phone, HOURS_Q);
      const answer = await botReply(acc.accountId, inbound.id, "sent");
      expect(requestsTo(phone).map((r) => r.status)).toEqual([500, 201]);
      expect([...tw.messages.values()].filter((m) => m.to === phone)).toHaveLength(1);
      const attempts = await t.parley.db.kysely
        .selectFrom("delivery_attempts")
        .select(["attempt_number", "status_code", "error_class"])
        .where("message_id", "=", answer.id)
        .orderBy("attempt_number")
        .execute();
      expect(attempts.map((a) => [a.attempt_number, a.error_class])).toEqual([
        [1, "provider_unavailable"],
        [2, null],
      ]);
      expect(attempts[0]!.status_code).toBe(500);
    });

    it("Twilio refuses with 21610 (unsubscribed recipient): Failed at once, Twilio's error named", async () => {
      const { acc, ch } = await smsShop();
      const phone = newPhone();
      tw.queue({
        status: 400,
        to: phone,
        json: twilioError(400, 21610, "Attempt to send to unsubscribed recipient"),
      });
      const { message: inbound } = await textIn(acc.accountId, ch, phone, HOURS_Q);
      const answer = await botReply(acc.accountId, inbound.id, "failed");
      const view = await getMessage(acc.apiKey, answer.id);
      expect(view.error?.message).toContain("Twilio error 21610: Attempt to send to unsubscribed recipient");
      expect(view.error).toMatchObject({ errorClass: "opted_out" });
      expect(requestsTo(phone)).toHaveLength(1);
      // Twilio knows the number unsubscribed (perhaps before Parley did): the contact is marked opted out.
      const contact = await t.parley.db.kysely
        .selectFrom("contacts")
        .select("sms_opted_out_at")
        .where("account_id", "=", acc.accountId)
        .where("phone", "=", phone)
        .executeTakeFirstOrThrow();
      expect(contact.sms_opted_out_at).not.toBeNull();
      expect(json<Channel>(await call(acc.apiKey, "GET", `/v1/channels/${ch.id}`)).status).toBe("active");
    });

    it("Twilio refuses the credentials (401): the reply Fails and the channel turns error", async () => {
      const { acc, ch } = await smsShop();
      const phone = newPhone();
      const { message: inbound } = await textIn(acc.accountId, ch, phone, "hi there");
      // The token is changed to one Twilio does not know (it was rotated in the console, say).
      const patched = await call(acc.apiKey, "PATCH", `/v1/channels/${ch.id}`, {
        config: { authToken: "0123456789abcdef0123456789abcdef" },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      const id = await reply(acc.apiKey, inbound.conversation_id, "Are you there?");
      await waitFor(async () => (await getMessage(acc.apiKey, id)).status === "failed");
      const calls = tw.requests.filter((r) => r.form.To === phone && r.form.Body === "Are you there?");
      expect(calls.map((r) => r.status)).toEqual([401]);
      const channel = json<Channel>(await call(acc.apiKey, "GET", `/v1/channels/${ch.id}`));
      expect(channel.status).toBe("error");
      expect(channel.lastError).toContain("401");
      expect(channel.lastError).toContain("20003");
    });
  });

  describe("STOP and START", () => {
    it("STOP opts the contact out: later replies and campaign messages Fail without reaching Twilio; START opts back in", async () => {
      const { acc, ch } = await smsShop();
      const phone = newPhone();
      const contact = json<Contact>(await call(acc.apiKey, "POST", "/v1/contacts", { phone }));
      expect(contact.smsOptedOutAt).toBeNull();
      const { message: first } = await textIn(acc.accountId, ch, phone, HOURS_Q);
      await botReply(acc.accountId, first.id, "sent");

      const { message: stop } = await textIn(acc.accountId, ch, phone, "  Stop ");
      // The message itself is kept like any other.
      expect(stop).toMatchObject({ body: "  Stop ", contact_id: contact.id, direction: "inbound" });
      const getContact = async () =>
        json<Contact>(await call(acc.apiKey, "GET", `/v1/contacts/${contact.id}`));
      await waitFor(async () => (await getContact()).smsOptedOutAt !== null);
      // The bot does not answer STOP (Twilio confirms the opt-out itself), and nothing more reached Twilio.
      await t.parley.worker.drain();
      const reached = requestsTo(phone).length;
      expect(reached).toBe(1);
      const botAnswer = (inboundId: string) =>
        t.parley.db.kysely
          .selectFrom("messages")
          .select("id")
          .where("account_id", "=", acc.accountId)
          .where("external_id", "=", `bot:${inboundId}`)
          .executeTakeFirst();
      expect(await botAnswer(stop.id)).toBeUndefined();

      const later = await reply(acc.apiKey, stop.conversation_id, "We miss you");
      await waitFor(async () => (await getMessage(acc.apiKey, later)).status === "failed");
      expect((await getMessage(acc.apiKey, later)).error).toMatchObject({ errorClass: "opted_out" });
      expect((await getMessage(acc.apiKey, later)).error?.message).toMatch(/STOP/);

      const list = json<{ id: string }>(await call(acc.apiKey, "POST", "/v1/lists", { name: "spring" }));
      await call(acc.apiKey, "POST", `/v1/lists/${list.id}/contacts`, { contactId: contact.id });
      const campaign = json<{ id: string }>(
        await call(acc.apiKey, "POST", "/v1/campaigns", {
          name: "Spring",
          outgoing: { message: "Spring sale today", listId: list.id, channel: "sms", ratePerMinute: 6000 },
        }),
      );
      const started = await call(acc.apiKey, "POST", `/v1/campaigns/${campaign.id}/start`);
      expect(started.statusCode, started.body).toBe(200);
      const campaignMessage = () =>
        t.parley.db.kysely
          .selectFrom("messages")
          .selectAll()
          .where("campaign_id", "=", campaign.id)
          .where("contact_id", "=", contact.id)
          .where("direction", "=", "outbound")
          .executeTakeFirst();
      await waitFor(async () => (await campaignMessage())?.status === "failed");
      const sale = (await campaignMessage())!;
      expect(sale.conversation_id).toBe(stop.conversation_id);
      expect(JSON.parse(sale.error!)).toMatchObject({ errorClass: "opted_out" });
      expect(requestsTo(phone)).toHaveLength(reached);
      // A campaign through the SMS channel itself skips the opted-out member (opted_out).
      const viaSms = json<{ id: string }>(
        await call(acc.apiKey, "POST", "/v1/campaigns", {
          name: "Spring by SMS",
          outgoing: { message: "Spring sale today", listId: list.id, channelId: ch.id, ratePerMinute: 6000 },
        }),
      );
      expect((await call(acc.apiKey, "POST", `/v1/campaigns/${viaSms.id}/start`)).statusCode).toBe(200);
      const smsStats = async () =>
        json<{ state: string; skippedByReason: Record<string, number> }>(
          await call(acc.apiKey, "GET", `/v1/campaigns/${viaSms.id}/stats`),
        );
      await waitFor(async () => (await smsStats()).state === "done");
      expect((await smsStats()).skippedByReason).toMatchObject({ opted_out: 1, no_phone: 0 });
      expect(requestsTo(phone)).toHaveLength(reached);

      // START: texted again.
      await textIn(acc.accountId, ch, phone, "start");
      await waitFor(async () => (await getContact()).smsOptedOutAt === null);
      const back = await reply(acc.apiKey, stop.conversation_id, "Welcome back");
      await waitFor(async () => (await getMessage(acc.apiKey, back)).status === "sent");
      expect(requestsTo(phone).at(-1)?.form.Body).toBe("Welcome back");
    });
  });

  describe("the adapter's parsing", () => {
    const parse = (payload: unknown) => twilioAdapter.parseInbound!(payload);
    const sid = `SM${"a".repeat(32)}`;
    const base = {
      MessageSid: sid,
      AccountSid: `AC${"b".repeat(32)}`,
      From: "+14155550100",
      To: "+15005550006",
    };

    it("status callbacks: queued, accepted, sending ignored; sent, delivered, read; undelivered and failed with the error", () => {
      for (const status of ["queued", "accepted", "sending", "scheduled"]) {
        expect(parse({ ...base, MessageStatus: status }), status).toEqual([]);
      }
      for (const status of ["sent", "delivered", "read"]) {
        expect(parse({ ...base, MessageStatus: status })).toEqual([
          { kind: "status", providerMessageId: sid, status },
        ]);
      }
      expect(parse({ ...base, MessageStatus: "undelivered", ErrorCode: "30005" })).toEqual([
        {
          kind: "status",
          providerMessageId: sid,
          status: "failed",
          error: { code: "30005", message: "Twilio error 30005: Unknown destination handset" },
        },
      ]);
      expect(parse({ ...base, MessageStatus: "failed", ErrorCode: "39999" })).toEqual([
        {
          kind: "status",
          providerMessageId: sid,
          status: "failed",
          error: { code: "39999", message: "Twilio error 39999" },
        },
      ]);
    });

    it("keywords: Twilio's opt-out and opt-in lists, whole message, any case; HELP changes nothing; the bot answers none of them", () => {
      const kinds = (body: string) =>
        parse({ ...base, Body: body, SmsStatus: "received" }).map((e) => e.kind);
      for (const word of [
        "STOP",
        "stopall",
        "Unsubscribe",
        "cancel",
        "END",
        "quit",
        "REVOKE",
        "optout",
        " stop\n",
      ]) {
        expect(kinds(word), word).toEqual(["message", "opt_out"]);
      }
      for (const word of ["START", "yes", "Unstop"]) expect(kinds(word), word).toEqual(["message", "opt_in"]);
      for (const word of ["HELP", "info", "please stop", "stop it", "starting"]) {
        expect(kinds(word), word).toEqual(["message"]);
      }
      // Twilio answers its keywords itself: a bot answer on top would be a second, unasked-for text.
      const keywordFlag = (body: string) => {
        const m = parse({ ...base, Body: body, SmsStatus: "received" })[0];
        return m?.kind === "message" ? m.providerKeyword : undefined;
      };
      for (const word of ["STOP", " quit", "start", "HELP", "Info"])
        expect(keywordFlag(word), word).toBe(true);
      for (const word of ["please stop", "help me with my order", "what are your hours?"]) {
        expect(keywordFlag(word), word).toBe(false);
      }
    });

    it("malformed payloads yield nothing and never throw", () => {
      for (const payload of [
        null,
        undefined,
        42,
        "Body=hi",
        [],
        {},
        { Body: "hi" },
        { From: "+14155550100" },
      ]) {
        expect(parse(payload), JSON.stringify(payload)).toEqual([]);
      }
      expect(parse({ MessageStatus: "delivered" })).toEqual([]);
      expect(parse({ ...base, NumMedia: "abc", Body: 7 })).toEqual([
        {
          kind: "message",
          externalId: `tw:${sid}`,
          address: "+14155550100",
          contact: { phone: "+14155550100" },
          body: "",
          media: null,
          providerKeyword: false,
        },
      ]);
    });
  });
});

// POST /v1/incoming_custom_channel_message: validation (one test per rule), the simple error form for
// every status, identity (contact/conversation), idempotency under concurrency, reactions, and a
// property-based test that no body ever produces a 5xx.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { BOT_REPLY_JOB, MEDIA_FETCH_JOB } from "../src/modules/messaging/index.ts";
import {
  countRows,
  customData,
  INCOMING,
  jobsFor,
  jobsOfAccount,
  postIncoming,
  sid,
} from "./fixtures/incoming.ts";
import { json, startTestApp, type TestApp } from "./helpers.ts";

type Simple = { error: string };

function expectSimpleError(res: { statusCode: number; body: string }, status: number, match?: RegExp) {
  expect(res.statusCode).toBe(status);
  const body = JSON.parse(res.body) as Simple;
  expect(Object.keys(body)).toEqual(["error"]);
  expect(typeof body.error).toBe("string");
  if (match) expect(body.error).toMatch(match);
  return body.error;
}

describe("incoming custom channel message", () => {
  let t: TestApp;
  let acc: CreatedAccount;
  beforeAll(async () => {
    t = await startTestApp();
    acc = await t.account();
  });
  afterAll(() => t.close());

  const post = (payload: unknown) => postIncoming(t, acc.apiKey, payload);

  describe("accepts a valid message", () => {
    it("answers 200 {success, messageId} and stores the message, contact and conversation", async () => {
      const data = customData({ channel: "livechat", firstName: "Ada", lastName: "Lovelace" });
      const res = await post({ customData: data });
      expect(res.statusCode).toBe(200);
      const body = json<{ success: boolean; messageId: string; duplicate?: boolean }>(res);
      expect(body.success).toBe(true);
      expect(body.messageId).toMatch(/^msg_/);
      expect(body.duplicate).toBeUndefined();
      const msg = await t.parley.db.kysely
        .selectFrom("messages")
        .selectAll()
        .where("id", "=", body.messageId)
        .executeTakeFirstOrThrow();
      expect(msg).toMatchObject({
        account_id: acc.accountId,
        direction: "inbound",
        type: "text",
        sender: "contact",
        body: "Hello there",
        status: "received",
        channel: "livechat",
        external_id: data.messageSid,
        from_id: data.fromId,
        to_id: "biz-1",
        media_state: null,
      });
      const contact = await t.parley.db.kysely
        .selectFrom("contacts")
        .selectAll()
        .where("id", "=", msg.contact_id)
        .executeTakeFirstOrThrow();
      expect(contact).toMatchObject({ external_id: data.fromId, first_name: "Ada", last_name: "Lovelace" });
      const conv = await t.parley.db.kysely
        .selectFrom("conversations")
        .selectAll()
        .where("id", "=", msg.conversation_id)
        .executeTakeFirstOrThrow();
      expect(conv.contact_id).toBe(contact.id);
      expect(conv.channel).toBe("livechat");
    });

    it("also answers on the hyphenated alias", async () => {
      const res = await postIncoming(
        t,
        acc.apiKey,
        { customData: customData() },
        { url: "/v1/incoming-custom-channel-message" },
      );
      expect(res.statusCode).toBe(200);
      expect(json(res).messageId).toMatch(/^msg_/);
    });

    it("accepts the key in the x-api-key header too", async () => {
      const res = await t.inject({
        method: "POST",
        url: INCOMING,
        headers: { "content-type": "application/json", "x-api-key": acc.apiKey },
        payload: JSON.stringify({ customData: customData() }),
      });
      expect(res.statusCode).toBe(200);
    });

    it("accepts customData.id instead of messageSid, and deduplicates on it", async () => {
      const id = sid();
      const data = customData({ messageSid: undefined, id });
      const first = await post({ customData: data });
      expect(first.statusCode).toBe(200);
      const msg = await t.parley.db.kysely
        .selectFrom("messages")
        .select(["external_id"])
        .where("id", "=", json(first).messageId as string)
        .executeTakeFirstOrThrow();
      expect(msg.external_id).toBe(id);
      const again = await post({ customData: data });
      expect(json(again)).toEqual({ success: true, messageId: json(first).messageId, duplicate: true });
    });

    it("keeps a given status and the campaignId as given", async () => {
      const res = await post({ customData: customData({ status: "read", campaignId: "cmp_anything" }) });
      expect(res.statusCode).toBe(200);
      const msg = await t.parley.db.kysely
        .selectFrom("messages")
        .selectAll()
        .where("id", "=", json(res).messageId as string)
        .executeTakeFirstOrThrow();
      expect(msg.status).toBe("read");
      expect(msg.campaign_id).toBe("cmp_anything");
    });

    it("accepts mediaUrl and mediaContentType as null (no attachment)", async () => {
      const res = await post({ customData: customData({ mediaUrl: null, mediaContentType: null }) });
      expect(res.statusCode).toBe(200);
      const msg = await t.parley.db.kysely
        .selectFrom("messages")
        .selectAll()
        .where("id", "=", json(res).messageId as string)
        .executeTakeFirstOrThrow();
      expect(msg.media_state).toBeNull();
      expect(await jobsFor(t, MEDIA_FETCH_JOB, msg.id)).toBe(0);
    });

    it("accepts messageType text explicitly and a body of exactly 10,000 characters", async () => {
      const res = await post({ customData: customData({ body: "é".repeat(10_000) }), messageType: "text" });
      expect(res.statusCode).toBe(200);
    });

    it("ignores unknown properties", async () => {
      const res = await post({ customData: customData({ surprise: { a: 1 } }), extra: true });
      expect(res.statusCode).toBe(200);
    });

    it("enqueues exactly one bot.reply job ({messageId}) for a text message, in the same commit", async () => {
      const res = await post({ customData: customData() });
      const messageId = json(res).messageId as string;
      const jobs = await t.parley.db.kysely
        .selectFrom("jobs")
        .selectAll()
        .where("type", "=", BOT_REPLY_JOB)
        .where("account_id", "=", acc.accountId)
        .execute();
      const mine = jobs.filter((j) => JSON.parse(j.payload).messageId === messageId);
      expect(mine).toHaveLength(1);
      expect(JSON.parse(mine[0]?.payload ?? "null")).toEqual({ messageId });
      expect(mine[0]?.status).toBe("queued");
    });
  });

  describe("validation: one test per rule, each 400 names the field in the simple form", () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ["body is not an object (array)", [1, 2], /object/],
      ["body is a JSON string", "hello", /object/],
      ["body is JSON null", null, /empty|object/],
      ["customData missing", { messageType: "text" }, /customData is required/],
      ["customData not an object", { customData: "x" }, /customData must be an object/],
      ["customData an array", { customData: [] }, /customData must be an object/],
      ["messageSid and id missing", { customData: customData({ messageSid: undefined }) }, /messageSid/],
      [
        "messageSid not a string",
        { customData: customData({ messageSid: 42 }) },
        /customData.messageSid must be a string/,
      ],
      [
        "id not a string",
        { customData: customData({ messageSid: undefined, id: 7 }) },
        /customData.id must be a string/,
      ],
      [
        "messageSid empty",
        { customData: customData({ messageSid: "  " }) },
        /customData.messageSid must not be empty/,
      ],
      ["fromId missing", { customData: customData({ fromId: undefined }) }, /customData.fromId is required/],
      [
        "fromId not a string",
        { customData: customData({ fromId: 12345 }) },
        /customData.fromId must be a string/,
      ],
      ["toId missing", { customData: customData({ toId: undefined }) }, /customData.toId is required/],
      ["toId not a string", { customData: customData({ toId: ["a"] }) }, /customData.toId must be a string/],
      ["body missing", { customData: customData({ body: undefined }) }, /customData.body is required/],
      [
        "body not a string",
        { customData: customData({ body: { text: "hi" } }) },
        /customData.body must be a string/,
      ],
      ["body empty", { customData: customData({ body: "" }) }, /customData.body must not be empty/],
      [
        "body whitespace only",
        { customData: customData({ body: " \n\t\u00a0\u3000 " }) },
        /customData.body must not be empty/,
      ],
      [
        "unknown messageType",
        { customData: customData(), messageType: "image" },
        /messageType must be one of text, reaction/,
      ],
      ["messageType not a string", { customData: customData(), messageType: 1 }, /messageType/],
      [
        "mediaUrl without mediaContentType",
        { customData: customData({ mediaUrl: "https://example.com/a.png" }) },
        /customData.mediaContentType is required/,
      ],
      [
        "mediaUrl with a null mediaContentType",
        { customData: customData({ mediaUrl: "https://example.com/a.png", mediaContentType: null }) },
        /customData.mediaContentType is required/,
      ],
      [
        "mediaUrl not a string",
        { customData: customData({ mediaUrl: 5, mediaContentType: "image/png" }) },
        /customData.mediaUrl must be a string/,
      ],
      [
        "mediaUrl not http(s) or data:",
        { customData: customData({ mediaUrl: "ftp://example.com/a.png", mediaContentType: "image/png" }) },
        /customData.mediaUrl must be an http\(s\) URL/,
      ],
      [
        "mediaContentType not a MIME type",
        { customData: customData({ mediaUrl: "https://example.com/a", mediaContentType: "png" }) },
        /customData.mediaContentType must be a MIME type/,
      ],
      [
        "invalid status",
        { customData: customData({ status: "sent" }) },
        /customData.status must be one of received, delivered, read/,
      ],
      ["status not a string", { customData: customData({ status: true }) }, /customData.status/],
      [
        "messageSid over 255 characters",
        { customData: customData({ messageSid: "s".repeat(256) }) },
        /customData.messageSid must be at most 255 characters/,
      ],
      [
        "fromId over 255 characters",
        { customData: customData({ fromId: "f".repeat(256) }) },
        /customData.fromId must be at most 255 characters/,
      ],
      [
        "toId over 255 characters",
        { customData: customData({ toId: "t".repeat(256) }) },
        /customData.toId must be at most 255 characters/,
      ],
      [
        "body over 10,000 characters",
        { customData: customData({ body: "b".repeat(10_001) }) },
        /customData.body must be at most 10000 characters/,
      ],
      [
        "channel over 255 characters",
        { customData: customData({ channel: "c".repeat(256) }) },
        /customData.channel must be at most 255/,
      ],
      [
        "channel not a string",
        { customData: customData({ channel: 3 }) },
        /customData.channel must be a string/,
      ],
      [
        "campaignId not a string",
        { customData: customData({ campaignId: {} }) },
        /customData.campaignId must be a string/,
      ],
      [
        "invalid email",
        { customData: customData({ email: "not-an-email" }) },
        /customData.email must be a valid e-mail/,
      ],
      [
        "body with a NUL character",
        { customData: customData({ body: "a\u0000b" }) },
        /customData.body must not contain NUL/,
      ],
      [
        "fromId with a lone surrogate",
        { customData: customData({ fromId: "a\ud800" }) },
        /customData.fromId must be valid Unicode/,
      ],
      [
        "firstName not a string",
        { customData: customData({ firstName: 1 }) },
        /customData.firstName must be a string/,
      ],
    ];
    for (const [name, payload, message] of cases) {
      it(`${name} → 400`, async () => {
        const before = await countRows(t, "messages", acc.accountId);
        const res = await post(payload);
        expectSimpleError(res, 400, message);
        expect(await countRows(t, "messages", acc.accountId)).toBe(before);
      });
    }

    it("counts characters, not UTF-16 units: 255 emoji are a valid fromId", async () => {
      const res = await post({ customData: customData({ fromId: "😀".repeat(255) }) });
      expect(res.statusCode).toBe(200);
    });
  });

  describe("transport-level errors are in the simple form too", () => {
    it("empty body with Content-Type application/json → 400", async () => {
      const res = await postIncoming(t, acc.apiKey, "", { raw: true });
      expectSimpleError(res, 400, /empty/);
    });

    it("no body and no Content-Type → 400", async () => {
      const res = await t.inject({ method: "POST", url: `${INCOMING}?apiKey=${acc.apiKey}` });
      expectSimpleError(res, 400, /empty/);
    });

    it("malformed JSON → 400", async () => {
      const res = await postIncoming(t, acc.apiKey, '{"customData": {', { raw: true });
      expectSimpleError(res, 400, /JSON/);
    });

    it("a body that is not JSON (text/plain) → 400", async () => {
      const res = await postIncoming(t, acc.apiKey, "customData=1", {
        raw: true,
        headers: { "content-type": "text/plain" },
      });
      expectSimpleError(res, 400, /JSON/);
    });

    it("a form-encoded body → 400", async () => {
      const res = await postIncoming(t, acc.apiKey, "a=b", {
        raw: true,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expectSimpleError(res, 400, /JSON/);
    });

    it("a __proto__ key (prototype poisoning) → 400", async () => {
      const res = await postIncoming(
        t,
        acc.apiKey,
        '{"customData":{"messageSid":"p1","fromId":"a","toId":"b","body":"c"},"__proto__":{"x":1}}',
        { raw: true },
      );
      expectSimpleError(res, 400);
    });

    it("missing API key → 401", async () => {
      const res = await t.inject({
        method: "POST",
        url: INCOMING,
        headers: { "content-type": "application/json" },
        payload: JSON.stringify({ customData: customData() }),
      });
      expectSimpleError(res, 401, /API key/);
    });

    it("wrong API key → 401, and nothing is stored", async () => {
      const before = await countRows(t, "messages", acc.accountId);
      const res = await postIncoming(t, "pk_live_wrongwrongwrongwrongwrongwrong12", {
        customData: customData(),
      });
      expectSimpleError(res, 401, /Invalid API key/);
      expect(await countRows(t, "messages", acc.accountId)).toBe(before);
    });

    it("a request body over 25 MiB → 413", async () => {
      const res = await postIncoming(
        t,
        acc.apiKey,
        `{"customData":{"body":"${"x".repeat(26 * 1024 * 1024)}"}}`,
        {
          raw: true,
        },
      );
      expectSimpleError(res, 413, /too large/);
    });

    for (const method of ["GET", "PUT", "DELETE", "PATCH"] as const) {
      it(`${method} → 405 with Allow: POST (on both paths)`, async () => {
        for (const url of [INCOMING, "/v1/incoming-custom-channel-message"]) {
          const res = await t.inject({ method, url: `${url}?apiKey=${acc.apiKey}` });
          expectSimpleError(res, 405, /POST/);
          expect(res.headers.allow).toBe("POST");
        }
        // The method is wrong whoever asks: no key needed to learn that.
        const anon = await t.inject({ method, url: INCOMING });
        expect(anon.statusCode).toBe(405);
        expect(anon.headers.allow).toBe("POST");
      });
    }
  });

  it("HEAD and OPTIONS → 405 with Allow: POST too", async () => {
    const head = await t.inject({ method: "HEAD", url: `${INCOMING}?apiKey=${acc.apiKey}` });
    expect(head.statusCode).toBe(405);
    expect(head.headers.allow).toBe("POST");
    const options = await t.inject({ method: "OPTIONS", url: INCOMING });
    expectSimpleError(options, 405, /POST/);
    expect(options.headers.allow).toBe("POST");
  });

  describe("identity: contacts and conversations", () => {
    it("the same fromId twice is one contact and one conversation; another fromId a new contact", async () => {
      const a = await t.account();
      const p = (data: Record<string, unknown>) => postIncoming(t, a.apiKey, { customData: data });
      const r1 = await p(customData({ fromId: "alice", firstName: "Alice" }));
      const r2 = await p(customData({ fromId: "alice", firstName: "Not Alice" }));
      expect(r1.statusCode).toBe(200);
      expect(r2.statusCode).toBe(200);
      expect(await countRows(t, "contacts", a.accountId)).toBe(1);
      expect(await countRows(t, "conversations", a.accountId)).toBe(1);
      const msgs = await t.parley.db.kysely
        .selectFrom("messages")
        .selectAll()
        .where("account_id", "=", a.accountId)
        .execute();
      expect(msgs).toHaveLength(2);
      expect(msgs[0]?.contact_id).toBe(msgs[1]?.contact_id);
      expect(msgs[0]?.conversation_id).toBe(msgs[1]?.conversation_id);
      // Names are used on creation only.
      const contact = await t.parley.db.kysely
        .selectFrom("contacts")
        .selectAll()
        .where("account_id", "=", a.accountId)
        .executeTakeFirstOrThrow();
      expect(contact.first_name).toBe("Alice");

      const r3 = await p(customData({ fromId: "bob" }));
      expect(r3.statusCode).toBe(200);
      expect(await countRows(t, "contacts", a.accountId)).toBe(2);
      expect(await countRows(t, "conversations", a.accountId)).toBe(2);
    });

    it("a fromId that is an E.164 number also fills the contact's phone; the e-mail is stored lower-cased", async () => {
      const res = await post({
        customData: customData({ fromId: "+14155550123", email: "Ada@Example.COM" }),
      });
      expect(res.statusCode).toBe(200);
      const contact = await t.parley.db.kysely
        .selectFrom("contacts")
        .selectAll()
        .where("account_id", "=", acc.accountId)
        .where("external_id", "=", "+14155550123")
        .executeTakeFirstOrThrow();
      expect(contact.phone).toBe("+14155550123");
      expect(contact.email).toBe("ada@example.com");
      const other = await post({ customData: customData({ fromId: "user-no-phone" }) });
      expect(other.statusCode).toBe(200);
      const plain = await t.parley.db.kysely
        .selectFrom("contacts")
        .selectAll()
        .where("account_id", "=", acc.accountId)
        .where("external_id", "=", "user-no-phone")
        .executeTakeFirstOrThrow();
      expect(plain.phone).toBeNull();
    });

    it("the same fromId in another account is another contact", async () => {
      const a = await t.account();
      const b = await t.account();
      await postIncoming(t, a.apiKey, { customData: customData({ fromId: "shared" }) });
      await postIncoming(t, b.apiKey, { customData: customData({ fromId: "shared" }) });
      expect(await countRows(t, "contacts", a.accountId)).toBe(1);
      expect(await countRows(t, "contacts", b.accountId)).toBe(1);
    });
  });

  describe("idempotency on messageSid", () => {
    it("a sequential repeat answers the original messageId with duplicate: true and enqueues nothing", async () => {
      const data = customData();
      const first = await post({ customData: data });
      const messageId = json(first).messageId as string;
      const again = await post({ customData: { ...data, body: "changed" } });
      expect(again.statusCode).toBe(200);
      expect(json(again)).toEqual({ success: true, messageId, duplicate: true });
      expect(await jobsFor(t, BOT_REPLY_JOB, messageId)).toBe(1);
      const row = await t.parley.db.kysely
        .selectFrom("messages")
        .select(["body"])
        .where("id", "=", messageId)
        .executeTakeFirstOrThrow();
      expect(row.body).toBe("Hello there");
    });

    it("20 concurrent posts with one messageSid: one message, one bot job, one contact, all 200", async () => {
      const a = await t.account();
      const data = customData({ fromId: "racer" });
      const results = await Promise.all(
        Array.from({ length: 20 }, () => postIncoming(t, a.apiKey, { customData: data })),
      );
      expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
      const ids = new Set(results.map((r) => json(r).messageId));
      expect(ids.size).toBe(1);
      expect(results.filter((r) => json(r).duplicate === true)).toHaveLength(19);
      expect(await countRows(t, "messages", a.accountId)).toBe(1);
      expect(await countRows(t, "contacts", a.accountId)).toBe(1);
      expect(await countRows(t, "conversations", a.accountId)).toBe(1);
      expect(await jobsOfAccount(t, BOT_REPLY_JOB, a.accountId)).toBe(1);
    });

    it("20 concurrent posts with one messageSid from 20 different new fromIds leave no stray contact", async () => {
      const a = await t.account();
      const messageSid = sid();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          postIncoming(t, a.apiKey, { customData: customData({ messageSid, fromId: `racer-${i}` }) }),
        ),
      );
      expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
      expect(new Set(results.map((r) => json(r).messageId)).size).toBe(1);
      expect(await countRows(t, "messages", a.accountId)).toBe(1);
      // The losers' transactions were rolled back: only the winner's contact exists.
      expect(await countRows(t, "contacts", a.accountId)).toBe(1);
      expect(await jobsOfAccount(t, BOT_REPLY_JOB, a.accountId)).toBe(1);
    });

    it("20 concurrent first messages of one new fromId (different messageSids): one contact, one conversation", async () => {
      const a = await t.account();
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          postIncoming(t, a.apiKey, { customData: customData({ fromId: "crowd" }) }),
        ),
      );
      expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
      expect(await countRows(t, "messages", a.accountId)).toBe(20);
      expect(await countRows(t, "contacts", a.accountId)).toBe(1);
      expect(await countRows(t, "conversations", a.accountId)).toBe(1);
      expect(await jobsOfAccount(t, BOT_REPLY_JOB, a.accountId)).toBe(20);
    });

    it("the same messageSid in two accounts is two messages", async () => {
      const a = await t.account();
      const b = await t.account();
      const messageSid = sid();
      const ra = await postIncoming(t, a.apiKey, { customData: customData({ messageSid }) });
      const rb = await postIncoming(t, b.apiKey, { customData: customData({ messageSid }) });
      expect(json(ra).duplicate).toBeUndefined();
      expect(json(rb).duplicate).toBeUndefined();
      expect(json(ra).messageId).not.toBe(json(rb).messageId);
    });
  });

  describe("reactions", () => {
    it("stores a reaction linked to the known message and never enqueues a bot job", async () => {
      const a = await t.account();
      const original = customData({ fromId: "reactor" });
      const first = await postIncoming(t, a.apiKey, { customData: original });
      const originalId = json(first).messageId as string;
      const res = await postIncoming(t, a.apiKey, {
        customData: customData({ fromId: "reactor", body: "👍", reactionTo: original.messageSid }),
        messageType: "reaction",
      });
      expect(res.statusCode).toBe(200);
      const reactionId = json(res).messageId as string;
      const row = await t.parley.db.kysely
        .selectFrom("messages")
        .selectAll()
        .where("id", "=", reactionId)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        type: "reaction",
        body: "👍",
        reaction_to_external_id: original.messageSid,
        reaction_to_message_id: originalId,
        conversation_id: (
          await t.parley.db.kysely
            .selectFrom("messages")
            .select("conversation_id")
            .where("id", "=", originalId)
            .executeTakeFirstOrThrow()
        ).conversation_id,
      });
      expect(await jobsFor(t, BOT_REPLY_JOB, reactionId)).toBe(0);
      // Only the original text message has a bot job.
      expect(await jobsOfAccount(t, BOT_REPLY_JOB, a.accountId)).toBe(1);

      const view = await t.inject({ method: "GET", url: `/v1/messages/${reactionId}?apiKey=${a.apiKey}` });
      expect(json(view).reactionTo).toEqual({ messageSid: original.messageSid, messageId: originalId });
    });

    it("a reaction to an unknown messageSid is stored with the sid and no link", async () => {
      const res = await post({
        customData: customData({ body: "❤️", reactionTo: "SM-never-seen" }),
        messageType: "reaction",
      });
      expect(res.statusCode).toBe(200);
      const id = json(res).messageId as string;
      const row = await t.parley.db.kysely
        .selectFrom("messages")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(row.type).toBe("reaction");
      expect(row.reaction_to_external_id).toBe("SM-never-seen");
      expect(row.reaction_to_message_id).toBeNull();
      expect(await jobsFor(t, BOT_REPLY_JOB, id)).toBe(0);
    });

    it("a reaction with a blank body is refused like any message", async () => {
      const res = await post({ customData: customData({ body: " " }), messageType: "reaction" });
      expectSimpleError(res, 400, /customData.body/);
    });
  });

  it("OpenAPI documents the endpoint with its simple error form", async () => {
    const res = await t.inject({ method: "GET", url: "/v1/openapi.json" });
    const doc = json<{ paths: Record<string, Record<string, Record<string, unknown>>> }>(res);
    const op = doc.paths["/v1/incoming_custom_channel_message"]?.post as {
      responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }>;
      requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
    };
    expect(op).toBeDefined();
    for (const status of ["400", "401", "405", "413", "429", "500"]) {
      const schema = op.responses[status]?.content["application/json"]?.schema as {
        properties: { error: { type: string } };
      };
      expect(schema.properties.error.type).toBe("string");
    }
    expect(op.requestBody.content["application/json"]?.schema.properties.customData).toBeDefined();
    expect(doc.paths["/v1/messages/{messageId}"]?.get).toBeDefined();
    expect(doc.paths["/v1/contacts/{contactId}/messages"]?.get).toBeDefined();
  });

  it("property: thousands of random bodies never produce a 5xx; errors are always simple", async () => {
    const a = await t.account();
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: "grapheme" }),
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.constantFrom("", " ", "\u200b", "\u0000", "😀", "+14155550100", "x".repeat(300), "𝕏".repeat(256)),
    );
    const anyValue = fc.oneof(
      text,
      fc.jsonValue({ maxDepth: 3 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(text, { maxLength: 3 }),
      fc.dictionary(text, text, { maxKeys: 3 }),
    );
    // Mostly valid values, so the storing path is exercised as much as the validation errors.
    const required = (good: fc.Arbitrary<unknown>) =>
      fc.oneof(
        { weight: 12, arbitrary: good },
        { weight: 1, arbitrary: anyValue },
        { weight: 1, arbitrary: fc.constant(undefined) },
      );
    const field = (good: fc.Arbitrary<unknown>) =>
      fc.oneof(
        { weight: 6, arbitrary: good },
        { weight: 1, arbitrary: anyValue },
        { weight: 8, arbitrary: fc.constant(undefined) },
      );
    const mediaUrl = fc.oneof(
      text,
      fc.constantFrom(
        "data:image/png;base64,iVBORw0KGgo=",
        "data:text/plain;base64,aGVsbG8=",
        "data:;base64,!!!",
        "data:image/png,raw",
        "http://127.0.0.1:1/x.png",
        "https://[::1]/x",
        "http://user:pw@example.com/",
      ),
    );
    const goodString = fc.string({ minLength: 1, maxLength: 30 });
    const customDataArb = fc.record(
      {
        messageSid: required(goodString),
        id: field(goodString),
        fromId: required(fc.constantFrom("p1", "p2", "+14155550100", "😀")),
        toId: required(goodString),
        body: required(fc.oneof(goodString, text)),
        status: field(fc.constantFrom("received", "delivered", "read", "sent")),
        channel: field(text),
        campaignId: field(text),
        firstName: field(text),
        lastName: field(text),
        email: field(fc.oneof(fc.emailAddress(), text)),
        reactionTo: field(goodString),
        mediaUrl: field(mediaUrl),
        mediaContentType: field(fc.constantFrom("image/png", "text/plain", "application/json", "png", "")),
      },
      { requiredKeys: [] },
    );
    const bodyArb = fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .record(
            { customData: customDataArb, messageType: field(fc.constantFrom("text", "reaction", "image")) },
            { requiredKeys: [] },
          )
          .map((v) => JSON.stringify(v)),
      },
      {
        weight: 1,
        arbitrary: fc
          .record({ customData: anyValue, messageType: anyValue }, { requiredKeys: [] })
          .map((v) => JSON.stringify(v)),
      },
      { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v) ?? "null") },
      { weight: 1, arbitrary: text },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '{"customData":{"messageSid":1e400,"fromId":"a","toId":"b","body":"c"}}',
          '{"customData":{"messageSid":"x","fromId":123456789012345678901234567890,"toId":"b","body":"c"}}',
          "[[[[[[[[[[]]]]]]]]]]",
          '{"customData":{"__proto__":{"body":"x"}}}',
          '{"customData":{"constructor":{"prototype":{"x":1}},"messageSid":"c1","fromId":"a","toId":"b","body":"c"}}',
        ),
      },
    );
    let ok = 0;
    await fc.assert(
      fc.asyncProperty(bodyArb, async (payload) => {
        const res = await postIncoming(t, a.apiKey, payload, { raw: true });
        expect(res.statusCode).toBeLessThan(500);
        expect([200, 400, 413]).toContain(res.statusCode);
        const body = JSON.parse(res.body) as Record<string, unknown>;
        if (res.statusCode === 200) {
          ok++;
          expect(body.success).toBe(true);
          expect(String(body.messageId)).toMatch(/^msg_/);
        } else {
          expect(Object.keys(body)).toEqual(["error"]);
          expect(typeof body.error).toBe("string");
        }
      }),
      { numRuns: 2000 },
    );
    // The generator must reach the storing path too, not only the validation errors.
    expect(ok).toBeGreaterThan(50);
  }, 60_000);
});

describe("incoming: rate limit and server faults in the simple form", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: "2" });
  });
  afterAll(() => t.close());

  it("over the rate limit → 429 {error} with Retry-After, per API key", async () => {
    const a = await t.account();
    const b = await t.account();
    const codes: number[] = [];
    let last = await postIncoming(t, a.apiKey, { customData: customData() });
    codes.push(last.statusCode);
    for (let i = 0; i < 2; i++) {
      last = await postIncoming(t, a.apiKey, { customData: customData() });
      codes.push(last.statusCode);
    }
    expect(codes).toEqual([200, 200, 429]);
    expectSimpleError(last, 429, /Rate limit/);
    expect(Number(last.headers["retry-after"])).toBeGreaterThan(0);
    // Another key is not limited by the first one's traffic.
    const other = await postIncoming(t, b.apiKey, { customData: customData() });
    expect(other.statusCode).toBe(200);
  });
});

describe("incoming: a server fault", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("→ 500 in the simple form, without internals", async () => {
    const a = await t.account();
    // Break storage under the running app: the insert fails inside the transaction.
    await t.parley.db.kysely.schema.alterTable("messages").renameTo("messages_gone").execute();
    const res = await postIncoming(t, a.apiKey, { customData: customData() });
    const message = expectSimpleError(res, 500);
    expect(message).not.toMatch(/messages|sql|table|relation/i);
    await t.parley.db.kysely.schema.alterTable("messages_gone").renameTo("messages").execute();
    // Nothing half-done remains: no contact, no job from the failed request.
    expect(await countRows(t, "contacts", a.accountId)).toBe(0);
    expect(await jobsOfAccount(t, BOT_REPLY_JOB, a.accountId)).toBe(0);
  });
});

// Message history: GET /v1/messages/{id} and GET /v1/contacts/{id}/messages (cursor pages, oldest
// first, delivery attempts included), scoped to the calling account.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { createOutboundMessage } from "../src/modules/delivery/outbound.ts";
import { insertAttempt } from "../src/modules/delivery/repo.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

interface MessageJson {
  id: string;
  conversationId: string;
  contactId: string;
  direction: string;
  type: string;
  sender: string;
  body: string;
  status: string;
  channel: string | null;
  campaignId: string | null;
  messageSid: string | null;
  media: unknown;
  error: unknown;
  deliveryAttempts: Array<{ id: string; statusCode: number | null; errorClass: string | null }>;
  createdAt: string;
  updatedAt: string;
}

interface Page {
  data: MessageJson[];
  hasMore: boolean;
  nextCursor: string | null;
}

describe("message history", () => {
  let t: TestApp;
  let acc: CreatedAccount;
  let other: CreatedAccount;
  let firstId: string;
  let contactId: string;
  const bodies = ["one", "two", "three", "four", "five"];

  beforeAll(async () => {
    t = await startTestApp();
    acc = await t.account();
    other = await t.account();
    for (const body of bodies) {
      const res = await postIncoming(t, acc.apiKey, {
        customData: customData({ fromId: "history-user", body, channel: "crm", campaignId: "cmp_x" }),
      });
      expect(res.statusCode).toBe(200);
      firstId ??= json(res).messageId as string;
    }
    const first = await t.inject({ method: "GET", url: `/v1/messages/${firstId}?apiKey=${acc.apiKey}` });
    contactId = json<MessageJson>(first).contactId;
  });
  afterAll(() => t.close());

  const get = (url: string, key = acc.apiKey) =>
    t.inject({ method: "GET", url: `${url}${url.includes("?") ? "&" : "?"}apiKey=${key}` });

  it("GET /v1/messages/{id} returns the message JSON", async () => {
    const res = await get(`/v1/messages/${firstId}`);
    expect(res.statusCode).toBe(200);
    const m = json<MessageJson>(res);
    expect(m).toMatchObject({
      id: firstId,
      direction: "inbound",
      type: "text",
      sender: "contact",
      body: "one",
      status: "received",
      channel: "crm",
      campaignId: "cmp_x",
      media: null,
      error: null,
      deliveryAttempts: [],
    });
    expect(m.conversationId).toMatch(/^cv_/);
    expect(m.contactId).toMatch(/^ct_/);
    expect(new Date(m.createdAt).toISOString()).toBe(m.createdAt);
    expect(new Date(m.updatedAt).toISOString()).toBe(m.updatedAt);
  });

  it("includes the message's delivery attempts, oldest first", async () => {
    const msg = json<MessageJson>(await get(`/v1/messages/${firstId}`));
    const out = await t.parley.db.kysely.transaction().execute((trx) =>
      createOutboundMessage(trx, acc.accountId, {
        conversationId: msg.conversationId,
        contactId: msg.contactId,
        body: "a reply",
        sender: "bot",
        channel: "crm",
        toId: "history-user",
      }),
    );
    const now = Date.now();
    await insertAttempt(t.parley.db.kysely, acc.accountId, {
      message_id: out.id,
      event_id: null,
      attempted_at: now,
      duration_ms: 12,
      status_code: 500,
      error_class: "http_error",
      error_message: "HTTP 500",
      response_body: "oops",
      url: "https://example.com/hook",
      attempt_number: 1,
      trigger: "scheduled",
      next_attempt_at: now + 5000,
    });
    await insertAttempt(t.parley.db.kysely, acc.accountId, {
      message_id: out.id,
      event_id: null,
      attempted_at: now + 1,
      duration_ms: 8,
      status_code: 200,
      error_class: null,
      error_message: null,
      response_body: null,
      url: "https://example.com/hook",
      attempt_number: 2,
      trigger: "manual",
      next_attempt_at: null,
    });
    const res = await get(`/v1/messages/${out.id}`);
    const m = json<MessageJson>(res);
    expect(m.direction).toBe("outbound");
    expect(m.sender).toBe("bot");
    expect(m.deliveryAttempts.map((a) => a.statusCode)).toEqual([500, 200]);
    expect(m.deliveryAttempts[0]?.errorClass).toBe("http_error");

    // The contact's history shows it after the five inbound messages, with its attempts.
    const page = json<Page>(await get(`/v1/contacts/${contactId}/messages`));
    expect(page.data.map((d) => d.body)).toEqual([...bodies, "a reply"]);
    expect(page.data[5]?.deliveryAttempts).toHaveLength(2);
    expect(page.data[0]?.deliveryAttempts).toEqual([]);
    expect(page.hasMore).toBe(false);
    expect(page.nextCursor).toBeNull();
  });

  it("pages through a contact's messages oldest first with a cursor", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/v1/contacts/${contactId}/messages?limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      const page = json<Page>(res);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((d) => d.body));
      cursor = page.nextCursor;
      expect(page.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual([...bodies, "a reply"]);
    expect(pages).toBe(3);
  });

  it("only lists the contact's own messages", async () => {
    const res = await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "someone-else" }) });
    const otherMsg = json<MessageJson>(await get(`/v1/messages/${json(res).messageId}`));
    expect(otherMsg.contactId).not.toBe(contactId);
    const page = json<Page>(await get(`/v1/contacts/${otherMsg.contactId}/messages`));
    expect(page.data.map((d) => d.id)).toEqual([otherMsg.id]);
  });

  it("an invalid cursor or limit is a 400 in the structured form", async () => {
    const badCursor = await get(`/v1/contacts/${contactId}/messages?cursor=not-a-cursor`);
    expect(badCursor.statusCode).toBe(400);
    expect(errorCode(badCursor)).toBe("INVALID_CURSOR");
    const badLimit = await get(`/v1/contacts/${contactId}/messages?limit=1000`);
    expect(badLimit.statusCode).toBe(400);
    expect(json<{ error: { code: string; message: string } }>(badLimit).error.message).toMatch(/limit/);
  });

  it("unknown ids are 404 MESSAGE_NOT_FOUND / CONTACT_NOT_FOUND", async () => {
    const m = await get("/v1/messages/msg_01hzzzzzzzzzzzzzzzzzzzzzzz");
    expect(m.statusCode).toBe(404);
    expect(errorCode(m)).toBe("MESSAGE_NOT_FOUND");
    const c = await get("/v1/contacts/ct_01hzzzzzzzzzzzzzzzzzzzzzzz/messages");
    expect(c.statusCode).toBe(404);
    expect(errorCode(c)).toBe("CONTACT_NOT_FOUND");
  });

  it("another account cannot read these messages or this contact's history (404)", async () => {
    const m = await get(`/v1/messages/${firstId}`, other.apiKey);
    expect(m.statusCode).toBe(404);
    expect(errorCode(m)).toBe("MESSAGE_NOT_FOUND");
    const c = await get(`/v1/contacts/${contactId}/messages`, other.apiKey);
    expect(c.statusCode).toBe(404);
    expect(errorCode(c)).toBe("CONTACT_NOT_FOUND");
    // The owner still reads them.
    expect((await get(`/v1/messages/${firstId}`)).statusCode).toBe(200);
  });

  it("history routes need a key (401)", async () => {
    const res = await t.inject({ method: "GET", url: `/v1/messages/${firstId}` });
    expect(res.statusCode).toBe(401);
    expect(errorCode(res)).toBe("UNAUTHORIZED");
  });
});

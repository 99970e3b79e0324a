// Unread per person (issue 33): each teammate has their own read mark. Opening a conversation in the
// app clears it for that teammate only; the list, the detail and GET /app/api/inbox/unread say the
// signed-in teammate's count; erasing the contact or removing the teammate removes the marks. Through
// the real HTTP server on SQLite or PostgreSQL (DATABASE_URL).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { type Browser, ownerBrowser, teammate } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { callWithKey, json, startTestApp, type TestApp } from "./helpers.ts";

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
}, 60_000);

afterAll(async () => {
  await t?.close();
});

async function unreadOf(b: Browser, conversationId: string) {
  const res = await b.req({ method: "GET", url: "/app/api/conversations" });
  expect(res.statusCode, res.body).toBe(200);
  const row = json<{ data: { id: string; unreadCount: number }[] }>(res).data.find(
    (c) => c.id === conversationId,
  );
  return row?.unreadCount;
}

async function totalOf(b: Browser) {
  const res = await b.req({ method: "GET", url: "/app/api/inbox/unread" });
  expect(res.statusCode, res.body).toBe(200);
  return json<{ unreadConversations: number }>(res).unreadConversations;
}

async function reads(accountId: string) {
  return t.parley.db.kysely
    .selectFrom("conversation_reads")
    .select(["user_id", "conversation_id"])
    .where("account_id", "=", accountId)
    .execute();
}

describe("unread per person", () => {
  it("opening a conversation clears it for that teammate only", async () => {
    const { acc, browser: owner } = await ownerBrowser(t);
    await updateSettings(t.parley.db, acc.accountId, { bot_active: 0 });
    const sam = await teammate(t, owner, "agent", "Sam");
    const fromId = `cust-${Math.random().toString(36).slice(2, 8)}`;
    const post = (body: string) => postIncoming(t, acc.apiKey, { customData: customData({ fromId, body }) });
    const first = await post("Hello");
    expect(first.statusCode, first.body).toBe(200);
    const { conversationId, contactId } = json<{ conversationId: string; contactId: string }>(
      await callWithKey(t, "GET", `/v1/messages/${json<{ messageId: string }>(first).messageId}`, acc.apiKey),
    );
    await post("Anyone there?");

    expect(await unreadOf(owner, conversationId)).toBe(2);
    expect(await unreadOf(sam, conversationId)).toBe(2);
    expect(await totalOf(sam)).toBe(1);

    const opened = await owner.req({ method: "GET", url: `/app/api/conversations/${conversationId}` });
    expect(opened.statusCode, opened.body).toBe(200);
    expect(json<{ conversation: { unreadCount: number } }>(opened).conversation.unreadCount).toBe(0);
    expect(await unreadOf(owner, conversationId)).toBe(0);
    expect(await totalOf(owner)).toBe(0);
    // Sam never opened it: still unread for Sam.
    expect(await unreadOf(sam, conversationId)).toBe(2);
    expect(await totalOf(sam)).toBe(1);

    // A new message is unread for both again: 1 for the owner, 3 for Sam.
    await new Promise((r) => setTimeout(r, 5));
    await post("Hello?");
    expect(await unreadOf(owner, conversationId)).toBe(1);
    expect(await unreadOf(sam, conversationId)).toBe(3);

    // Sam opens it: only Sam's clears.
    const samOpened = await sam.req({ method: "GET", url: `/app/api/conversations/${conversationId}` });
    expect(samOpened.statusCode, samOpened.body).toBe(200);
    expect(await unreadOf(sam, conversationId)).toBe(0);
    expect(await unreadOf(owner, conversationId)).toBe(1);
    expect(await reads(acc.accountId)).toHaveLength(2);

    // Removing Sam removes Sam's read mark.
    const removed = await owner.req({
      method: "DELETE",
      url: `/app/api/team/members/${sam.session.user.id}`,
    });
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await reads(acc.accountId)).map((r) => r.user_id)).toEqual([owner.session.user.id]);

    // Erasing the contact removes the rest.
    const erased = await owner.req({ method: "DELETE", url: `/app/api/contacts/${contactId}` });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(await reads(acc.accountId)).toHaveLength(0);
  });

  it("needs a session", async () => {
    const res = await t.inject({ method: "GET", url: "/app/api/inbox/unread" });
    expect(res.statusCode).toBe(401);
  });
});

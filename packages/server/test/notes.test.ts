// Private notes (issues 33 and 35): written and listed through /app/api, never a message (no delivery
// to the webhook, not in the /v1 message APIs, no credits); @mentions by name (longest match) or
// e-mail give those teammates a note.mentioned notification, and the events webhook the event;
// another account's conversation is 404; bad bodies are 400 and write nothing; erasing the contact
// removes its notes. Through the real HTTP server and worker, on SQLite or PostgreSQL (DATABASE_URL).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { type Browser, ownerBrowser, teammate } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { balanceOf, callWithKey, errorCode, json, startTestApp, type TestApp } from "./helpers.ts";
import { type Receiver, startReceiver } from "./receiver.ts";

interface Person {
  id: string;
  name: string | null;
  email: string | null;
}

interface Note {
  id: string;
  conversationId: string;
  body: string;
  author: Person;
  mentions: Person[];
  createdAt: string;
}

interface Bell {
  data: { kind: string; title: string; body: string; link: string | null }[];
}

let t: TestApp;
let webhook: Receiver;
let events: Receiver;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
) {
  const end = Date.now() + 10_000;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

beforeAll(async () => {
  [webhook, events] = await Promise.all([startReceiver(), startReceiver()]);
  t = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "0.05,0.05" });
  t.parley.worker.start();
}, 60_000);

afterAll(async () => {
  await t?.close();
  await webhook?.close();
  await events?.close();
});

/**
 * An account (bot off, so only what the test does reaches the webhook) with its webhook and events
 * webhook on the receivers, the owner signed in, teammates "Sam" and "Sam Lee", and one conversation.
 */
async function setup() {
  const { acc, browser: owner } = await ownerBrowser(t);
  await updateSettings(t.parley.db, acc.accountId, {
    bot_active: 0,
    webhook_url: `${webhook.url}/${acc.accountId}`,
    events_webhook_url: `${events.url}/${acc.accountId}`,
  });
  const sam = await teammate(t, owner, "agent", "Sam");
  const samLee = await teammate(t, owner, "admin", "Sam Lee");
  const fromId = `cust-${Math.random().toString(36).slice(2, 8)}`;
  const res = await postIncoming(t, acc.apiKey, {
    customData: customData({ fromId, body: "Where is my order?" }),
  });
  expect(res.statusCode, res.body).toBe(200);
  const messageId = json<{ messageId: string }>(res).messageId;
  const message = json<{ contactId: string; conversationId: string }>(
    await callWithKey(t, "GET", `/v1/messages/${messageId}`, acc.apiKey),
  );
  return {
    acc,
    owner,
    sam,
    samLee,
    fromId,
    contactId: message.contactId,
    conversationId: message.conversationId,
  };
}

async function addNote(b: Browser, conversationId: string, body: unknown) {
  return b.req({ method: "POST", url: `/app/api/conversations/${conversationId}/notes`, payload: { body } });
}

async function notesOf(b: Browser, conversationId: string) {
  const res = await b.req({ method: "GET", url: `/app/api/conversations/${conversationId}/notes` });
  expect(res.statusCode, res.body).toBe(200);
  return json<{ data: Note[] }>(res).data;
}

async function mentionsOf(b: Browser) {
  const res = await b.req({ method: "GET", url: "/app/api/notifications" });
  expect(res.statusCode, res.body).toBe(200);
  return json<Bell>(res).data.filter((n) => n.kind === "note.mentioned");
}

describe("private notes", () => {
  it("are written and listed, and are never messages: nothing reaches the webhook, /v1 or the credits", async () => {
    const { acc, owner, sam, fromId, contactId, conversationId } = await setup();
    const before = await balanceOf(t, acc.accountId);
    const first = await addNote(owner, conversationId, "  Customer is a VIP, be nice.  ");
    expect(first.statusCode, first.body).toBe(201);
    const note = json<Note>(first);
    expect(note).toMatchObject({
      conversationId,
      body: "Customer is a VIP, be nice.",
      author: { id: owner.session.user.id, email: owner.session.user.email },
      mentions: [],
    });
    expect(note.id).toMatch(/^nt_/);
    const second = json<Note>(await addNote(sam, conversationId, "Refund already sent."));
    // Any teammate reads them, oldest first.
    expect((await notesOf(sam, conversationId)).map((n) => n.id)).toEqual([note.id, second.id]);
    expect((await notesOf(owner, conversationId)).map((n) => n.author.id)).toEqual([
      owner.session.user.id,
      sam.session.user.id,
    ]);

    // Not in the thread, not in /v1's messages.
    const thread = await owner.req({ method: "GET", url: `/app/api/conversations/${conversationId}` });
    expect(thread.body).not.toContain("VIP");
    const v1 = await callWithKey(t, "GET", `/v1/contacts/${contactId}/messages`, acc.apiKey);
    expect(v1.statusCode).toBe(200);
    expect(json<{ data: unknown[] }>(v1).data).toHaveLength(1);
    expect(v1.body).not.toContain("VIP");

    // A person's reply afterwards reaches the webhook: had the notes been queued, they would be there first.
    const reply = await owner.req({
      method: "POST",
      url: `/app/api/conversations/${conversationId}/messages`,
      payload: { body: "We are on it!" },
    });
    expect(reply.statusCode, reply.body).toBe(201);
    // (The webhook payload names the customer by their fromId.)
    const mine = () => webhook.received.filter((r) => r.body.includes(fromId));
    await until("the reply at the webhook", () => mine().some((r) => r.body.includes("We are on it!")));
    await sleep(200);
    expect(mine()).toHaveLength(1);
    expect(mine().some((r) => /VIP|Refund/.test(r.body))).toBe(false);
    // No mention: no account event either; and no credits spent.
    expect(events.received.filter((r) => r.body.includes(conversationId))).toEqual([]);
    expect(await balanceOf(t, acc.accountId)).toBe(before);
  });

  it("mentions by name (longest match, any case) and by e-mail notify those teammates, never the author", async () => {
    const { owner, sam, samLee, conversationId } = await setup();
    const res = await addNote(
      owner,
      conversationId,
      `@sam lee can you call them? cc @${sam.session.user.email.toUpperCase()}, and me @${owner.session.user.email}. Not @Nobody, not x@sam.`,
    );
    expect(res.statusCode, res.body).toBe(201);
    const note = json<Note>(res);
    expect(note.mentions.map((m) => m.id)).toEqual([
      samLee.session.user.id,
      sam.session.user.id,
      owner.session.user.id,
    ]);
    expect(note.mentions[0]).toMatchObject({ name: "Sam Lee" });

    const author = await t.parley.db.kysely
      .selectFrom("users")
      .select(["name", "email"])
      .where("id", "=", owner.session.user.id)
      .executeTakeFirstOrThrow();
    for (const b of [sam, samLee]) {
      const [n, ...more] = await mentionsOf(b);
      expect(more).toEqual([]);
      expect(n).toMatchObject({
        title: `${author.name ?? author.email} mentioned you in a note`,
        link: `/inbox/${conversationId}`,
      });
      expect(n?.body).toContain("can you call them?");
    }
    expect(await mentionsOf(owner)).toEqual([]);

    // "@Sam" alone is Sam, not Sam Lee; the account event names the note and who was told.
    const short = json<Note>(await addNote(samLee, conversationId, "Thanks @Sam!"));
    expect(short.mentions.map((m) => m.id)).toEqual([sam.session.user.id]);
    expect(await mentionsOf(sam)).toHaveLength(2);
    expect(await mentionsOf(samLee)).toHaveLength(1);

    const event = await until("the note.mentioned event", () =>
      events.received
        .map((r) => JSON.parse(r.body) as Record<string, unknown>)
        .find((e) => e.type === "note.mentioned" && e.note_id === short.id),
    );
    expect(event).toMatchObject({
      conversation_id: conversationId,
      author_id: samLee.session.user.id,
      mentioned_user_ids: [sam.session.user.id],
    });
    expect(JSON.stringify(event)).not.toContain("Thanks");
    // A long note is shortened in the notification.
    const long = `@Sam ${"word ".repeat(300)}`.trim();
    expect((await addNote(owner, conversationId, long)).statusCode).toBe(201);
    const [latest] = await mentionsOf(sam);
    expect(latest?.body.length).toBeLessThanOrEqual(200);
    expect(latest?.body.endsWith("…")).toBe(true);
  });

  it("another account's conversation is 404, bad bodies are 400, and neither writes anything", async () => {
    const a = await setup();
    const b = await setup();
    for (const res of [
      await addNote(b.owner, a.conversationId, "@Sam snooping"),
      await b.owner.req({ method: "GET", url: `/app/api/conversations/${a.conversationId}/notes` }),
      await addNote(a.owner, "cv_01hzzzzzzzzzzzzzzzzzzzzzzz", "nowhere"),
    ]) {
      expect(res.statusCode, res.body).toBe(404);
      expect(errorCode(res)).toBe("CONVERSATION_NOT_FOUND");
    }
    for (const body of ["", "   \n ", "x".repeat(5001), 42, null]) {
      const res = await addNote(a.owner, a.conversationId, body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(errorCode(res)).toBe("VALIDATION_ERROR");
    }
    const missing = await a.owner.req({
      method: "POST",
      url: `/app/api/conversations/${a.conversationId}/notes`,
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
    expect(await notesOf(a.owner, a.conversationId)).toEqual([]);
    expect(await mentionsOf(a.sam)).toEqual([]);
    // The longest allowed note is fine.
    expect((await addNote(a.owner, a.conversationId, "y".repeat(5000))).statusCode).toBe(201);
  });

  it("go with the contact when it is erased", async () => {
    const { acc, owner, contactId, conversationId } = await setup();
    expect((await addNote(owner, conversationId, "Asked to be forgotten")).statusCode).toBe(201);
    const erased = await owner.req({ method: "DELETE", url: `/app/api/contacts/${contactId}` });
    expect(erased.statusCode, erased.body).toBe(200);
    const left = await t.parley.db.kysely
      .selectFrom("conversation_notes")
      .select("id")
      .where("account_id", "=", acc.accountId)
      .execute();
    expect(left).toEqual([]);
    const res = await owner.req({ method: "GET", url: `/app/api/conversations/${conversationId}/notes` });
    expect(res.statusCode).toBe(404);
  });
});

// The inbox's message search (issue 33): ?q= finds a word among the messages through the databases'
// full-text indexes (SQLite FTS5, PostgreSQL tsvector + GIN); each hit names its matching message
// with a snippet and the words' offsets; other accounts' messages never match; odd input is a 200
// or a 400, never a 500; new messages match at once; an erased contact's messages no longer do.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, ownerBrowser } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { DIALECT, json, startTestApp, type TestApp } from "./helpers.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface Hit {
  id: string;
  contact: { id: string; fromId: string | null; name: string | null };
  match?: { messageId: string; snippet: string; highlights: Array<[number, number]> } | null;
}

async function incoming(apiKey: string, data: Record<string, unknown>) {
  const res = await postIncoming(t, apiKey, { customData: customData(data) });
  expect(res.statusCode, res.body).toBeLessThan(300);
}

async function search(b: Browser, q: string): Promise<Hit[]> {
  const res = await b.req({ method: "GET", url: `/app/api/conversations?q=${encodeURIComponent(q)}` });
  expect(res.statusCode, res.body).toBe(200);
  return json<{ data: Hit[] }>(res).data;
}

async function thread(b: Browser, conversationId: string): Promise<Array<{ id: string; body: string }>> {
  const res = await b.req({ method: "GET", url: `/app/api/conversations/${conversationId}` });
  return json<{ messages: Array<{ id: string; body: string }> }>(res).messages;
}

const marked = (m: NonNullable<Hit["match"]>) => m.highlights.map(([s, e]) => m.snippet.slice(s, e));

describe("message search", () => {
  it("finds a word in a message and shows that message with the word marked", async () => {
    const { acc, browser } = await ownerBrowser(t);
    const { acc: other, browser: stranger } = await ownerBrowser(t);
    await incoming(acc.apiKey, { fromId: "ana-1", body: "Hello, my parcel never arrived", firstName: "Ana" });
    await incoming(acc.apiKey, { fromId: "ana-1", body: "Any news?" });
    await incoming(acc.apiKey, { fromId: "bo-2", body: "Thanks for the help" });
    await incoming(other.apiKey, { fromId: "eve-3", body: "my PARCEL is secret" });

    const hits = await search(browser, "parcel");
    expect(hits.map((h) => h.contact.fromId)).toEqual(["ana-1"]);
    const match = hits[0]?.match;
    if (!match) throw new Error("no match");
    const messages = await thread(browser, hits[0]!.id);
    expect(messages.find((m) => m.id === match.messageId)?.body).toBe("Hello, my parcel never arrived");
    expect(match.snippet).toContain("parcel never arrived");
    expect(marked(match)).toEqual(["parcel"]);
    // Case aside, several whole words in any order.
    expect((await search(browser, "ARRIVED, parcel!")).map((h) => h.contact.fromId)).toEqual(["ana-1"]);
    expect(marked((await search(browser, "ARRIVED parcel"))[0]!.match!)).toEqual(["parcel", "arrived"]);
    expect(await search(browser, "parcel help")).toEqual([]);
    // The other account finds only its own.
    expect((await search(stranger, "parcel")).map((h) => h.contact.fromId)).toEqual(["eve-3"]);
    // A name match says so with match: null.
    expect((await search(browser, "Ana")).map((h) => [h.contact.fromId, h.match])).toEqual([["ana-1", null]]);
    // Without q there is no match field.
    const all = json<{ data: Hit[] }>(await browser.req({ method: "GET", url: "/app/api/conversations" }));
    expect(all.data.every((h) => !("match" in h))).toBe(true);
  });

  it("finds an account's older match when another account holds more than a search's worth of newer ones", async () => {
    const { acc, browser } = await ownerBrowser(t);
    const { acc: busy, browser: busyBrowser } = await ownerBrowser(t);
    await incoming(acc.apiKey, { fromId: "old-1", body: "where is my walrus" });
    // More than SEARCH_HITS (1,000) newer messages with the word, all in the other account.
    for (let b = 0; b < 1_020; b += 102) {
      await Promise.all(
        Array.from({ length: 102 }, (_, i) =>
          incoming(busy.apiKey, { fromId: `w-${(b + i) % 25}`, body: `walrus number ${b + i}` }),
        ),
      );
    }
    expect((await search(browser, "walrus")).map((h) => h.contact.fromId)).toEqual(["old-1"]);
    expect((await search(browser, "my walrus")).map((h) => h.contact.fromId)).toEqual(["old-1"]);
    // The busy account sees its own 25 senders and not the other account's.
    const own = await search(busyBrowser, "walrus");
    expect(own).toHaveLength(25);
    expect(own.every((h) => h.contact.fromId?.startsWith("w-"))).toBe(true);
  });

  it("answers odd input with 200 or 400, never 500", async () => {
    const { acc, browser } = await ownerBrowser(t);
    await incoming(acc.apiKey, { fromId: "odd-1", body: 'say "AND" or NEAR(a b) * 🙂 café' });
    const odd = [
      '"',
      '""',
      "*",
      "a*",
      "AND",
      "OR NOT",
      "NEAR(",
      "col:x",
      "^x",
      "-",
      "🙂",
      "'",
      "\\",
      "%_",
      "{x}",
    ];
    for (const q of odd) {
      const res = await browser.req({
        method: "GET",
        url: `/app/api/conversations?q=${encodeURIComponent(q)}`,
      });
      expect([200, 400], `${q}: ${res.body}`).toContain(res.statusCode);
    }
    const long = await browser.req({ method: "GET", url: `/app/api/conversations?q=${"x".repeat(201)}` });
    expect(long.statusCode).toBe(400);
    // Words between operators still match; accents count (the same on both databases).
    expect((await search(browser, 'near "and"')).map((h) => h.contact.fromId)).toEqual(["odd-1"]);
    expect((await search(browser, "Café")).map((h) => h.contact.fromId)).toEqual(["odd-1"]);
    expect(await search(browser, "cafe")).toEqual([]);
  });

  it("finds a contact by any piece of its name, phone, e-mail or channel id, after an edit too", async () => {
    const { acc, browser } = await ownerBrowser(t);
    const { browser: stranger } = await ownerBrowser(t);
    await incoming(acc.apiKey, { fromId: "zoe-7", body: "hi", firstName: 'Zoë "Zed"' });
    const ids = async (b: Browser, q: string) => (await search(b, q)).map((h) => h.contact.fromId);
    // Three characters and more go through the trigram index; shorter through a scan.
    expect(await ids(browser, 'ë "ZE')).toEqual(["zoe-7"]);
    expect(await ids(browser, "oe-")).toEqual(["zoe-7"]);
    expect(await ids(browser, "zo")).toEqual(["zoe-7"]);
    expect(await ids(stranger, "zoe-7")).toEqual([]);
    const [hit] = await search(browser, "zoe-7");
    const edit = await browser.req({
      method: "PATCH",
      url: `/app/api/contacts/${hit!.contact.id}`,
      payload: { firstName: "Marguerite", email: "mq@example.org" },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(await ids(browser, "GUERIT")).toEqual(["zoe-7"]);
    expect(await ids(browser, "q@example.o")).toEqual(["zoe-7"]);
    expect(await ids(browser, "zed")).toEqual([]);
    expect(await ids(browser, "mq@example.org zoe")).toEqual([]);
  });

  it("finds a new message at once, and no longer finds an erased contact's", async () => {
    const { acc, browser } = await ownerBrowser(t);
    await incoming(acc.apiKey, { fromId: "gone-1", body: "first words" });
    expect(await search(browser, "zebra")).toEqual([]);
    await incoming(acc.apiKey, { fromId: "gone-1", body: "a zebra crossed" });
    const hits = await search(browser, "zebra");
    expect(hits.length).toBe(1);
    const erased = await browser.req({ method: "DELETE", url: `/app/api/contacts/${hits[0]!.contact.id}` });
    expect(erased.statusCode, erased.body).toBeLessThan(300);
    expect(await search(browser, "zebra")).toEqual([]);
  });
});

describe("message search with a word in most messages", () => {
  // Its own app: PostgreSQL reads its word statistics once per app and database.
  let fresh: TestApp;
  beforeAll(async () => {
    fresh = await startTestApp();
  });
  afterAll(async () => {
    await fresh?.close();
  });

  it("finds the messages holding both a rare word and a common one, newest first", async () => {
    const { acc, browser } = await ownerBrowser(fresh);
    const post = async (fromId: string, body: string) => {
      const res = await postIncoming(fresh, acc.apiKey, { customData: customData({ fromId, body }) });
      expect(res.statusCode, res.body).toBeLessThan(300);
    };
    await post("both-old", "hello, my walrus is lost");
    for (let i = 0; i < 100; i++) await post(`greet-${i % 8}`, `hello number ${i}`);
    await post("rare-only", "a walrus without a greeting");
    await post("both-new", "Hello again: the walrus came back");
    if (DIALECT === "postgres") {
      // PostgreSQL's statistics now call "hello" common (not "walrus", in 3 of 103): the search checks
      // it on the walrus hits.
      const db = fresh.parley.db.kysely;
      await sql`analyze messages`.execute(db);
      const { rows } = await sql<{ e: string }>`
        select x.e from pg_stats s, unnest(s.most_common_elems::text::text[]) as x(e)
        where s.schemaname = current_schema() and s.tablename = 'messages_search_idx'`.execute(db);
      expect(rows.map((r) => r.e)).toContain("hello");
    }
    const data = await search(browser, "walrus HELLO");
    expect(data.map((h) => h.contact.fromId)).toEqual(["both-new", "both-old"]);
    expect(marked(data[0]!.match!)).toEqual(["Hello", "walrus"]);
  });
});

// A contact's conversations, for the contact page and the inbox's contact panel: /app/api/conversations
// and /v1/conversations filter by contactId (newest activity first; another account's contact finds
// nothing), and the app's contacts carry their sender id and latest channel type, so a chat visitor
// without a name can be shown as "Widget visitor · vis_…".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOrCreateConversation } from "../src/modules/conversations/repo.ts";
import { type Browser, ownerBrowser } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { json, type Page, startTestApp, type TestApp } from "./helpers.ts";

const SHOP = "https://shop.example";

interface Conv {
  id: string;
  contact: { id: string; fromId: string | null };
  channelType: string | null;
}
interface ContactRow {
  id: string;
  fromId: string | null;
  channelType: string | null;
  conversationId: string | null;
}

describe("a contact's conversations", () => {
  let t: TestApp;
  let owner: Browser;
  let stranger: Browser;
  let acc: Awaited<ReturnType<typeof ownerBrowser>>["acc"];
  beforeAll(async () => {
    t = await startTestApp();
    ({ acc, browser: owner } = await ownerBrowser(t));
    stranger = (await ownerBrowser(t)).browser;
  });
  afterAll(async () => t?.close());

  const v1 = (method: "GET" | "POST", url: string, payload?: unknown) =>
    t.inject({
      method,
      url,
      headers: { "x-api-key": acc.apiKey },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  it("lists one contact's conversations, newest first, on /app/api and /v1; another account's finds none", async () => {
    const res = await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "ana-1" }) });
    expect(res.statusCode, res.body).toBe(200);
    await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "someone-else" }) });
    const all = json<Page<Conv>>(await owner.req({ method: "GET", url: "/app/api/conversations" }));
    const first = all.data.find((c) => c.contact.fromId === "ana-1") as Conv;
    const contactId = first.contact.id;
    // A second conversation of the same contact on the website chat, more recently active.
    const web = await v1("POST", "/v1/channels", {
      type: "web",
      name: "Website",
      config: { allowedOrigins: [SHOP] },
    });
    expect(web.statusCode, web.body).toBe(201);
    const { conversation: second } = await findOrCreateConversation(
      t.parley.db.kysely,
      acc.accountId,
      contactId,
      null,
      Date.now() + 1000,
      json<{ id: string }>(web).id,
    );

    const mine = json<Page<Conv>>(
      await owner.req({ method: "GET", url: `/app/api/conversations?contactId=${contactId}` }),
    );
    expect(mine.data.map((c) => [c.id, c.channelType])).toEqual([
      [second.id, "web"],
      [first.id, "custom"],
    ]);
    const viaV1 = json<Page<{ id: string }>>(await v1("GET", `/v1/conversations?contactId=${contactId}`));
    expect(viaV1.data.map((c) => c.id).sort()).toEqual([first.id, second.id].sort());

    const theirs = await stranger.req({
      method: "GET",
      url: `/app/api/conversations?contactId=${contactId}`,
    });
    expect(theirs.statusCode).toBe(200);
    expect(json<Page<Conv>>(theirs).data).toEqual([]);
    const tooLong = await owner.req({
      method: "GET",
      url: `/app/api/conversations?contactId=${"x".repeat(65)}`,
    });
    expect(tooLong.statusCode).toBe(400);
  });

  it("gives the app's contacts their sender id and latest channel: a widget visitor is web:vis_…", async () => {
    const web = json<{ data: Array<{ id: string; type: string }> }>(await v1("GET", "/v1/channels"));
    const channelId = web.data.find((c) => c.type === "web")?.id as string;
    const widget = (method: "POST", rest: string, token?: string, payload?: unknown) =>
      t.inject({
        method,
        url: `/widget/v1/channels/${channelId}${rest}`,
        headers: { origin: SHOP, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const visitor = await widget("POST", "/visitors");
    expect(visitor.statusCode, visitor.body).toBe(201);
    const { visitorId, visitorToken } = json<{ visitorId: string; visitorToken: string }>(visitor);
    const sent = await widget("POST", "/messages", visitorToken, { body: "Hi there", clientMessageId: "m1" });
    expect(sent.statusCode, sent.body).toBe(201);

    const page = json<Page<ContactRow>>(
      await owner.req({ method: "GET", url: "/app/api/contacts?limit=200" }),
    );
    const row = page.data.find((c) => c.fromId === `web:${visitorId}`);
    expect(row).toMatchObject({ channelType: "web", conversationId: expect.stringMatching(/^cv_/) });
    const ana = page.data.find((c) => c.fromId === "ana-1");
    expect(ana?.channelType).toBe("web");
    const detail = json<ContactRow & { contact: { id: string } }>(
      await owner.req({ method: "GET", url: `/app/api/contacts/${row?.id}` }),
    );
    expect(detail).toMatchObject({ fromId: `web:${visitorId}`, channelType: "web" });
  });
});

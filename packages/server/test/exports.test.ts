// Exports (issue 38): GET /v1/exports/{contacts,conversations} and the web app's twin, as CSV and JSON
// Lines: every row of the account and none of another's, lists and labels with each contact, messages
// with each conversation, cells a spreadsheet would run neutralised, several pages read in order, bad
// input refused, and owners and admins only in the app.
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { insertContactsIfAbsent } from "../src/modules/contacts/repo.ts";
import { newId } from "../src/platform/ids.ts";
import { ownerBrowser, teammate } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

let t: TestApp;
let a: CreatedAccount;
let b: CreatedAccount;

const get = (url: string, apiKey: string) =>
  t.inject({ method: "GET", url, headers: { "x-api-key": apiKey } });
const csvRows = (body: string) => parse(body, { columns: true }) as Array<Record<string, string>>;
const jsonLines = <T>(body: string) =>
  body
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

beforeAll(async () => {
  t = await startTestApp();
  a = await t.account();
  b = await t.account();
  const contact = async (apiKey: string, payload: Record<string, unknown>) => {
    const res = await t.inject({
      method: "POST",
      url: "/v1/contacts",
      headers: { "x-api-key": apiKey },
      payload,
    });
    expect(res.statusCode, res.body).toBe(201);
    return json<{ id: string }>(res).id;
  };
  const ada = await contact(a.apiKey, {
    firstName: "Ada",
    lastName: "Lovelace",
    phone: "+14155550101",
    email: "ada@example.com",
    labels: ["vip", "beta"],
  });
  await contact(a.apiKey, { firstName: '=HYPERLINK("http://evil.test")', email: "formula@example.com" });
  await contact(b.apiKey, { firstName: "Other", email: "other@example.com" });
  const list = await t.inject({
    method: "POST",
    url: "/v1/lists",
    headers: { "x-api-key": a.apiKey },
    payload: { name: "Newsletter" },
  });
  const listId = json<{ id: string }>(list).id;
  const added = await t.inject({
    method: "POST",
    url: `/v1/lists/${listId}/contacts`,
    headers: { "x-api-key": a.apiKey },
    payload: { contactId: ada },
  });
  expect(added.statusCode, added.body).toBeLessThan(300);
  for (const body of ["Hello, is the shop open?", "And on Sunday?"]) {
    const res = await postIncoming(t, a.apiKey, {
      customData: customData({ fromId: "chat-42", body, firstName: "Grace" }),
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  const res = await postIncoming(t, b.apiKey, {
    customData: customData({ fromId: "chat-b", body: "secret of b" }),
  });
  expect(res.statusCode, res.body).toBe(200);
});
afterAll(() => t?.close());

describe("GET /v1/exports/contacts", () => {
  it("CSV: every contact of the account with labels and lists, none of another's, formulas neutralised", async () => {
    const res = await get("/v1/exports/contacts", a.apiKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toMatch(
      /^attachment; filename="contacts-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(res.body.split("\n")[0]).toBe(
      "id,firstName,lastName,phone,email,channelId,labels,lists,botActive,smsOptedOutAt,createdAt,updatedAt",
    );
    const rows = csvRows(res.body);
    expect(rows.map((r) => r.email).sort()).toEqual(["", "ada@example.com", "formula@example.com"].sort());
    const ada = rows.find((r) => r.email === "ada@example.com")!;
    expect(ada).toMatchObject({
      firstName: "Ada",
      lastName: "Lovelace",
      phone: "'+14155550101",
      labels: "vip; beta",
      lists: "Newsletter",
      botActive: "true",
    });
    expect(rows.find((r) => r.email === "formula@example.com")!.firstName).toBe(
      '\'=HYPERLINK("http://evil.test")',
    );
    // The chat contact made by the incoming messages, with its channel id.
    expect(rows.find((r) => r.channelId === "chat-42")?.firstName).toBe("Grace");
    expect(res.body).not.toContain("other@example.com");
  });

  it("JSON Lines: the API's contact JSON with its channel id and lists", async () => {
    const res = await get("/v1/exports/contacts?format=jsonl", a.apiKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toBe("application/x-ndjson; charset=utf-8");
    expect(res.headers["content-disposition"]).toMatch(/filename="contacts-\d{4}-\d{2}-\d{2}\.jsonl"$/);
    const lines = jsonLines<{ email: string | null; labels: string[]; lists: Array<{ name: string }> }>(
      res.body,
    );
    expect(lines).toHaveLength(3);
    const ada = lines.find((l) => l.email === "ada@example.com")!;
    expect(ada).toMatchObject({ firstName: "Ada", labels: ["vip", "beta"], lists: [{ name: "Newsletter" }] });
    expect(res.body).not.toContain("other@example.com");
  });

  it("reads page after page in id order: 2,500 more contacts, each exactly once", async () => {
    const c = await t.account();
    const now = Date.now();
    await insertContactsIfAbsent(
      t.parley.db.kysely,
      c.accountId,
      Array.from({ length: 2_500 }, (_, i) => ({
        id: newId("contact"),
        first_name: `Bulk ${i}`,
        last_name: null,
        phone: null,
        email: `bulk${i}@example.com`,
        external_id: null,
        bot_active: 1,
        created_at: now,
        updated_at: now,
      })),
    );
    const res = await get("/v1/exports/contacts?format=jsonl", c.apiKey);
    expect(res.statusCode).toBe(200);
    const ids = jsonLines<{ id: string }>(res.body).map((l) => l.id);
    expect(ids).toHaveLength(2_500);
    expect(new Set(ids).size).toBe(2_500);
    expect([...ids].sort()).toEqual(ids);
  });

  it("refuses an unknown format with a 400 and no key with a 401", async () => {
    const bad = await get("/v1/exports/contacts?format=xlsx", a.apiKey);
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe("VALIDATION_ERROR");
    const anonymous = await t.inject({ method: "GET", url: "/v1/exports/contacts" });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe("GET /v1/exports/conversations", () => {
  it("JSON Lines: each conversation with its contact and its messages, oldest first", async () => {
    const res = await get("/v1/exports/conversations?format=jsonl", a.apiKey);
    expect(res.statusCode, res.body).toBe(200);
    const lines = jsonLines<{
      contact: { channelId: string | null };
      messages: Array<{ direction: string; body: string | null; deliveryAttempts?: unknown }>;
    }>(res.body);
    expect(lines).toHaveLength(1);
    const [conversation] = lines;
    expect(conversation!.contact.channelId).toBe("chat-42");
    const inbound = conversation!.messages.filter((m) => m.direction === "inbound").map((m) => m.body);
    expect(inbound).toEqual(["Hello, is the shop open?", "And on Sunday?"]);
    expect(conversation!.messages[0]).not.toHaveProperty("deliveryAttempts");
    expect(res.body).not.toContain("secret of b");
  });

  it("CSV: a row a message with the conversation's columns", async () => {
    const res = await get("/v1/exports/conversations", a.apiKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-disposition"]).toMatch(/filename="conversations-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = csvRows(res.body).filter((r) => r.direction === "inbound");
    expect(rows.map((r) => r.body)).toEqual(["Hello, is the shop open?", "And on Sunday?"]);
    expect(rows[0]).toMatchObject({ contactName: "Grace", contactChannelId: "chat-42", status: "open" });
    expect(res.body).not.toContain("secret of b");
  });
});

describe("GET /app/api/exports/{kind}", () => {
  it("owners and admins download; agents get 403; an unknown kind is a 400", async () => {
    const { acc, browser: owner } = await ownerBrowser(t);
    await t.inject({
      method: "POST",
      url: "/v1/contacts",
      headers: { "x-api-key": acc.apiKey },
      payload: { firstName: "Mine", email: "mine@example.com" },
    });
    const own = await owner.req({ method: "GET", url: "/app/api/exports/contacts?format=csv" });
    expect(own.statusCode, own.body).toBe(200);
    expect(csvRows(own.body).map((r) => r.email)).toEqual(["mine@example.com"]);
    const admin = await teammate(t, owner, "admin");
    expect(
      (await admin.req({ method: "GET", url: "/app/api/exports/conversations?format=jsonl" })).statusCode,
    ).toBe(200);
    const agent = await teammate(t, owner, "agent");
    const refused = await agent.req({ method: "GET", url: "/app/api/exports/contacts" });
    expect(refused.statusCode).toBe(403);
    expect(errorCode(refused)).toBe("FORBIDDEN");
    const unknown = await owner.req({ method: "GET", url: "/app/api/exports/invoices" });
    expect(unknown.statusCode).toBe(400);
  });
});

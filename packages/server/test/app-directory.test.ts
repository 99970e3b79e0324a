// /app/api contacts and lists (web app part 2): a session is required, CSRF is checked on changes,
// another account's ids are 404, and agents may not erase a contact.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, ownerBrowser, teammate } from "./app-helpers.ts";
import { errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

interface Contact {
  id: string;
  phone: string | null;
  labels: string[];
  conversationId?: string | null;
}

describe("app api: contacts and lists", () => {
  let t: TestApp;
  let owner: Browser;
  let stranger: Browser;
  beforeAll(async () => {
    t = await startTestApp();
    owner = (await ownerBrowser(t)).browser;
    stranger = (await ownerBrowser(t)).browser;
  });
  afterAll(async () => t?.close());

  it("creates with the API's validation messages, edits labels, searches and filters", async () => {
    const bad = await owner.req({
      method: "POST",
      url: "/app/api/contacts",
      payload: { phone: "4155550100" },
    });
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe("INVALID_PHONE");
    expect(json<{ error: { message: string } }>(bad).error.message).toMatch(/country code/);
    const made = await owner.req({
      method: "POST",
      url: "/app/api/contacts",
      payload: { firstName: "Grace", phone: "+1 415 555 0177", labels: ["vip"] },
    });
    expect(made.statusCode, made.body).toBe(201);
    const c = json<Contact & { created: boolean }>(made);
    expect(c).toMatchObject({ phone: "+14155550177", labels: ["vip"], created: true });
    const patched = await owner.req({
      method: "PATCH",
      url: `/app/api/contacts/${c.id}`,
      payload: { labels: ["vip", "returning"] },
    });
    expect(json<Contact>(patched).labels).toEqual(["vip", "returning"]);
    const found = json<{ data: Contact[] }>(
      await owner.req({ method: "GET", url: "/app/api/contacts?q=grace&label=returning" }),
    );
    expect(found.data.map((x) => x.id)).toEqual([c.id]);
    expect(found.data[0]?.conversationId).toBeNull();
    const detail = json<{ contact: Contact; lists: unknown[]; conversationId: null }>(
      await owner.req({ method: "GET", url: `/app/api/contacts/${c.id}` }),
    );
    expect(detail).toMatchObject({ contact: { id: c.id }, lists: [], conversationId: null });
  });

  it("lists: create, rename, members with paging, add and remove, delete", async () => {
    const c = json<Contact>(
      await owner.req({ method: "POST", url: "/app/api/contacts", payload: { email: "member@example.com" } }),
    );
    const list = json<{ id: string; name: string }>(
      await owner.req({ method: "POST", url: "/app/api/lists", payload: { name: "VIPs" } }),
    );
    expect(list.name).toBe("VIPs");
    const add = await owner.req({
      method: "POST",
      url: `/app/api/lists/${list.id}/contacts`,
      payload: { contactId: c.id },
    });
    expect(json(add)).toEqual({ success: true, added: true });
    const members = json<{ data: Contact[] }>(
      await owner.req({ method: "GET", url: `/app/api/lists/${list.id}/contacts` }),
    );
    expect(members.data.map((m) => m.id)).toEqual([c.id]);
    const detail = json<{ lists: Array<{ id: string; name: string }> }>(
      await owner.req({ method: "GET", url: `/app/api/contacts/${c.id}` }),
    );
    expect(detail.lists).toEqual([{ id: list.id, name: "VIPs" }]);
    const renamed = await owner.req({
      method: "PATCH",
      url: `/app/api/lists/${list.id}`,
      payload: { name: "Best" },
    });
    expect(json(renamed)).toMatchObject({ name: "Best", memberCount: 1 });
    const removed = await owner.req({ method: "DELETE", url: `/app/api/lists/${list.id}/contacts/${c.id}` });
    expect(json(removed)).toEqual({ success: true, removed: true });
    expect((await owner.req({ method: "DELETE", url: `/app/api/lists/${list.id}` })).statusCode).toBe(204);
    expect((await owner.req({ method: "GET", url: `/app/api/lists/${list.id}` })).statusCode).toBe(404);
  });

  it("session and CSRF are required, another account's ids are 404, agents cannot erase", async () => {
    const c = json<Contact>(
      await owner.req({ method: "POST", url: "/app/api/contacts", payload: { phone: "+14155550188" } }),
    );
    const list = json<{ id: string }>(
      await owner.req({ method: "POST", url: "/app/api/lists", payload: { name: "L" } }),
    );
    expect((await t.inject({ method: "GET", url: "/app/api/contacts" })).statusCode).toBe(401);
    const noCsrf = await owner.req({
      method: "POST",
      url: "/app/api/lists",
      payload: { name: "x" },
      csrf: false,
    });
    expect(errorCode(noCsrf)).toBe("CSRF_FAILED");
    for (const [method, url, payload] of [
      ["GET", `/app/api/contacts/${c.id}`],
      ["PATCH", `/app/api/contacts/${c.id}`, { firstName: "Mallory" }],
      ["DELETE", `/app/api/contacts/${c.id}`],
      ["GET", `/app/api/lists/${list.id}`],
      ["PATCH", `/app/api/lists/${list.id}`, { name: "taken" }],
      ["DELETE", `/app/api/lists/${list.id}`],
      ["GET", `/app/api/lists/${list.id}/contacts`],
      ["POST", `/app/api/lists/${list.id}/contacts`, { contactId: c.id }],
      ["DELETE", `/app/api/lists/${list.id}/contacts/${c.id}`],
    ] as const) {
      const res = await stranger.req({ method, url, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    // The stranger's list never shows the owner's rows.
    expect(
      json<{ data: unknown[] }>(await stranger.req({ method: "GET", url: "/app/api/contacts" })).data,
    ).toEqual([]);
    const agent = await teammate(t, owner, "agent");
    const refused = await agent.req({ method: "DELETE", url: `/app/api/contacts/${c.id}` });
    expect(refused.statusCode).toBe(403);
    expect((await owner.req({ method: "GET", url: `/app/api/contacts/${c.id}` })).statusCode).toBe(200);
    const erased = await owner.req({ method: "DELETE", url: `/app/api/contacts/${c.id}` });
    expect(json(erased)).toMatchObject({ success: true, contactId: c.id });
    expect((await owner.req({ method: "GET", url: `/app/api/contacts/${c.id}` })).statusCode).toBe(404);
  });
});

describe("app api: the inbox filters by a contact's label", () => {
  it("label= keeps the conversations whose contact carries the label", async () => {
    const t = await startTestApp();
    try {
      const { acc, browser } = await ownerBrowser(t);
      const { postIncoming, customData } = await import("./fixtures/incoming.ts");
      await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "vip-1", body: "hi" }) });
      await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "plain-1", body: "hi" }) });
      const all = json<{ data: Array<{ contact: { id: string; fromId: string } }> }>(
        await browser.req({ method: "GET", url: "/app/api/conversations" }),
      );
      const vip = all.data.find((c) => c.contact.fromId === "vip-1");
      await browser.req({
        method: "PATCH",
        url: `/app/api/contacts/${vip?.contact.id}`,
        payload: { labels: ["VIP"] },
      });
      const filtered = json<{ data: Array<{ contact: { fromId: string } }> }>(
        await browser.req({ method: "GET", url: "/app/api/conversations?label=vip" }),
      );
      expect(filtered.data.map((c) => c.contact.fromId)).toEqual(["vip-1"]);
    } finally {
      await t.close();
    }
  });
});

describe("app api: CSV imports", () => {
  it("previews with the guessed mapping, imports, shows progress and the rejected rows; session, CSRF and tenant checks", async () => {
    const t = await startTestApp();
    try {
      const { browser } = await ownerBrowser(t);
      const csv = "Given name,Mobile,E-mail\nAda,+14155550161,ada@example.com\nBob,4155550162,\n";
      const preview = await browser.req({
        method: "POST",
        url: "/app/api/imports/preview",
        headers: { "content-type": "text/csv" },
        payload: csv,
      });
      expect(json(preview)).toEqual({
        header: ["Given name", "Mobile", "E-mail"],
        mapping: { "Given name": "firstName", Mobile: "phone", "E-mail": "email" },
        sample: [
          ["Ada", "+14155550161", "ada@example.com"],
          ["Bob", "4155550162", ""],
        ],
        total: 2,
      });
      const noCsrf = await browser.req({
        method: "POST",
        url: "/app/api/imports",
        headers: { "content-type": "text/csv" },
        payload: csv,
        csrf: false,
      });
      expect(errorCode(noCsrf)).toBe("CSRF_FAILED");
      const started = await browser.req({
        method: "POST",
        url: "/app/api/imports?fileName=people.csv",
        headers: { "content-type": "text/csv" },
        payload: csv,
      });
      expect(started.statusCode, started.body).toBe(202);
      const { importId } = json<{ importId: string }>(started);
      await t.parley.worker.drain();
      const done = json(await browser.req({ method: "GET", url: `/app/api/imports/${importId}` }));
      expect(done).toMatchObject({
        status: "done",
        total: 2,
        created: 1,
        rejected: 1,
        fileName: "people.csv",
      });
      const rejected = await browser.req({ method: "GET", url: `/app/api/imports/${importId}/rejected` });
      expect(rejected.body).toMatch(/^Given name,Mobile,E-mail,row,reason\nBob,4155550162,,2,/);
      const stranger = (await ownerBrowser(t)).browser;
      expect((await stranger.req({ method: "GET", url: `/app/api/imports/${importId}` })).statusCode).toBe(
        404,
      );
      expect(
        (await stranger.req({ method: "GET", url: `/app/api/imports/${importId}/rejected` })).statusCode,
      ).toBe(404);
      expect((await t.inject({ method: "GET", url: `/app/api/imports/${importId}` })).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});

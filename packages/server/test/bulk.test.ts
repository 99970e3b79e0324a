// Bulk actions (issue 33): conversations (assign, resolve, reopen, label), contacts (label, unlabel,
// delete) and several list members at once, on /v1 and /app/api. One transaction per call: a bad
// field is a 400 that changes nothing; another account's ids are "not found" and left alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { type Browser, ownerBrowser, teammate } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { callWithKey, errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

interface Contact {
  id: string;
  labels: string[];
}
interface Conv {
  id: string;
  contactId: string;
  status: string;
  assigneeId: string | null;
}
interface Bulk {
  updated: number;
  notFound: string[];
}

let t: TestApp;
let seq = 0;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

async function contacts(acc: CreatedAccount, n: number): Promise<Contact[]> {
  const out: Contact[] = [];
  for (let i = 0; i < n; i++) {
    const res = await callWithKey(t, "POST", "/v1/contacts", acc.apiKey, {
      email: `bulk${++seq}@example.com`,
      labels: ["old"],
    });
    expect(res.statusCode, res.body).toBe(201);
    out.push(json<Contact>(res));
  }
  return out;
}

async function conversations(acc: CreatedAccount, n: number): Promise<Conv[]> {
  for (let i = 0; i < n; i++) {
    const res = await postIncoming(t, acc.apiKey, {
      customData: customData({ fromId: `bulk-${++seq}`, body: "hello" }),
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
  }
  const page = json<{ data: Conv[] }>(await callWithKey(t, "GET", "/v1/conversations", acc.apiKey));
  return page.data;
}

const bulk = (acc: CreatedAccount, what: "contacts" | "conversations", body: unknown) =>
  callWithKey(t, "POST", `/v1/${what}/bulk`, acc.apiKey, body);

async function contact(acc: CreatedAccount, id: string) {
  return callWithKey(t, "GET", `/v1/contacts/${id}`, acc.apiKey);
}

describe("POST /v1/contacts/bulk", () => {
  it("labels and unlabels the account's contacts; another account's ids are not found and untouched", async () => {
    const acc = await t.account();
    const other = await t.account();
    const mine = await contacts(acc, 3);
    const [theirs] = await contacts(other, 1);
    const ids = [...mine.map((c) => c.id), theirs?.id as string, mine[0]?.id as string];
    const res = await bulk(acc, "contacts", { ids, action: "label", label: " VIP " });
    expect(res.statusCode, res.body).toBe(200);
    expect(json<Bulk>(res)).toEqual({ updated: 3, notFound: [theirs?.id] });
    for (const c of mine) expect(json<Contact>(await contact(acc, c.id)).labels).toEqual(["old", "VIP"]);
    expect(json<Contact>(await contact(other, theirs?.id as string)).labels).toEqual(["old"]);
    // Labelling again changes nothing; unlabel ignores case, as the label filter does.
    await bulk(acc, "contacts", { ids, action: "label", label: "vip" });
    expect(json<Contact>(await contact(acc, mine[1]?.id as string)).labels).toEqual(["old", "VIP"]);
    const off = await bulk(acc, "contacts", { ids: [mine[1]?.id], action: "unlabel", label: "vip" });
    expect(json<Bulk>(off)).toEqual({ updated: 1, notFound: [] });
    expect(json<Contact>(await contact(acc, mine[1]?.id as string)).labels).toEqual(["old"]);
  });

  it("rejects bad input with a 400 naming the field, changing nothing", async () => {
    const acc = await t.account();
    const [c] = await contacts(acc, 1);
    const id = c?.id as string;
    const cases: Array<[unknown, RegExp]> = [
      [{ action: "label", label: "x" }, /ids/],
      [{ ids: [], action: "label", label: "x" }, /ids/],
      [{ ids: Array.from({ length: 501 }, (_, i) => `ct_${i}`), action: "label", label: "x" }, /ids/],
      [{ ids: [id], action: "explode" }, /action/],
      [{ ids: [id], action: "label" }, /label/],
      [{ ids: [id], action: "label", label: "a,b" }, /label/],
    ];
    for (const [body, field] of cases) {
      const res = await bulk(acc, "contacts", body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(errorCode(res)).toBe("VALIDATION_ERROR");
      expect(json<{ error: { message: string } }>(res).error.message).toMatch(field);
    }
    expect(json<Contact>(await contact(acc, id)).labels).toEqual(["old"]);
  });

  it("a contact that would pass 20 labels fails the whole call: nothing changes", async () => {
    const acc = await t.account();
    const [plain] = await contacts(acc, 1);
    const full = json<Contact>(
      await callWithKey(t, "POST", "/v1/contacts", acc.apiKey, {
        email: `full${++seq}@example.com`,
        labels: Array.from({ length: 20 }, (_, i) => `l${i}`),
      }),
    );
    const res = await bulk(acc, "contacts", { ids: [plain?.id, full.id], action: "label", label: "new" });
    expect(res.statusCode).toBe(400);
    expect(json<{ error: { message: string } }>(res).error.message).toMatch(/label: .*20 labels/);
    expect(json<Contact>(await contact(acc, plain?.id as string)).labels).toEqual(["old"]);
  });

  it("delete erases each contact with its conversation and memberships; others stay", async () => {
    const acc = await t.account();
    const other = await t.account();
    const convs = await conversations(acc, 2);
    const [kept] = await contacts(acc, 1);
    const [theirs] = await contacts(other, 1);
    const list = json<{ id: string }>(await callWithKey(t, "POST", "/v1/lists", acc.apiKey, { name: "L" }));
    const members = [...convs.map((c) => c.contactId), kept?.id as string];
    await callWithKey(t, "POST", `/v1/lists/${list.id}/contacts/bulk`, acc.apiKey, { contactIds: members });
    const gone = convs.map((c) => c.contactId);
    const res = await bulk(acc, "contacts", { ids: [...gone, theirs?.id], action: "delete" });
    expect(json<Bulk>(res)).toEqual({ updated: 2, notFound: [theirs?.id] });
    for (const id of gone) expect((await contact(acc, id)).statusCode).toBe(404);
    for (const c of convs) {
      expect((await callWithKey(t, "GET", `/v1/conversations/${c.id}`, acc.apiKey)).statusCode).toBe(404);
    }
    const db = t.parley.db.kysely;
    const messages = await db.selectFrom("messages").select("id").where("contact_id", "in", gone).execute();
    expect(messages).toEqual([]);
    const left = json<{ data: Contact[] }>(
      await callWithKey(t, "GET", `/v1/lists/${list.id}/contacts`, acc.apiKey),
    );
    expect(left.data.map((c) => c.id)).toEqual([kept?.id]);
    expect((await contact(other, theirs?.id as string)).statusCode).toBe(200);
  });
});

describe("POST /v1/lists/:listId/contacts/bulk", () => {
  it("adds several members at once: counts new and existing, reports others' ids; 404 for another's list", async () => {
    const acc = await t.account();
    const other = await t.account();
    const mine = await contacts(acc, 3);
    const [theirs] = await contacts(other, 1);
    const list = json<{ id: string }>(await callWithKey(t, "POST", "/v1/lists", acc.apiKey, { name: "L" }));
    const url = `/v1/lists/${list.id}/contacts/bulk`;
    await callWithKey(t, "POST", `/v1/lists/${list.id}/contacts`, acc.apiKey, { contactId: mine[0]?.id });
    const res = await callWithKey(t, "POST", url, acc.apiKey, {
      contactIds: [...mine.map((c) => c.id), theirs?.id, mine[1]?.id],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({
      success: true,
      listId: list.id,
      added: 2,
      alreadyMembers: 1,
      notFound: [theirs?.id],
    });
    const got = json<{ memberCount: number }>(
      await callWithKey(t, "GET", `/v1/lists/${list.id}`, acc.apiKey),
    );
    expect(got.memberCount).toBe(3);
    const foreign = await callWithKey(t, "POST", url, other.apiKey, { contactIds: [theirs?.id] });
    expect(foreign.statusCode).toBe(404);
    expect(errorCode(foreign)).toBe("LIST_NOT_FOUND");
    for (const body of [{}, { contactIds: [] }, { contactIds: Array.from({ length: 501 }, () => "x") }]) {
      const bad = await callWithKey(t, "POST", url, acc.apiKey, body);
      expect(bad.statusCode).toBe(400);
      expect(json<{ error: { message: string } }>(bad).error.message).toMatch(/contactIds/);
    }
  });
});

describe("POST /v1/conversations/bulk", () => {
  it("resolves, reopens, assigns and labels; another account's ids are not found and untouched", async () => {
    const { acc, browser: owner } = await ownerBrowser(t);
    const other = await t.account();
    const convs = await conversations(acc, 3);
    const [theirs] = await conversations(other, 1);
    const ids = [...convs.map((c) => c.id), theirs?.id as string];
    const get = async (a: CreatedAccount, id: string) =>
      json<Conv>(await callWithKey(t, "GET", `/v1/conversations/${id}`, a.apiKey));

    expect(json<Bulk>(await bulk(acc, "conversations", { ids, action: "resolve" }))).toEqual({
      updated: 3,
      notFound: [theirs?.id],
    });
    for (const c of convs) expect((await get(acc, c.id)).status).toBe("resolved");
    expect((await get(other, theirs?.id as string)).status).toBe("open");
    await bulk(acc, "conversations", { ids: [convs[0]?.id], action: "reopen" });
    expect((await get(acc, convs[0]?.id as string)).status).toBe("open");

    const userId = owner.session.user.id;
    const assigned = await bulk(acc, "conversations", { ids, action: "assign", assigneeId: userId });
    expect(json<Bulk>(assigned).updated).toBe(3);
    for (const c of convs) expect((await get(acc, c.id)).assigneeId).toBe(userId);
    expect((await get(other, theirs?.id as string)).assigneeId).toBeNull();
    await bulk(acc, "conversations", { ids: [convs[2]?.id], action: "assign", assigneeId: null });
    expect((await get(acc, convs[2]?.id as string)).assigneeId).toBeNull();

    // A label goes on each conversation's contact: the inbox's label filter finds them.
    await bulk(acc, "conversations", { ids: ids.slice(0, 2), action: "label", label: "refund" });
    const labelled = json<{ data: Conv[] }>(
      await owner.req({ method: "GET", url: "/app/api/conversations?label=refund&status=resolved" }),
    );
    expect(labelled.data.map((c) => c.id).sort()).toEqual([convs[1]?.id].sort());
    const c0 = json<Contact>(await contact(acc, convs[0]?.contactId as string));
    expect(c0.labels).toContain("refund");
    await bulk(acc, "conversations", { ids: ids.slice(0, 1), action: "unlabel", label: "REFUND" });
    expect(json<Contact>(await contact(acc, convs[0]?.contactId as string)).labels).not.toContain("refund");
  });

  it("rejects a missing or foreign assignee and a missing label with a 400 naming the field", async () => {
    const acc = await t.account();
    const { browser: stranger } = await ownerBrowser(t);
    const [c] = await conversations(acc, 1);
    const cases: Array<[unknown, RegExp]> = [
      [{ ids: [c?.id], action: "assign" }, /assigneeId/],
      [{ ids: [c?.id], action: "assign", assigneeId: stranger.session.user.id }, /assigneeId/],
      [{ ids: [c?.id], action: "label" }, /label/],
      [{ ids: [c?.id], action: "close" }, /action/],
      [{ ids: [], action: "resolve" }, /ids/],
    ];
    for (const [body, field] of cases) {
      const res = await bulk(acc, "conversations", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(json<{ error: { message: string } }>(res).error.message).toMatch(field);
    }
    const got = json<Conv>(await callWithKey(t, "GET", `/v1/conversations/${c?.id}`, acc.apiKey));
    expect(got).toMatchObject({ status: "open", assigneeId: null });
  });
});

describe("/app/api bulk actions", () => {
  let owner: Browser;
  let acc: CreatedAccount;
  beforeAll(async () => {
    ({ acc, browser: owner } = await ownerBrowser(t));
  });

  it("assigning several conversations tells the assignee about each, as one by one", async () => {
    const agent = await teammate(t, owner, "agent");
    const convs = await conversations(acc, 2);
    const res = await owner.req({
      method: "POST",
      url: "/app/api/conversations/bulk",
      payload: { ids: convs.map((c) => c.id), action: "assign", assigneeId: agent.session.user.id },
    });
    expect(json<Bulk>(res)).toEqual({ updated: 2, notFound: [] });
    const bell = json<{ data: Array<{ kind: string; link: string }> }>(
      await agent.req({ method: "GET", url: "/app/api/notifications" }),
    );
    const links = bell.data.filter((n) => n.kind === "conversation.assigned").map((n) => n.link);
    expect(links.sort()).toEqual(convs.map((c) => `/inbox/${c.id}`).sort());
    const mine = json<{ data: Conv[] }>(
      await agent.req({ method: "GET", url: "/app/api/conversations?assignee=me" }),
    );
    expect(mine.data).toHaveLength(2);
  });

  it("contacts: label and list through the session; agents may not delete", async () => {
    const agent = await teammate(t, owner, "agent");
    const cs = await contacts(acc, 2);
    const ids = cs.map((c) => c.id);
    const labelled = await agent.req({
      method: "POST",
      url: "/app/api/contacts/bulk",
      payload: { ids, action: "label", label: "spring" },
    });
    expect(json<Bulk>(labelled)).toEqual({ updated: 2, notFound: [] });
    const list = json<{ id: string }>(
      await owner.req({ method: "POST", url: "/app/api/lists", payload: { name: "Spring" } }),
    );
    const added = await agent.req({
      method: "POST",
      url: `/app/api/lists/${list.id}/contacts/bulk`,
      payload: { contactIds: ids },
    });
    expect(json(added)).toMatchObject({ added: 2, alreadyMembers: 0, notFound: [] });
    const denied = await agent.req({
      method: "POST",
      url: "/app/api/contacts/bulk",
      payload: { ids, action: "delete" },
    });
    expect(denied.statusCode).toBe(403);
    const erased = await owner.req({
      method: "POST",
      url: "/app/api/contacts/bulk",
      payload: { ids, action: "delete" },
    });
    expect(json<Bulk>(erased)).toEqual({ updated: 2, notFound: [] });
  });
});

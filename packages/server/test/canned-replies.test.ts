// Canned replies (issue 33): account-wide snippets through /v1 (API key) and /app/api (session), one
// service behind both. Create, list (paged), change, delete; a bad field is 400 naming it and writes
// nothing; a shortcut taken in the account is 409 CANNED_REPLY_EXISTS (another account may use it);
// another account's reply is 404 and never listed. On SQLite or PostgreSQL (DATABASE_URL).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerBrowser, teammate } from "./app-helpers.ts";
import { errorCode, json, type Page, startTestApp, type TestApp } from "./helpers.ts";

interface CannedReply {
  id: string;
  shortcut: string;
  title: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const call = (key: string, method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: object) =>
  t.inject({ method, url, headers: { "x-api-key": key }, ...(payload ? { payload } : {}) });

const hours = { shortcut: "Hours", title: "Opening hours", body: "Hi {{firstName}}, we are open 9–5.\n" };

describe("/v1/canned-replies", () => {
  it("creates, lists, changes and deletes; the shortcut is kept in lower case", async () => {
    const { apiKey } = await t.account();
    const created = await call(apiKey, "POST", "/v1/canned-replies", hours);
    expect(created.statusCode, created.body).toBe(201);
    const reply = json<CannedReply>(created);
    expect(reply).toMatchObject({
      shortcut: "hours",
      title: "Opening hours",
      body: "Hi {{firstName}}, we are open 9–5.",
    });
    expect(reply.id).toMatch(/^cr_/);

    const second = await call(apiKey, "POST", "/v1/canned-replies", { ...hours, shortcut: "refund_2" });
    expect(second.statusCode).toBe(201);
    const first = json<Page<CannedReply>>(await call(apiKey, "GET", "/v1/canned-replies?limit=1"));
    expect(first.data.map((r) => r.shortcut)).toEqual(["hours"]);
    expect(first.hasMore).toBe(true);
    const next = json<Page<CannedReply>>(
      await call(apiKey, "GET", `/v1/canned-replies?limit=1&cursor=${first.nextCursor}`),
    );
    expect(next.data.map((r) => r.shortcut)).toEqual(["refund_2"]);
    expect(next.hasMore).toBe(false);

    const patched = await call(apiKey, "PATCH", `/v1/canned-replies/${reply.id}`, { title: "Hours" });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(json<CannedReply>(patched)).toMatchObject({ shortcut: "hours", title: "Hours", body: reply.body });

    const gone = await call(apiKey, "DELETE", `/v1/canned-replies/${reply.id}`);
    expect(json(gone)).toEqual({ success: true, cannedReplyId: reply.id });
    expect((await call(apiKey, "DELETE", `/v1/canned-replies/${reply.id}`)).statusCode).toBe(404);
    const left = json<Page<CannedReply>>(await call(apiKey, "GET", "/v1/canned-replies"));
    expect(left.data.map((r) => r.shortcut)).toEqual(["refund_2"]);
  });

  it("answers 400 naming the field for bad input, and writes nothing", async () => {
    const { apiKey } = await t.account();
    const bad: [object, string][] = [
      [{ ...hours, shortcut: "opening hours" }, "shortcut"],
      [{ ...hours, shortcut: "x".repeat(33) }, "shortcut"],
      [{ ...hours, shortcut: "" }, "shortcut"],
      [{ ...hours, title: "" }, "title"],
      [{ ...hours, title: "   " }, "title"],
      [{ ...hours, body: "x".repeat(4001) }, "body"],
      [{ ...hours, body: " \n " }, "body"],
      [{ shortcut: "hours", title: "Hours" }, "body"],
    ];
    for (const [payload, field] of bad) {
      const res = await call(apiKey, "POST", "/v1/canned-replies", payload);
      expect(res.statusCode, res.body).toBe(400);
      expect(errorCode(res)).toBe("VALIDATION_ERROR");
      expect(json<{ error: { message: string } }>(res).error.message).toContain(field);
    }
    const ok = json<CannedReply>(await call(apiKey, "POST", "/v1/canned-replies", hours));
    const empty = await call(apiKey, "PATCH", `/v1/canned-replies/${ok.id}`, {});
    expect(empty.statusCode).toBe(400);
    const badPatch = await call(apiKey, "PATCH", `/v1/canned-replies/${ok.id}`, { shortcut: "a/b" });
    expect(badPatch.statusCode).toBe(400);
    expect(json<{ error: { message: string } }>(badPatch).error.message).toContain("shortcut");
    const list = json<Page<CannedReply>>(await call(apiKey, "GET", "/v1/canned-replies"));
    expect(list.data).toEqual([ok]);
  });

  it("answers 409 CANNED_REPLY_EXISTS for a shortcut taken in the account, in any case", async () => {
    const a = await t.account();
    const b = await t.account();
    const first = json<CannedReply>(await call(a.apiKey, "POST", "/v1/canned-replies", hours));
    const again = await call(a.apiKey, "POST", "/v1/canned-replies", { ...hours, shortcut: "HOURS" });
    expect(again.statusCode).toBe(409);
    expect(errorCode(again)).toBe("CANNED_REPLY_EXISTS");
    const other = json<CannedReply>(
      await call(a.apiKey, "POST", "/v1/canned-replies", { ...hours, shortcut: "other" }),
    );
    const rename = await call(a.apiKey, "PATCH", `/v1/canned-replies/${other.id}`, { shortcut: "hours" });
    expect(rename.statusCode).toBe(409);
    expect(errorCode(rename)).toBe("CANNED_REPLY_EXISTS");
    // Keeping its own shortcut is no conflict.
    const same = await call(a.apiKey, "PATCH", `/v1/canned-replies/${first.id}`, { shortcut: "hours" });
    expect(same.statusCode).toBe(200);
    // Shortcuts are per account.
    expect((await call(b.apiKey, "POST", "/v1/canned-replies", hours)).statusCode).toBe(201);
  });

  it("keeps accounts apart: another account's reply is 404 and never listed", async () => {
    const a = await t.account();
    const b = await t.account();
    const theirs = json<CannedReply>(await call(b.apiKey, "POST", "/v1/canned-replies", hours));
    const patch = await call(a.apiKey, "PATCH", `/v1/canned-replies/${theirs.id}`, { title: "mine" });
    expect(patch.statusCode).toBe(404);
    expect(errorCode(patch)).toBe("NOT_FOUND");
    expect((await call(a.apiKey, "DELETE", `/v1/canned-replies/${theirs.id}`)).statusCode).toBe(404);
    expect(json<Page<CannedReply>>(await call(a.apiKey, "GET", "/v1/canned-replies")).data).toEqual([]);
    const still = json<Page<CannedReply>>(await call(b.apiKey, "GET", "/v1/canned-replies"));
    expect(still.data).toEqual([theirs]);
  });
});

describe("/app/api/canned-replies", () => {
  it("lets any teammate add, list (by shortcut), change and delete the account's replies", async () => {
    const { browser: owner } = await ownerBrowser(t);
    const agent = await teammate(t, owner, "agent");
    const add = (payload: object) => agent.req({ method: "POST", url: "/app/api/canned-replies", payload });
    expect((await add({ ...hours, shortcut: "zebra" })).statusCode).toBe(201);
    const created = await add(hours);
    expect(created.statusCode, created.body).toBe(201);
    const reply = json<CannedReply>(created);
    const dup = await add(hours);
    expect(dup.statusCode).toBe(409);
    expect(errorCode(dup)).toBe("CANNED_REPLY_EXISTS");

    const list = json<{ data: CannedReply[] }>(
      await owner.req({ method: "GET", url: "/app/api/canned-replies" }),
    );
    expect(list.data.map((r) => r.shortcut)).toEqual(["hours", "zebra"]);

    const patched = await owner.req({
      method: "PATCH",
      url: `/app/api/canned-replies/${reply.id}`,
      payload: { body: "Open {{agentName}}" },
    });
    expect(json<CannedReply>(patched).body).toBe("Open {{agentName}}");
    const gone = await owner.req({ method: "DELETE", url: `/app/api/canned-replies/${reply.id}` });
    expect(gone.statusCode).toBe(200);

    // Another account's session sees none of them and cannot touch them.
    const { browser: stranger } = await ownerBrowser(t);
    expect(
      json<{ data: CannedReply[] }>(await stranger.req({ method: "GET", url: "/app/api/canned-replies" }))
        .data,
    ).toEqual([]);
    const theirs = list.data.find((r) => r.shortcut === "zebra") as CannedReply;
    const res = await stranger.req({ method: "DELETE", url: `/app/api/canned-replies/${theirs.id}` });
    expect(res.statusCode).toBe(404);
  });
});

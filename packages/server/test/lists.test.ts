import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import {
  callWithKey,
  type ErrorBody,
  errorCode,
  freshDatabase,
  json,
  startTestApp,
  type TestApp,
  testConfig,
} from "./helpers.ts";

interface List {
  id: string;
  name: string;
  memberCount: number;
  createdAt: string;
  updatedAt: string;
}
interface Contact {
  id: string;
  phone: string | null;
  email: string | null;
  firstName: string | null;
}
interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, "../bin/parley.js");
const UNKNOWN_LIST = "ls_01jzzzzzzzzzzzzzzzzzzzzzzz";
const UNKNOWN_CONTACT = "ct_01jzzzzzzzzzzzzzzzzzzzzzzz";

describe("lists API", () => {
  let t: TestApp;
  let acc: CreatedAccount;
  let other: CreatedAccount;
  let emailSeq = 0;

  beforeAll(async () => {
    t = await startTestApp();
    acc = await t.account();
    other = await t.account();
  });
  afterAll(() => t.close());

  const call = (
    method: "GET" | "POST" | "DELETE",
    url: string,
    body?: unknown,
    key = acc.apiKey,
  ): Promise<LightMyRequestResponse> => callWithKey(t, method, url, key, body);

  async function newList(name = "Customers", key = acc.apiKey): Promise<List> {
    const res = await call("POST", "/v1/lists", { name }, key);
    expect(res.statusCode).toBe(201);
    return json<List>(res);
  }
  async function newContact(key = acc.apiKey): Promise<Contact> {
    const res = await call("POST", "/v1/contacts", { email: `member${++emailSeq}@example.com` }, key);
    expect(res.statusCode).toBe(201);
    return json<Contact>(res);
  }
  async function memberRows(listId: string): Promise<number> {
    const row = await t.parley.db.kysely
      .selectFrom("list_members")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("list_id", "=", listId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  it("creates a list: 201 with id, name, memberCount and ISO times", async () => {
    const res = await call("POST", "/v1/lists", { name: "  VIP customers " });
    expect(res.statusCode).toBe(201);
    const list = json<List>(res);
    expect(list.id).toMatch(/^ls_[0-9a-z]{26}$/);
    expect(list).toMatchObject({ name: "VIP customers", memberCount: 0 });
    expect(list.createdAt).toMatch(/Z$/);
    const got = await call("GET", `/v1/lists/${list.id}`);
    expect(got.statusCode).toBe(200);
    expect(json<List>(got)).toEqual(list);
  });

  it("rejects a missing, blank or overlong list name with 400", async () => {
    for (const body of [{}, { name: "" }, { name: "   " }, { name: 7 }, { name: "x".repeat(201) }]) {
      const res = await call("POST", "/v1/lists", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorCode(res)).toBe("VALIDATION_ERROR");
    }
  });

  it("pages through lists oldest first with member counts; another account's lists never show", async () => {
    const t2 = await startTestApp();
    try {
      const a = await t2.account();
      const b = await t2.account();
      const post = (name: string, key: string) =>
        t2.inject({ method: "POST", url: `/v1/lists?apiKey=${key}`, payload: { name } });
      const ids: string[] = [];
      for (const name of ["one", "two", "three"]) ids.push(json<List>(await post(name, a.apiKey)).id);
      await post("theirs", b.apiKey);
      const contact = json<Contact>(
        await t2.inject({
          method: "POST",
          url: `/v1/contacts?apiKey=${a.apiKey}`,
          payload: { email: "c@example.com" },
        }),
      );
      await t2.inject({
        method: "POST",
        url: `/v1/lists/${ids[1]}/contacts?apiKey=${a.apiKey}`,
        payload: { contactId: contact.id },
      });
      const first = json<Page<List>>(
        await t2.inject({ method: "GET", url: `/v1/lists?limit=2&apiKey=${a.apiKey}` }),
      );
      expect(first.data.map((l) => l.name)).toEqual(["one", "two"]);
      expect(first.data.map((l) => l.memberCount)).toEqual([0, 1]);
      expect(first.hasMore).toBe(true);
      const second = json<Page<List>>(
        await t2.inject({
          method: "GET",
          url: `/v1/lists?limit=2&cursor=${first.nextCursor}&apiKey=${a.apiKey}`,
        }),
      );
      expect(second).toMatchObject({ hasMore: false, nextCursor: null });
      expect(second.data.map((l) => l.id)).toEqual([ids[2]]);
      const theirs = json<Page<List>>(
        await t2.inject({ method: "GET", url: `/v1/lists?apiKey=${b.apiKey}` }),
      );
      expect(theirs.data.map((l) => l.name)).toEqual(["theirs"]);
    } finally {
      await t2.close();
    }
  });

  it("adds a contact once: added true, then false; membership is never duplicated", async () => {
    const list = await newList();
    const c = await newContact();
    const first = await call("POST", `/v1/lists/${list.id}/contacts`, { contactId: c.id });
    expect(first.statusCode).toBe(200);
    expect(json(first)).toEqual({ success: true, listId: list.id, contactId: c.id, added: true });
    const again = await call("POST", `/v1/lists/${list.id}/contacts`, { contactId: c.id });
    expect(again.statusCode).toBe(200);
    expect(json(again)).toEqual({ success: true, listId: list.id, contactId: c.id, added: false });
    expect(await memberRows(list.id)).toBe(1);
    expect(json<List>(await call("GET", `/v1/lists/${list.id}`)).memberCount).toBe(1);
  });

  it("20 concurrent adds of one contact make one membership and exactly one added:true", async () => {
    const list = await newList();
    const c = await newContact();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => call("POST", `/v1/lists/${list.id}/contacts`, { contactId: c.id })),
    );
    expect(results.every((r) => r.statusCode === 200)).toBe(true);
    expect(results.filter((r) => json<{ added: boolean }>(r).added)).toHaveLength(1);
    expect(await memberRows(list.id)).toBe(1);
  });

  it("add: unknown list 404 LIST_NOT_FOUND, unknown contact 404 CONTACT_NOT_FOUND, no contactId 400", async () => {
    const list = await newList();
    const c = await newContact();
    const noList = await call("POST", `/v1/lists/${UNKNOWN_LIST}/contacts`, { contactId: c.id });
    expect(noList.statusCode).toBe(404);
    expect(errorCode(noList)).toBe("LIST_NOT_FOUND");
    const noContact = await call("POST", `/v1/lists/${list.id}/contacts`, { contactId: UNKNOWN_CONTACT });
    expect(noContact.statusCode).toBe(404);
    expect(errorCode(noContact)).toBe("CONTACT_NOT_FOUND");
    for (const body of [{}, { contactId: "" }, { contactId: 12 }, { contact_id: c.id }]) {
      const res = await call("POST", `/v1/lists/${list.id}/contacts`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorCode(res)).toBe("VALIDATION_ERROR");
      expect(json<ErrorBody>(res).error.message).toMatch(/contactId/);
    }
    expect(await memberRows(list.id)).toBe(0);
  });

  it("pages 125 members with limit 50: every member exactly once, in contact id order", async () => {
    const list = await newList("Big");
    const ids: string[] = [];
    for (let i = 0; i < 125; i++) {
      const c = await newContact();
      ids.push(c.id);
    }
    // Added in a shuffled order: the page order comes from the contact ids, not the insertion order.
    const shuffled = [...ids].sort((x, y) => (x.slice(-3) < y.slice(-3) ? -1 : 1));
    for (const id of shuffled) {
      const res = await call("POST", `/v1/lists/${list.id}/contacts`, { contactId: id });
      expect(res.statusCode).toBe(200);
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/v1/lists/${list.id}/contacts?limit=50${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await call("GET", url);
      expect(res.statusCode).toBe(200);
      const page = json<Page<Contact>>(res);
      sizes.push(page.data.length);
      seen.push(...page.data.map((c) => c.id));
      expect(page.data[0]).toHaveProperty("email");
      expect(page.hasMore).toBe(page.nextCursor !== null);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(sizes).toEqual([50, 50, 25]);
    expect(new Set(seen).size).toBe(125);
    expect(seen).toEqual([...ids].sort());
    expect(json<List>(await call("GET", `/v1/lists/${list.id}`)).memberCount).toBe(125);
  });

  it("members: empty list pages empty; bad cursor or limit 400; unknown list 404", async () => {
    const list = await newList();
    const empty = await call("GET", `/v1/lists/${list.id}/contacts`);
    expect(empty.statusCode).toBe(200);
    expect(json(empty)).toEqual({ data: [], hasMore: false, nextCursor: null });
    const badCursor = await call("GET", `/v1/lists/${list.id}/contacts?cursor=not-a-cursor`);
    expect(badCursor.statusCode).toBe(400);
    expect(errorCode(badCursor)).toBe("INVALID_CURSOR");
    for (const limit of ["0", "201", "abc"]) {
      const res = await call("GET", `/v1/lists/${list.id}/contacts?limit=${limit}`);
      expect(res.statusCode, limit).toBe(400);
      expect(errorCode(res)).toBe("VALIDATION_ERROR");
    }
    const badListsCursor = await call("GET", "/v1/lists?cursor=%%%");
    expect(badListsCursor.statusCode).toBe(400);
    const unknown = await call("GET", `/v1/lists/${UNKNOWN_LIST}/contacts`);
    expect(unknown.statusCode).toBe(404);
    expect(errorCode(unknown)).toBe("LIST_NOT_FOUND");
    const unknownList = await call("GET", `/v1/lists/${UNKNOWN_LIST}`);
    expect(unknownList.statusCode).toBe(404);
    expect(errorCode(unknownList)).toBe("LIST_NOT_FOUND");
  });

  it("removes a member: removed true, then false; the contact itself stays", async () => {
    const list = await newList();
    const keep = await newContact();
    const gone = await newContact();
    for (const c of [keep, gone]) await call("POST", `/v1/lists/${list.id}/contacts`, { contactId: c.id });
    const res = await call("DELETE", `/v1/lists/${list.id}/contacts/${gone.id}`);
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true, listId: list.id, contactId: gone.id, removed: true });
    const again = await call("DELETE", `/v1/lists/${list.id}/contacts/${gone.id}`);
    expect(json(again)).toEqual({ success: true, listId: list.id, contactId: gone.id, removed: false });
    const page = json<Page<Contact>>(await call("GET", `/v1/lists/${list.id}/contacts`));
    expect(page.data.map((c) => c.id)).toEqual([keep.id]);
    expect((await call("GET", `/v1/contacts/${gone.id}`)).statusCode).toBe(200);
    const noList = await call("DELETE", `/v1/lists/${UNKNOWN_LIST}/contacts/${keep.id}`);
    expect(noList.statusCode).toBe(404);
    expect(errorCode(noList)).toBe("LIST_NOT_FOUND");
    const noContact = await call("DELETE", `/v1/lists/${list.id}/contacts/${UNKNOWN_CONTACT}`);
    expect(noContact.statusCode).toBe(404);
    expect(errorCode(noContact)).toBe("CONTACT_NOT_FOUND");
  });

  it("another account's key can neither read, page, add to nor remove from this account's lists (404)", async () => {
    const list = await newList("Private");
    const mine = await newContact();
    await call("POST", `/v1/lists/${list.id}/contacts`, { contactId: mine.id });
    const theirList = await newList("Theirs", other.apiKey);
    const theirContact = await newContact(other.apiKey);

    const read = await call("GET", `/v1/lists/${list.id}`, undefined, other.apiKey);
    expect(read.statusCode).toBe(404);
    expect(errorCode(read)).toBe("LIST_NOT_FOUND");
    const members = await call("GET", `/v1/lists/${list.id}/contacts`, undefined, other.apiKey);
    expect(members.statusCode).toBe(404);
    expect(errorCode(members)).toBe("LIST_NOT_FOUND");
    // Their own contact into my list: my list is not found for them.
    const intoMine = await call(
      "POST",
      `/v1/lists/${list.id}/contacts`,
      { contactId: theirContact.id },
      other.apiKey,
    );
    expect(intoMine.statusCode).toBe(404);
    expect(errorCode(intoMine)).toBe("LIST_NOT_FOUND");
    // My contact into their list: my contact is not found for them.
    const mineIntoTheirs = await call(
      "POST",
      `/v1/lists/${theirList.id}/contacts`,
      { contactId: mine.id },
      other.apiKey,
    );
    expect(mineIntoTheirs.statusCode).toBe(404);
    expect(errorCode(mineIntoTheirs)).toBe("CONTACT_NOT_FOUND");
    // Nor can I put their contact into my list.
    const theirsIntoMine = await call("POST", `/v1/lists/${list.id}/contacts`, {
      contactId: theirContact.id,
    });
    expect(theirsIntoMine.statusCode).toBe(404);
    expect(errorCode(theirsIntoMine)).toBe("CONTACT_NOT_FOUND");
    const remove = await call("DELETE", `/v1/lists/${list.id}/contacts/${mine.id}`, undefined, other.apiKey);
    expect(remove.statusCode).toBe(404);
    const theirPage = json<Page<List>>(await call("GET", "/v1/lists?limit=200", undefined, other.apiKey));
    expect(theirPage.data.map((l) => l.id)).not.toContain(list.id);
    // Nothing changed: the member is still there, alone.
    expect(await memberRows(list.id)).toBe(1);
    expect(await memberRows(theirList.id)).toBe(0);
  });

  it("documents every list endpoint in /v1/openapi.json", async () => {
    const doc = json<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      await t.inject({ method: "GET", url: "/v1/openapi.json" }),
    );
    const expected: [string, string, string[]][] = [
      ["/v1/lists", "post", ["201", "400"]],
      ["/v1/lists", "get", ["200", "400"]],
      ["/v1/lists/{listId}", "get", ["200", "404"]],
      ["/v1/lists/{listId}/contacts", "post", ["200", "400", "404"]],
      ["/v1/lists/{listId}/contacts", "get", ["200", "400", "404"]],
      ["/v1/lists/{listId}/contacts/{contactId}", "delete", ["200", "404"]],
    ];
    for (const [p, method, statuses] of expected) {
      const op = doc.paths[p]?.[method];
      expect(op, `${method} ${p}`).toBeDefined();
      expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(statuses));
    }
  });

  it("CLI: parley list create --email E --name N prints the new list id", async () => {
    const database = await freshDatabase();
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: database.dataDir, LOG_LEVEL: "silent" };
      delete env.DATABASE_URL;
      if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
      const email = "cli-owner@example.com";
      const created = await run(
        process.execPath,
        [BIN, "account", "create", "--email", email, "--password", "correct horse battery"],
        { env },
      );
      const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
      const out = await run(
        process.execPath,
        [BIN, "list", "create", "--email", email, "--name", "From CLI"],
        {
          env,
        },
      );
      const printed = JSON.parse(out.stdout) as { listId: string };
      expect(Object.keys(printed)).toEqual(["listId"]);
      expect(printed.listId).toMatch(/^ls_[0-9a-z]{26}$/);
      const unknown = run(
        process.execPath,
        [BIN, "list", "create", "--email", "nobody@example.com", "--name", "X"],
        {
          env,
        },
      );
      await expect(unknown).rejects.toMatchObject({ code: 1 });
      // The list is the account's, visible through the API.
      const parley = await buildApp(testConfig(database));
      try {
        const res = await parley.app.inject({
          method: "GET",
          url: `/v1/lists/${printed.listId}?apiKey=${apiKey}`,
        });
        expect(res.statusCode).toBe(200);
        expect(json<List>(res)).toMatchObject({ id: printed.listId, name: "From CLI", memberCount: 0 });
      } finally {
        await parley.close();
      }
    } finally {
      await database.drop();
    }
  });
});

// Web app part 2's API extensions on contacts and lists: list and search, labels, erasure (the
// contact with its conversation, messages, attempts, memberships and stored attachments), rename and
// delete a list. Through the real HTTP server on the suite's database.

import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { blobKey } from "../src/modules/messaging/media/store.ts";
import { countRows, customData, postIncoming } from "./fixtures/incoming.ts";
import { dataUri, makePng } from "./fixtures/png.ts";

/** Where the local file storage keeps an attachment (DATA_DIR/<its key>). */
const localBlob = (t: TestApp, sha256: string) => path.join(t.config.dataDir, blobKey(sha256));

import { callWithKey, errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

interface Contact {
  id: string;
  firstName: string | null;
  phone: string | null;
  email: string | null;
  labels: string[];
}
interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

describe("contacts: list, search, labels and erasure; lists: rename and delete", () => {
  let t: TestApp;
  let acc: CreatedAccount;
  let other: CreatedAccount;
  const call = (method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: unknown, key?: string) =>
    callWithKey(t, method, url, key ?? acc.apiKey, payload);

  beforeAll(async () => {
    t = await startTestApp();
    acc = await t.account();
    other = await t.account();
  });
  afterAll(async () => t?.close());

  it("lists contacts newest first in pages, searches by name, phone, e-mail and fromId, filters by label", async () => {
    const made: Contact[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call("POST", "/v1/contacts", {
        firstName: i === 2 ? "Zelda" : `Person${i}`,
        phone: `+1415555012${i}`,
        email: i === 3 ? "zed@example.com" : null,
        labels: i % 2 === 0 ? ["VIP", " wholesale ", "vip"] : [],
      });
      expect(res.statusCode, res.body).toBe(201);
      made.push(json<Contact>(res));
    }
    expect(made[0]!.labels).toEqual(["VIP", "wholesale"]);
    await call("POST", "/v1/contacts", { phone: "+14155550999" }, other.apiKey);

    const first = json<Page<Contact>>(await call("GET", "/v1/contacts?limit=2"));
    expect(first.data.map((c) => c.id)).toEqual([made[4]!.id, made[3]!.id]);
    expect(first.hasMore).toBe(true);
    const seen = [...first.data];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = json<Page<Contact>>(await call("GET", `/v1/contacts?limit=2&cursor=${cursor}`));
      seen.push(...page.data);
      cursor = page.nextCursor;
    }
    // Every contact of this account once, none of the other account's.
    expect(seen.map((c) => c.id)).toEqual([...made].reverse().map((c) => c.id));

    const byName = json<Page<Contact>>(await call("GET", "/v1/contacts?q=zel"));
    expect(byName.data.map((c) => c.id)).toEqual([made[2]!.id]);
    const byEmail = json<Page<Contact>>(await call("GET", "/v1/contacts?q=ZED%40EXAMPLE"));
    expect(byEmail.data.map((c) => c.id)).toEqual([made[3]!.id]);
    const byPhone = json<Page<Contact>>(await call("GET", "/v1/contacts?q=5550121"));
    expect(byPhone.data.map((c) => c.id)).toEqual([made[1]!.id]);
    // A LIKE wildcard is matched literally.
    expect(json<Page<Contact>>(await call("GET", "/v1/contacts?q=%25")).data).toEqual([]);
    const vip = json<Page<Contact>>(await call("GET", "/v1/contacts?label=vip"));
    expect(vip.data.map((c) => c.id)).toEqual([made[4]!.id, made[2]!.id, made[0]!.id]);
    expect(json<Page<Contact>>(await call("GET", "/v1/contacts?label=whole")).data).toEqual([]);
    // The lookup answer is unchanged.
    const lookup = await call("GET", `/v1/contacts?phoneNumber=${encodeURIComponent("+14155550121")}`);
    expect(json(lookup)).toMatchObject({ success: true, contactId: made[1]!.id });
    expect(errorCode(await call("GET", "/v1/contacts?cursor=nope"))).toBe("INVALID_CURSOR");
  });

  it("PATCH labels replaces them; bad labels are a 400 that changes nothing", async () => {
    const c = json<Contact>(await call("POST", "/v1/contacts", { phone: "+14155550130", labels: ["a"] }));
    const res = await call("PATCH", `/v1/contacts/${c.id}`, { labels: ["lead", "Spring sale"] });
    expect(json<Contact>(res).labels).toEqual(["lead", "Spring sale"]);
    for (const labels of [
      ["has,comma"],
      ['quote"d'],
      ["x".repeat(51)],
      Array.from({ length: 21 }, (_, i) => `l${i}`),
    ]) {
      const bad = await call("PATCH", `/v1/contacts/${c.id}`, { labels });
      expect(bad.statusCode, JSON.stringify(labels)).toBe(400);
      expect(errorCode(bad)).toBe("VALIDATION_ERROR");
    }
    expect(json<Contact>(await call("GET", `/v1/contacts/${c.id}`)).labels).toEqual(["lead", "Spring sale"]);
  });

  it("DELETE erases the contact with its conversation, messages, attempts, memberships and stored files", async () => {
    const png = makePng(5, 4);
    const sha = createHash("sha256").update(png).digest("hex");
    const fromId = "erase-me-1";
    const first = await postIncoming(t, acc.apiKey, { customData: customData({ fromId, body: "hello" }) });
    expect(first.statusCode, first.body).toBe(200);
    const withImage = await postIncoming(t, acc.apiKey, {
      customData: customData({ fromId, mediaUrl: dataUri("image/png", png), mediaContentType: "image/png" }),
    });
    expect(withImage.statusCode, withImage.body).toBe(200);
    const messageId = json<{ messageId: string }>(first).messageId;
    const message = json<{ contactId: string; conversationId: string }>(
      await call("GET", `/v1/messages/${messageId}`),
    );
    const list = json<{ id: string }>(await call("POST", "/v1/lists", { name: "to erase" }));
    await call("POST", `/v1/lists/${list.id}/contacts`, { contactId: message.contactId });
    expect(fs.existsSync(localBlob(t, sha))).toBe(true);
    // Another account's key cannot erase it.
    expect(
      (await call("DELETE", `/v1/contacts/${message.contactId}`, undefined, other.apiKey)).statusCode,
    ).toBe(404);

    const res = await call("DELETE", `/v1/contacts/${message.contactId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({
      success: true,
      contactId: message.contactId,
      deleted: { conversations: 1, messages: 2 },
    });
    expect((await call("GET", `/v1/contacts/${message.contactId}`)).statusCode).toBe(404);
    expect((await call("GET", `/v1/messages/${messageId}`)).statusCode).toBe(404);
    expect((await call("GET", `/v1/contacts/${message.contactId}/messages`)).statusCode).toBe(404);
    expect((await call("GET", `/v1/conversations/${message.conversationId}`)).statusCode).toBe(404);
    expect(json<{ memberCount: number }>(await call("GET", `/v1/lists/${list.id}`)).memberCount).toBe(0);
    expect(fs.existsSync(localBlob(t, sha))).toBe(false);
    const attempts = await t.parley.db.kysely
      .selectFrom("messages")
      .select("id")
      .where("contact_id", "=", message.contactId)
      .execute();
    expect(attempts).toEqual([]);
    expect(await countRows(t, "conversations", acc.accountId)).toBe(0);
    // Twice: 404.
    expect(errorCode(await call("DELETE", `/v1/contacts/${message.contactId}`))).toBe("CONTACT_NOT_FOUND");
  });

  it("renames and deletes a list; the contacts stay", async () => {
    const c = json<Contact>(await call("POST", "/v1/contacts", { phone: "+14155550140" }));
    const list = json<{ id: string }>(await call("POST", "/v1/lists", { name: "Spring" }));
    await call("POST", `/v1/lists/${list.id}/contacts`, { contactId: c.id });
    const renamed = await call("PATCH", `/v1/lists/${list.id}`, { name: "  Summer  " });
    expect(json(renamed)).toMatchObject({ id: list.id, name: "Summer", memberCount: 1 });
    expect(errorCode(await call("PATCH", `/v1/lists/${list.id}`, { name: "   " }))).toBe("VALIDATION_ERROR");
    expect((await call("PATCH", `/v1/lists/${list.id}`, { name: "x" }, other.apiKey)).statusCode).toBe(404);
    expect((await call("DELETE", `/v1/lists/${list.id}`, undefined, other.apiKey)).statusCode).toBe(404);
    const deleted = await call("DELETE", `/v1/lists/${list.id}`);
    expect(json(deleted)).toEqual({ success: true, listId: list.id });
    expect(errorCode(await call("GET", `/v1/lists/${list.id}`))).toBe("LIST_NOT_FOUND");
    expect((await call("GET", `/v1/contacts/${c.id}`)).statusCode).toBe(200);
    expect(errorCode(await call("DELETE", `/v1/lists/${list.id}`))).toBe("LIST_NOT_FOUND");
  });
});

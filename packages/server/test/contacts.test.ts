import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import type { ContactView } from "../src/modules/contacts/service.ts";
import { callWithKey, type ErrorBody, errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

type Contact = ContactView;

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("contacts API", () => {
  let t: TestApp;
  let acc: CreatedAccount;
  let other: CreatedAccount;
  // Each test uses its own numbers (+1 415 555 01xx are fictional but valid), so tests stay independent.
  let seq = 10;
  const nextPhone = () => `+1415555${String(100 + seq++).padStart(4, "0")}`;

  beforeAll(async () => {
    t = await startTestApp();
    acc = await t.account();
    other = await t.account();
  });
  afterAll(() => t.close());

  const call = (
    method: "GET" | "POST" | "PATCH" | "PUT",
    url: string,
    body?: unknown,
    key = acc.apiKey,
  ): Promise<LightMyRequestResponse> => callWithKey(t, method, url, key, body);
  const create = (body: unknown, key = acc.apiKey) => call("POST", "/v1/contacts", body, key);

  async function countContacts(where: { phone?: string; email?: string }, accountId = acc.accountId) {
    let q = t.parley.db.kysely
      .selectFrom("contacts")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", accountId);
    if (where.phone !== undefined) q = q.where("phone", "=", where.phone);
    if (where.email !== undefined) q = q.where("email", "=", where.email);
    return Number((await q.executeTakeFirstOrThrow()).n);
  }

  it("creates a contact: 201 with the contact JSON (E.164 phone, lower-cased e-mail, ISO times)", async () => {
    const res = await create({
      firstName: "Ada",
      lastName: "Lovelace",
      phone: "+1 (415) 555-0100",
      email: "  Ada@Example.COM ",
    });
    expect(res.statusCode).toBe(201);
    const c = json<Contact>(res);
    expect(Object.keys(c).sort()).toEqual(
      [
        "botActive",
        "createdAt",
        "email",
        "firstName",
        "id",
        "labels",
        "lastName",
        "phone",
        "smsOptedOutAt",
        "updatedAt",
      ].sort(),
    );
    expect(c.smsOptedOutAt).toBeNull();
    expect(c.id).toMatch(/^ct_[0-9a-z]{26}$/);
    expect(c).toMatchObject({
      firstName: "Ada",
      lastName: "Lovelace",
      phone: "+14155550100",
      email: "ada@example.com",
      botActive: true,
    });
    expect(c.createdAt).toMatch(ISO_Z);
    expect(c.updatedAt).toMatch(ISO_Z);
  });

  it("gives null for absent optional fields and accepts the phoneNumber alias", async () => {
    const phone = nextPhone();
    const res = await create({ phoneNumber: phone });
    expect(res.statusCode).toBe(201);
    expect(json<Contact>(res)).toMatchObject({ firstName: null, lastName: null, email: null, phone });
    const onlyEmail = await create({ email: "only-email@example.com" });
    expect(onlyEmail.statusCode).toBe(201);
    expect(json<Contact>(onlyEmail).phone).toBeNull();
  });

  it("dedupes three formats of one number to one contact and returns the existing one unchanged", async () => {
    const first = await create({ phone: "+1 415 555 0199", firstName: "First" });
    expect(first.statusCode).toBe(201);
    const id = json<Contact>(first).id;
    for (const phone of ["+14155550199", "+1 (415) 555-0199"]) {
      const again = await create({ phone, firstName: "Second", email: "second@example.com" });
      expect(again.statusCode).toBe(200);
      expect(json<Contact>(again)).toEqual(json<Contact>(first));
    }
    const viaAlias = await create({ phoneNumber: "+1-415-555-0199" });
    expect(viaAlias.statusCode).toBe(200);
    expect(json<Contact>(viaAlias).id).toBe(id);
    expect(await countContacts({ phone: "+14155550199" })).toBe(1);
    expect(await countContacts({ email: "second@example.com" })).toBe(0);
  });

  it("rejects numbers without a country code with 400 INVALID_PHONE and creates nothing", async () => {
    const before = await countContacts({});
    for (const phone of ["4155550100", "(415) 555-0100", "415-555-0100", "abc", "+1 415", "+999 1234567"]) {
      const res = await create({ phone, email: "x@example.com" });
      expect(res.statusCode, phone).toBe(400);
      expect(errorCode(res)).toBe("INVALID_PHONE");
      expect(json<ErrorBody>(res).error.message).toMatch(/valid country code is required/);
    }
    expect(await countContacts({})).toBe(before);
  });

  it("rejects invalid e-mails with 400 INVALID_EMAIL", async () => {
    for (const email of [
      "not-an-email",
      "a@b",
      "a b@example.com",
      "@example.com",
      "ada@",
      "ada@@example.com",
    ]) {
      const res = await create({ email });
      expect(res.statusCode, email).toBe(400);
      expect(errorCode(res)).toBe("INVALID_EMAIL");
    }
  });

  it("needs a phone or an e-mail: 400 MISSING_IDENTIFIER", async () => {
    for (const body of [
      {},
      { firstName: "Nobody" },
      { phone: "", email: "  " },
      { phone: null, email: null },
    ]) {
      const res = await create(body);
      expect(res.statusCode).toBe(400);
      expect(errorCode(res)).toBe("MISSING_IDENTIFIER");
    }
  });

  it("rejects wrongly typed fields and bad JSON with a 400 naming the problem", async () => {
    const numeric = await create({ phone: 14155550100 });
    expect(numeric.statusCode).toBe(400);
    expect(errorCode(numeric)).toBe("VALIDATION_ERROR");
    expect(json<ErrorBody>(numeric).error.message).toMatch(/phone/);
    const bad = await t.inject({
      method: "POST",
      url: `/v1/contacts?apiKey=${acc.apiKey}`,
      headers: { "content-type": "application/json" },
      payload: "{not json",
    });
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe("INVALID_JSON");
    const differ = await create({ phone: nextPhone(), phoneNumber: nextPhone() });
    expect(differ.statusCode).toBe(400);
    expect(errorCode(differ)).toBe("VALIDATION_ERROR");
  });

  it("does not dedupe by e-mail; lookup by e-mail returns the earliest, ignoring case", async () => {
    const a = json<Contact>(await create({ email: "Shared@Example.com", firstName: "A" }));
    const b = json<Contact>(await create({ email: "shared@example.com", firstName: "B" }));
    expect(a.id).not.toBe(b.id);
    expect(await countContacts({ email: "shared@example.com" })).toBe(2);
    for (const email of ["shared@example.com", "SHARED@EXAMPLE.COM", "Shared@example.Com"]) {
      const res = await call("GET", `/v1/contacts?email=${encodeURIComponent(email)}`);
      expect(res.statusCode).toBe(200);
      const body = json<{ success: boolean; contactId: string; contact: Contact }>(res);
      expect(body).toEqual({ success: true, contactId: a.id, contact: a });
    }
  });

  it("looks up by phone in any formatting, including an unencoded + that arrives as a space", async () => {
    const phone = nextPhone(); // +1415555xxxx
    const created = json<Contact>(await create({ phone }));
    const national = phone.slice(2); // 415555xxxx
    const spaced = `+1 (${national.slice(0, 3)}) ${national.slice(3, 6)}-${national.slice(6)}`;
    const urls = [
      `/v1/contacts?phoneNumber=${encodeURIComponent(phone)}`,
      `/v1/contacts?phoneNumber=${encodeURIComponent(spaced)}`,
      `/v1/contacts?phoneNumber=${phone}`, // "+" decodes to a space
      `/v1/contacts?phoneNumber=${encodeURIComponent(`00${phone.slice(1)}`)}`,
    ];
    for (const url of urls) {
      const res = await call("GET", url);
      expect(res.statusCode, url).toBe(200);
      expect(json<{ contactId: string }>(res).contactId).toBe(created.id);
      expect(json<{ contact: Contact }>(res).contact).toEqual(created);
    }
  });

  it("lookup: 404 CONTACT_NOT_FOUND, a page of contacts without a parameter, 400 for an unusable phone or e-mail", async () => {
    const missing = await call("GET", `/v1/contacts?phoneNumber=${encodeURIComponent("+14155550198")}`);
    expect(missing.statusCode).toBe(404);
    expect(errorCode(missing)).toBe("CONTACT_NOT_FOUND");
    const noEmail = await call("GET", "/v1/contacts?email=nobody%40example.com");
    expect(noEmail.statusCode).toBe(404);
    expect(errorCode(noEmail)).toBe("CONTACT_NOT_FOUND");
    // Without phoneNumber and email (or with both empty) the extension lists contacts instead.
    for (const url of ["/v1/contacts", "/v1/contacts?phoneNumber=&email="]) {
      const res = await call("GET", url);
      expect(res.statusCode).toBe(200);
      expect(Object.keys(json(res)).sort()).toEqual(["data", "hasMore", "nextCursor"]);
    }
    const national = await call("GET", "/v1/contacts?phoneNumber=4155550100");
    expect(national.statusCode).toBe(400);
    expect(errorCode(national)).toBe("INVALID_PHONE");
    const badEmail = await call("GET", "/v1/contacts?email=nope");
    expect(badEmail.statusCode).toBe(400);
    expect(errorCode(badEmail)).toBe("INVALID_EMAIL");
  });

  it("gets a contact by id; unknown id: 404 CONTACT_NOT_FOUND", async () => {
    const c = json<Contact>(await create({ phone: nextPhone(), firstName: "Get" }));
    const res = await call("GET", `/v1/contacts/${c.id}`);
    expect(res.statusCode).toBe(200);
    expect(json<Contact>(res)).toEqual(c);
    const unknown = await call("GET", "/v1/contacts/ct_01jzzzzzzzzzzzzzzzzzzzzzzz");
    expect(unknown.statusCode).toBe(404);
    expect(errorCode(unknown)).toBe("CONTACT_NOT_FOUND");
  });

  it("PATCH and PUT update names, e-mail, phone and botActive; absent fields are kept", async () => {
    const c = json<Contact>(await create({ phone: nextPhone(), firstName: "Old", lastName: "Name" }));
    const newPhone = nextPhone();
    const patched = await call("PATCH", `/v1/contacts/${c.id}`, {
      firstName: "New",
      email: "New@Example.com",
      botActive: false,
      phone: `${newPhone.slice(0, 2)} ${newPhone.slice(2)}`,
    });
    expect(patched.statusCode).toBe(200);
    const p = json<Contact>(patched);
    expect(p).toMatchObject({
      id: c.id,
      firstName: "New",
      lastName: "Name",
      email: "new@example.com",
      botActive: false,
      phone: newPhone,
      createdAt: c.createdAt,
    });
    expect(Date.parse(p.updatedAt)).toBeGreaterThanOrEqual(Date.parse(c.updatedAt));
    const put = await call("PUT", `/v1/contacts/${c.id}`, { lastName: null, botActive: true });
    expect(put.statusCode).toBe(200);
    expect(json<Contact>(put)).toMatchObject({ firstName: "New", lastName: null, botActive: true });
    // The stored row changed, not only the answer.
    expect(json<Contact>(await call("GET", `/v1/contacts/${c.id}`))).toEqual(json<Contact>(put));
    const found = await call("GET", `/v1/contacts?phoneNumber=${encodeURIComponent(newPhone)}`);
    expect(json<{ contactId: string }>(found).contactId).toBe(c.id);
  });

  it("PATCH: a phone held by another contact gives 409 CONTACT_EXISTS and changes nothing", async () => {
    const taken = nextPhone();
    await create({ phone: taken });
    const c = json<Contact>(await create({ phone: nextPhone(), firstName: "Keep" }));
    const res = await call("PATCH", `/v1/contacts/${c.id}`, {
      firstName: "Changed",
      phone: `+1 (${taken.slice(2, 5)}) ${taken.slice(5, 8)}-${taken.slice(8)}`,
    });
    expect(res.statusCode).toBe(409);
    expect(errorCode(res)).toBe("CONTACT_EXISTS");
    expect(json<Contact>(await call("GET", `/v1/contacts/${c.id}`))).toEqual(c);
    expect(await countContacts({ phone: taken })).toBe(1);
    // Setting its own number again is no collision.
    const same = await call("PATCH", `/v1/contacts/${c.id}`, { phone: c.phone });
    expect(same.statusCode).toBe(200);
  });

  it("PATCH: bad input is a 400 and changes nothing", async () => {
    const c = json<Contact>(await create({ phone: nextPhone(), email: "keep@example.com" }));
    const cases: [unknown, string][] = [
      [{ phone: "4155550100" }, "INVALID_PHONE"],
      [{ email: "broken", firstName: "X" }, "INVALID_EMAIL"],
      [{ phone: null, email: null }, "MISSING_IDENTIFIER"],
      [{ botActive: "no" }, "VALIDATION_ERROR"],
      [{ firstName: "x".repeat(256) }, "VALIDATION_ERROR"],
    ];
    for (const [body, code] of cases) {
      const res = await call("PATCH", `/v1/contacts/${c.id}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorCode(res)).toBe(code);
    }
    expect(json<Contact>(await call("GET", `/v1/contacts/${c.id}`))).toEqual(c);
    // Removing one identifier while the other stays is fine.
    const noPhone = await call("PATCH", `/v1/contacts/${c.id}`, { phone: null });
    expect(noPhone.statusCode).toBe(200);
    expect(json<Contact>(noPhone)).toMatchObject({ phone: null, email: "keep@example.com" });
    const unknown = await call("PATCH", "/v1/contacts/ct_01jzzzzzzzzzzzzzzzzzzzzzzz", { firstName: "x" });
    expect(unknown.statusCode).toBe(404);
    expect(errorCode(unknown)).toBe("CONTACT_NOT_FOUND");
  });

  it("20 concurrent creates of one number make exactly one contact", async () => {
    const phone = "+14155550177";
    const formats = [phone, "+1 415 555 0177", "+1 (415) 555-0177", "+1-415-555-0177"];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        create({ phone: formats[i % formats.length], firstName: `P${i}` }),
      ),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    const ids = new Set(results.map((r) => json<Contact>(r).id));
    expect(ids.size).toBe(1);
    expect(await countContacts({ phone })).toBe(1);
  });

  it("another account's key can neither read, find nor change this account's contacts (404)", async () => {
    const phone = nextPhone();
    const mine = json<Contact>(await create({ phone, email: "private@example.com", firstName: "Mine" }));
    const get = await call("GET", `/v1/contacts/${mine.id}`, undefined, other.apiKey);
    expect(get.statusCode).toBe(404);
    expect(errorCode(get)).toBe("CONTACT_NOT_FOUND");
    for (const method of ["PATCH", "PUT"] as const) {
      const res = await call(method, `/v1/contacts/${mine.id}`, { firstName: "Stolen" }, other.apiKey);
      expect(res.statusCode).toBe(404);
      expect(errorCode(res)).toBe("CONTACT_NOT_FOUND");
    }
    const byPhone = await call(
      "GET",
      `/v1/contacts?phoneNumber=${encodeURIComponent(phone)}`,
      undefined,
      other.apiKey,
    );
    expect(byPhone.statusCode).toBe(404);
    const byEmail = await call("GET", "/v1/contacts?email=private%40example.com", undefined, other.apiKey);
    expect(byEmail.statusCode).toBe(404);
    // The same number is a separate contact in the other account.
    const theirs = await create({ phone }, other.apiKey);
    expect(theirs.statusCode).toBe(201);
    expect(json<Contact>(theirs).id).not.toBe(mine.id);
    expect(json<Contact>(await call("GET", `/v1/contacts/${mine.id}`))).toEqual(mine);
  });

  it("requires an API key", async () => {
    const res = await t.inject({ method: "POST", url: "/v1/contacts", payload: { phone: nextPhone() } });
    expect(res.statusCode).toBe(401);
    expect(errorCode(res)).toBe("UNAUTHORIZED");
  });

  it("documents every contacts endpoint in /v1/openapi.json with its error statuses", async () => {
    const res = await t.inject({ method: "GET", url: "/v1/openapi.json" });
    expect(res.statusCode).toBe(200);
    const doc = json<{
      paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>>;
    }>(res);
    const contacts = doc.paths["/v1/contacts"];
    const one = doc.paths["/v1/contacts/{contactId}"];
    expect(contacts?.post?.requestBody).toBeDefined();
    expect(Object.keys(contacts?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "201", "400"]),
    );
    expect(Object.keys(contacts?.get?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "400", "404"]),
    );
    expect(Object.keys(one?.get?.responses ?? {})).toEqual(expect.arrayContaining(["200", "404"]));
    for (const m of ["patch", "put"]) {
      expect(one?.[m]?.requestBody, m).toBeDefined();
      expect(Object.keys(one?.[m]?.responses ?? {})).toEqual(
        expect.arrayContaining(["200", "400", "404", "409"]),
      );
    }
  });
});

// Text is text everywhere: NUL characters and lone UTF-16 surrogates are refused with 400 on every
// text field of every endpoint (body, query string and path), and nothing is stored. Property-based:
// random JSON bodies with one bad string somewhere, for every body-taking /v1 operation.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startTestApp, type TestApp } from "./helpers.ts";

const BAD = fc.constantFrom("\u0000", "\ud800", "\udfff", "a\ud83dz");

describe("NUL and lone surrogates are refused on every text field", () => {
  let t: TestApp;
  let apiKey: string;
  let operations: Array<{ method: string; url: string }>;
  beforeAll(async () => {
    t = await startTestApp();
    ({ apiKey } = await t.account({ kind: "agency" }));
    const doc = t.parley.app.swagger() as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    operations = Object.entries(doc.paths)
      // The incoming endpoint checks each of its own fields as it parses them (test/incoming.test.ts),
      // and ignores the fields it does not know: it is not part of this property.
      .filter(([path]) => path.startsWith("/v1/") && !path.startsWith("/v1/incoming"))
      .flatMap(([path, methods]) =>
        Object.entries(methods)
          .filter(([method, op]) => ["post", "put", "patch"].includes(method) && op.requestBody)
          .map(([method]) => ({ method: method.toUpperCase(), url: path.replace(/\{[^}]+\}/g, "x") })),
      );
  });
  afterAll(() => t.close());

  const stored = async () => {
    const db = t.parley.db.kysely;
    const counts = await Promise.all(
      (["messages", "contacts", "lists", "campaigns", "conversations"] as const).map(async (table) =>
        Number(
          (
            await db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as("n"))
              .executeTakeFirstOrThrow()
          ).n,
        ),
      ),
    );
    return counts.join(",");
  };

  it("finds the body-taking operations to probe", () => {
    expect(operations.length).toBeGreaterThanOrEqual(12);
  });

  it("refuses a bad string anywhere in a body, for every operation (property-based), and stores nothing", async () => {
    const before = await stored();
    // A JSON value with one bad string planted at a random place (a key or a value, any depth).
    const body = fc
      .tuple(
        // Without "__proto__"/"constructor" keys: the JSON parser refuses those first (prototype
        // poisoning), with its own message, which is right but not what this property is about.
        fc.jsonValue({ maxDepth: 3 }).filter((v) => !/"(__proto__|constructor)"\s*:/.test(JSON.stringify(v))),
        fc.string({ maxLength: 8 }),
        BAD,
        fc.string({ maxLength: 8 }),
        fc.boolean(),
      )
      .map(([value, pre, bad, post, asKey]) => {
        const text = `${pre}${bad}${post}`;
        return {
          customData: { planted: asKey ? { [text]: 1 } : text, other: value },
          name: text,
          body: text,
        };
      });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...operations), body, async (op, payload) => {
        const res = await t.inject({
          method: op.method as "POST",
          url: op.url,
          headers: { "x-api-key": apiKey, "content-type": "application/json" },
          payload: JSON.stringify(payload),
        });
        expect(res.statusCode, `${op.method} ${op.url}: ${res.body}`).toBe(400);
        const error = json<{ error: string | { code: string; message: string } }>(res).error;
        const message = typeof error === "string" ? error : error.message;
        expect(message).toMatch(/NUL|Unicode/);
      }),
      { numRuns: 300 },
    );
    expect(await stored()).toBe(before);
  });

  it("refuses them in the query string and in the path too", async () => {
    const query = await t.inject({
      method: "GET",
      url: `/v1/contacts?email=a%00b@example.com&apiKey=${apiKey}`,
    });
    expect(query.statusCode).toBe(400);
    expect(json<{ error: { message: string } }>(query).error.message).toMatch(/email must not contain NUL/);
    const path = await t.inject({ method: "GET", url: `/v1/contacts/ct_%00x?apiKey=${apiKey}` });
    expect(path.statusCode).toBe(400);
  });

  it("holds customData.id to its documented 255 characters even when messageSid is given", async () => {
    const res = await t.inject({
      method: "POST",
      url: `/v1/incoming_custom_channel_message?apiKey=${apiKey}`,
      payload: { customData: { messageSid: "m1", id: "x".repeat(300), fromId: "u", toId: "t", body: "hi" } },
    });
    expect(res.statusCode).toBe(400);
    expect(json<{ error: string }>(res).error).toMatch(/customData\.id/);
  });
});

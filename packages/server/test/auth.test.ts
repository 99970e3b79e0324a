import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rotateApiKey } from "../src/modules/accounts/service.ts";
import { errorCode, json, startTestApp, type TestApp } from "./helpers.ts";
import { cliEnv, oneJsonLine, runCli } from "./process-helpers.ts";

describe("API key authentication", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("refuses a request without a key with 401 and the structured error", async () => {
    const res = await t.inject({ method: "GET", url: "/v1/account" });
    expect(res.statusCode).toBe(401);
    const body = json<{ error: { code: string; message: string; requestId: string } }>(res);
    expect(body.error.code).toBe("UNAUTHORIZED");
    expect(body.error.message).toMatch(/apiKey/);
    expect(body.error.requestId).toBe(res.headers["x-request-id"]);
  });

  it("refuses a wrong key with 401", async () => {
    const res = await t.inject({
      method: "GET",
      url: "/v1/account?apiKey=pk_live_wrongwrongwrongwrongwrongwrong12",
    });
    expect(res.statusCode).toBe(401);
    expect(errorCode(res)).toBe("UNAUTHORIZED");
  });

  it("accepts the key in the apiKey query parameter and in the x-api-key header", async () => {
    const acc = await t.account();
    const byQuery = await t.inject({ method: "GET", url: `/v1/account?apiKey=${acc.apiKey}` });
    expect(byQuery.statusCode).toBe(200);
    expect(json(byQuery).accountId).toBe(acc.accountId);
    const byHeader = await t.inject({
      method: "GET",
      url: "/v1/account",
      headers: { "x-api-key": acc.apiKey },
    });
    expect(byHeader.statusCode).toBe(200);
    expect(json(byHeader).accountId).toBe(acc.accountId);
  });

  it("stores only a SHA-256 hash of the key", async () => {
    const acc = await t.account();
    const row = await t.parley.db.kysely
      .selectFrom("api_keys")
      .selectAll()
      .where("account_id", "=", acc.accountId)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(acc.apiKey);
    expect(acc.apiKey).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
  });

  it("invalidates the old key at once when a new one is generated", async () => {
    const acc = await t.account();
    const before = await t.inject({ method: "GET", url: `/v1/account?apiKey=${acc.apiKey}` });
    expect(before.statusCode).toBe(200);
    const fresh = await rotateApiKey(t.parley.db, acc.accountId);
    const old = await t.inject({ method: "GET", url: `/v1/account?apiKey=${acc.apiKey}` });
    expect(old.statusCode).toBe(401);
    const now = await t.inject({ method: "GET", url: `/v1/account?apiKey=${fresh}` });
    expect(now.statusCode).toBe(200);
  });

  it("does not let one account's key read another account", async () => {
    const a = await t.account();
    const b = await t.account();
    const res = await t.inject({ method: "GET", url: `/v1/account?apiKey=${b.apiKey}` });
    expect(json(res).accountId).toBe(b.accountId);
    expect(json(res).accountId).not.toBe(a.accountId);
  });

  it("sees a key rotated and settings changed by another process (the CLI) on the very next request", async () => {
    const acc = await t.account({ email: "cached@example.com" });
    // Fill the key cache.
    for (let i = 0; i < 3; i++) {
      expect((await t.inject({ method: "GET", url: `/v1/account?apiKey=${acc.apiKey}` })).statusCode).toBe(
        200,
      );
    }
    const env = cliEnv(t.database);
    const set = await runCli(
      ["account", "set", "--email", "cached@example.com", "--webhook-url", "https://hooks.example.com/new"],
      env,
    );
    expect(set.code).toBe(0);
    const after = await t.inject({ method: "GET", url: `/v1/account?apiKey=${acc.apiKey}` });
    expect(json(after).webhookUrl).toBe("https://hooks.example.com/new");
    const { apiKey } = oneJsonLine<{ apiKey: string }>(
      await runCli(["key", "generate", "--email", "cached@example.com"], env),
    );
    expect((await t.inject({ method: "GET", url: `/v1/account?apiKey=${acc.apiKey}` })).statusCode).toBe(401);
    expect((await t.inject({ method: "GET", url: `/v1/account?apiKey=${apiKey}` })).statusCode).toBe(200);
  });
});

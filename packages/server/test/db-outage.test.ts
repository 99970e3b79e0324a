// A database outage is a 503 in the error model, never a crash: PostgreSQL terminating every
// connection ("terminating connection due to administrator command") and then refusing new ones
// used to end the whole process through an unhandled 'error' event on a pooled client.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, PG_URL, startTestApp, type TestApp } from "./helpers.ts";

describe.runIf(PG_URL)("PostgreSQL outage (connections terminated, then refused)", () => {
  let t: TestApp;
  let admin: pg.Client;
  let dbName: string;

  beforeAll(async () => {
    t = await startTestApp();
    dbName = new URL(t.database.databaseUrl ?? "").pathname.slice(1);
    admin = new pg.Client({ connectionString: PG_URL ?? "" });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.query(`alter database ${dbName} with allow_connections true`);
    await admin.end();
    await t.close();
  });

  const incoming = (apiKey: string, sid: string) =>
    t.inject({
      method: "POST",
      url: `/v1/incoming_custom_channel_message?apiKey=${apiKey}`,
      payload: { customData: { messageSid: sid, fromId: "u1", toId: "shop", body: "hello" } },
    });

  it("answers 503 while the database is down, reports it on /readyz, and recovers by itself", async () => {
    const acc = await t.account();
    expect((await incoming(acc.apiKey, "before")).statusCode).toBe(200);

    await admin.query(`alter database ${dbName} with allow_connections false`);
    await admin.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
      [dbName],
    );

    const during = await incoming(acc.apiKey, "during");
    expect(during.statusCode).toBe(503);
    expect(json(during)).toEqual({ error: "The database is unavailable right now; retry shortly" });
    expect(during.headers["retry-after"]).toBe("2");
    // The key is cached, so an authenticated read reaches the database and gets the structured form.
    const read = await t.inject({
      method: "GET",
      url: `/v1/contacts?email=a@example.com&apiKey=${acc.apiKey}`,
    });
    expect(read.statusCode).toBe(503);
    expect(json<{ error: { code: string } }>(read).error.code).toBe("SERVICE_UNAVAILABLE");
    expect(read.body).not.toMatch(/terminat|ECONN|at .*\.ts/);
    expect((await t.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(503);

    await admin.query(`alter database ${dbName} with allow_connections true`);
    let after = await incoming(acc.apiKey, "after");
    for (let i = 0; i < 50 && after.statusCode !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await incoming(acc.apiKey, "after");
    }
    expect(after.statusCode).toBe(200);
    expect((await t.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
    // The message acknowledged before the outage is still there, and the one refused was not stored.
    const stored = await t.parley.db.kysely
      .selectFrom("messages")
      .select("external_id")
      .where("account_id", "=", acc.accountId)
      .orderBy("id")
      .execute();
    expect(stored.map((m) => m.external_id)).toEqual(["before", "after"]);
  });
});

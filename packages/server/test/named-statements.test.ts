// On PostgreSQL Kysely's parameterised statements run as named prepared statements
// (platform/db/named-statements.ts). Checked on a real server: they are prepared once per
// connection, and a statement whose result shape changed under it (another process added a column)
// recovers instead of failing for the life of the connection.
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLAN_EACH_CALL, StatementNames } from "../src/platform/db/named-statements.ts";
import { PG_URL, startTestApp, type TestApp } from "./helpers.ts";

describe("statement names", () => {
  it("names parameterised statements, leaves bulk and parameterless ones unnamed, and is bounded", () => {
    const names = new StatementNames();
    expect(names.nameFor("select 1", 0)).toBeUndefined();
    expect(names.nameFor("insert into t values ($1, …)", 33)).toBeUndefined();
    // A search's statement is planned with its values on every call.
    expect(names.nameFor(`select * from t where x like $1 ${PLAN_EACH_CALL}`, 1)).toBeUndefined();
    const first = names.nameFor("select * from t where id = $1", 1);
    expect(first).toMatch(/^parley_auto_\d+$/);
    expect(names.nameFor("select * from t where id = $1", 1)).toBe(first);
    for (let i = 0; names.size < 500; i++) names.nameFor(`select ${i} where $1`, 1);
    expect(names.nameFor("select 'one too many' where $1", 1)).toBeUndefined();
    expect(names.nameFor("select * from t where id = $1", 1)).toBe(first);
    names.renew("select * from t where id = $1");
    const renewed = names.nameFor("select * from t where id = $1", 1);
    expect(renewed).toMatch(/^parley_auto_\d+$/);
    expect(renewed).not.toBe(first);
    expect(names.size).toBe(500);
  });
});

describe.runIf(PG_URL)("named statements on PostgreSQL", () => {
  let t: TestApp;
  let admin: pg.Client;

  beforeAll(async () => {
    t = await startTestApp();
    admin = new pg.Client({ connectionString: t.database.databaseUrl ?? "" });
    await admin.connect();
    await admin.query("create table probe (id integer primary key)");
    await admin.query("insert into probe values (1)");
  });
  afterAll(async () => {
    await admin.end();
    await t.close();
  });

  const prepared = (conn: typeof t.parley.db.kysely) =>
    sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`
      .execute(conn)
      .then((r) => r.rows);

  it("runs the app's connections without JIT compilation (the server's default is left as it is)", async () => {
    const jitOf = (conn: typeof t.parley.db.kysely) =>
      sql<{ jit: string }>`show jit`.execute(conn).then((r) => r.rows[0]?.jit);
    // Several connections at once, so more than the pool's first one is checked.
    const seen = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.parley.db.kysely.connection().execute(async (conn) => {
          const jit = await jitOf(conn);
          await sql`select pg_sleep(0.05)`.execute(conn);
          return jit;
        }),
      ),
    );
    expect(seen).toEqual(["off", "off", "off", "off"]);
    expect((await admin.query<{ jit: string }>("show jit")).rows[0]?.jit).toBe("on");
  });

  it("prepares a parameterised statement once on its connection and runs it by name after that", async () => {
    await t.parley.db.kysely.connection().execute(async (conn) => {
      const probe = () => sql`select id from probe where id = ${1}`.execute(conn);
      expect((await probe()).rows).toEqual([{ id: 1 }]);
      expect((await probe()).rows).toEqual([{ id: 1 }]);
      const mine = (await prepared(conn)).filter((p) => p.statement.includes("from probe"));
      expect(mine).toHaveLength(1);
      expect(mine[0]?.name).toMatch(/^parley_auto_\d+$/);
    });
  });

  it("a select * survives another process adding a column, outside and inside a transaction", async () => {
    await t.parley.db.kysely.connection().execute(async (conn) => {
      const all = () => sql`select * from probe where id = ${1}`.execute(conn);
      expect((await all()).rows).toEqual([{ id: 1 }]);

      await admin.query("alter table probe add column note text default 'added'");
      // Autocommit: PostgreSQL refuses the old plan ("cached plan must not change result type");
      // the statement is sent again and answers with the new shape.
      expect((await all()).rows).toEqual([{ id: 1, note: "added" }]);
      expect((await all()).rows).toEqual([{ id: 1, note: "added" }]);

      await admin.query("alter table probe add column more text default 'again'");
      await sql`begin`.execute(conn);
      // In a transaction the refusal aborts it, so the caller sees it once ...
      await expect(all()).rejects.toMatchObject({ code: "0A000" });
      await sql`rollback`.execute(conn);
      // ... and its retry runs under a fresh name.
      await sql`begin`.execute(conn);
      expect((await all()).rows).toEqual([{ id: 1, note: "added", more: "again" }]);
      await sql`commit`.execute(conn);
    });
  });

  it("requests through the app keep working after the schema changed under them", async () => {
    const acc = await t.account();
    const lookup = () =>
      t.inject({ method: "GET", url: `/v1/contacts?email=a@example.com&apiKey=${acc.apiKey}` });
    const create = await t.inject({
      method: "POST",
      url: `/v1/contacts?apiKey=${acc.apiKey}`,
      payload: { email: "a@example.com", firstName: "Ada" },
    });
    expect(create.statusCode).toBe(201);
    for (let i = 0; i < 3; i++) expect((await lookup()).statusCode).toBe(200);
    await admin.query("alter table contacts add column added_elsewhere text");
    for (let i = 0; i < 20; i++) expect((await lookup()).statusCode).toBe(200);
  });
});

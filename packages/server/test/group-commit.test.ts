import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../src/platform/ids.ts";
import { DIALECT, startTestApp, type TestApp } from "./helpers.ts";

describe("db.write (group commit on SQLite)", () => {
  let t: TestApp;
  let accountId: string;
  beforeAll(async () => {
    t = await startTestApp({}, { modules: [] });
    accountId = (await t.account()).accountId;
  });
  afterAll(() => t.close());

  const insertList = (name: string) =>
    t.parley.db.write(async (trx) => {
      const id = newId("list");
      await trx
        .insertInto("lists")
        .values({ id, account_id: accountId, name, created_at: Date.now(), updated_at: Date.now() })
        .execute();
      if (name.startsWith("fail")) throw new Error(`refused ${name}`);
      return id;
    });

  it("commits concurrent writes, failing only the write that threw", async () => {
    const names = Array.from({ length: 200 }, (_, i) => (i % 10 === 7 ? `fail-${i}` : `ok-${i}`));
    const results = await Promise.allSettled(names.map(insertList));
    const failed = results.filter((r) => r.status === "rejected");
    expect(failed).toHaveLength(20);
    for (const f of failed) expect(String((f as PromiseRejectedResult).reason)).toMatch(/refused fail-/);
    const rows = await t.parley.db.kysely
      .selectFrom("lists")
      .select("name")
      .where("account_id", "=", accountId)
      .execute();
    const stored = rows.map((r) => r.name).sort();
    expect(stored).toEqual(names.filter((n) => n.startsWith("ok")).sort());
  });

  it.skipIf(DIALECT !== "sqlite")("gathers concurrent writes into fewer commits than writes", async () => {
    const before = await t.parley.db.kysely.selectFrom("lists").select("id").execute();
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) => insertList(`batch-${i}`)));
    expect(new Set(ids).size).toBe(100);
    const after = await t.parley.db.kysely.selectFrom("lists").select("id").execute();
    expect(after.length - before.length).toBe(100);
    // The committer's counters: 100 writes in far fewer transactions.
    const group = t.parley.db.groupStats();
    expect(group.writes).toBeGreaterThanOrEqual(300);
    expect(group.batches).toBeLessThan(group.writes / 5);
  });
});

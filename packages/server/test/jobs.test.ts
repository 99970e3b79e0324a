import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/platform/db/index.ts";
import { defineJob, enqueueJobs, JobWorker } from "../src/platform/jobs.ts";
import { createLogger } from "../src/platform/logging.ts";
import { freshDatabase, startTestApp, type TestApp, type TestDatabase } from "./helpers.ts";

/** A job type for these tests: any payload. */
const testJob = (type: string) => defineJob(type, Type.Unknown());

const log = createLogger("silent");

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("migrations", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(() => database.drop());

  it("apply on an empty database and are a no-op when re-run", async () => {
    const db = openDatabase(database);
    try {
      expect(await db.migrate()).toEqual([
        "001_initial",
        "002_account_change_notify",
        "003_drop_job_lease_index",
        "004_drop_message_conversation_index",
        "005_delivery_attempt_details",
        "006_web_app",
        "009_contact_labels",
        "010_dashboard",
        "011_imports",
        "012_outgoing",
        "015_outgoing_skip_reason",
        "020_channels",
        "021_tenant_emails",
        "024_import_modes",
        "025_contact_seen",
        "026_channel_providers",
        "027_message_media_index",
        "028_bot_functions",
        "029_follow_ups",
        "030_notifications",
        "031_business_hours",
        "032_password_resets",
        "033_conversation_notes",
        "034_message_search",
        "035_canned_replies",
        "036_conversation_events",
        "037_conversation_reads",
        "038_export_order_indexes",
        "039_account_suspension",
        "040_assist_and_audit",
        "041_agency_brand",
        "043_usage_indexes",
        "044_search_trigram",
        "045_knowledge_sources",
        "046_message_suggestions",
        "047_dashboard_live",
      ]);
      expect(await db.migrate()).toEqual([]);
      const tables = await db.kysely.introspection.getTables();
      const names = tables.map((t) => t.name);
      for (const t of ["accounts", "users", "api_keys", "jobs", "contacts", "messages", "campaigns"]) {
        expect(names).toContain(t);
      }
    } finally {
      await db.close();
    }
    // A second process (e.g. `parley migrate` after `parley serve`) sees nothing left to do.
    const again = openDatabase(database);
    try {
      expect(await again.migrate()).toEqual([]);
    } finally {
      await again.close();
    }
  });
});

describe("job worker", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({}, { modules: [] });
  });
  afterAll(() => t.close());

  it("retries a job that throws, with backoff, until it succeeds", async () => {
    const worker = new JobWorker({ db: t.parley.db, log, pollIntervalMs: 10 });
    const seen: number[] = [];
    worker.register(testJob("flaky"), async (_payload, ctx) => {
      seen.push(ctx.attempt);
      if (ctx.attempt < 3) throw new Error(`failure ${ctx.attempt}`);
      return undefined;
    });
    const [id] = await enqueueJobs(t.parley.db.kysely, [{ type: "flaky", payload: { n: 1 } }]);
    await worker.drain();
    const afterFirst = await t.parley.db.kysely
      .selectFrom("jobs")
      .selectAll()
      .where("id", "=", id!)
      .executeTakeFirstOrThrow();
    expect(afterFirst.status).toBe("queued");
    expect(afterFirst.attempts).toBe(1);
    expect(afterFirst.last_error).toBe("failure 1");
    expect(afterFirst.run_at).toBeGreaterThan(Date.now() + 500); // backoff ≈ 1 s ± 20 %
    // Make the retries due now instead of waiting out the backoff.
    for (let i = 0; i < 2; i++) {
      await t.parley.db.kysely.updateTable("jobs").set({ run_at: 0 }).where("id", "=", id!).execute();
      await worker.drain();
    }
    expect(seen).toEqual([1, 2, 3]);
    const gone = await t.parley.db.kysely
      .selectFrom("jobs")
      .selectAll()
      .where("id", "=", id!)
      .executeTakeFirst();
    expect(gone).toBeUndefined();
  });

  it("marks a job dead after its last attempt", async () => {
    const worker = new JobWorker({ db: t.parley.db, log });
    worker.register(testJob("always-fails"), async () => {
      throw new Error("nope");
    });
    const [id] = await enqueueJobs(t.parley.db.kysely, [
      { type: "always-fails", payload: null, maxAttempts: 2 },
    ]);
    await worker.drain();
    await t.parley.db.kysely.updateTable("jobs").set({ run_at: 0 }).where("id", "=", id!).execute();
    await worker.drain();
    const row = await t.parley.db.kysely
      .selectFrom("jobs")
      .selectAll()
      .where("id", "=", id!)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("dead");
    expect(row.attempts).toBe(2);
    expect(row.last_error).toBe("nope");
  });

  it("recovers a job whose worker died, once its lease expires", async () => {
    // Worker A claims the job and never finishes it (as if its process had been killed).
    const dying = new JobWorker({ db: t.parley.db, log, leaseMs: 300, pollIntervalMs: 10 });
    let claimedByA = false;
    dying.register(testJob("lease"), () => {
      claimedByA = true;
      return new Promise(() => {}); // hangs forever
    });
    const [id] = await enqueueJobs(t.parley.db.kysely, [{ type: "lease", payload: { v: 42 } }]);
    dying.start();
    await waitFor(async () => claimedByA);
    const running = await t.parley.db.kysely
      .selectFrom("jobs")
      .selectAll()
      .where("id", "=", id!)
      .executeTakeFirstOrThrow();
    expect(running.status).toBe("running");
    // Stop A claiming anything else; its job stays "running" with a lease.
    void dying.stop();

    const survivor = new JobWorker({ db: t.parley.db, log, pollIntervalMs: 10 });
    const ranByB: unknown[] = [];
    survivor.register(testJob("lease"), async (payload, ctx) => {
      ranByB.push({ payload, attempt: ctx.attempt });
      return undefined;
    });
    survivor.start();
    try {
      await waitFor(async () => ranByB.length === 1);
      expect(ranByB).toEqual([{ payload: { v: 42 }, attempt: 2 }]);
      await waitFor(
        async () =>
          !(await t.parley.db.kysely
            .selectFrom("jobs")
            .select("id")
            .where("id", "=", id!)
            .executeTakeFirst()),
      );
    } finally {
      await survivor.stop();
    }
  });

  it("hands a batch type's jobs claimed together to one call, and records one outcome per job", async () => {
    const worker = new JobWorker({ db: t.parley.db, log });
    const calls: number[][] = [];
    const type = testJob("batched");
    worker.registerBatch(
      type,
      async () => undefined,
      async (jobs) => {
        // The claim's order among jobs due at the same time is the database's.
        calls.push(jobs.map((j) => (j.payload as { n: number }).n).sort());
        return jobs.map((j) =>
          (j.payload as { n: number }).n === 2
            ? { status: "rejected" as const, reason: new Error("two fails") }
            : { status: "fulfilled" as const, value: undefined },
        );
      },
    );
    const ids = await enqueueJobs(
      t.parley.db.kysely,
      [1, 2, 3].map((n) => ({ type: "batched", payload: { n } })),
    );
    await worker.drain(1);
    expect(calls).toEqual([[1, 2, 3]]);
    const left = await t.parley.db.kysely.selectFrom("jobs").selectAll().where("id", "in", ids).execute();
    expect(left.map((j) => [j.id, j.status, j.last_error])).toEqual([[ids[1], "queued", "two fails"]]);
  });

  it("runs the jobs a job enqueues here as soon as its write commits, without a claim", async () => {
    const worker = new JobWorker({ db: t.parley.db, log });
    const ran: Array<{ payload: unknown; attempt: number }> = [];
    worker.register(testJob("first-here"), async (payload, ctx) => {
      await t.parley.db.write((trx) => ctx.enqueueHere(trx, [{ type: "second-here", payload }]));
      return undefined;
    });
    worker.register(testJob("second-here"), async (payload, ctx) => {
      ran.push({ payload, attempt: ctx.attempt });
      return undefined;
    });
    await enqueueJobs(t.parley.db.kysely, [{ type: "first-here", payload: { v: 7 } }]);
    // One round: it claims and runs the first job only. A second job queued as usual would wait for
    // a poll that never comes (the worker is not started); this one runs at the first one's commit.
    await worker.drain(1);
    await waitFor(async () => ran.length === 1, 2_000);
    expect(ran).toEqual([{ payload: { v: 7 }, attempt: 1 }]);
    await waitFor(
      async () =>
        !(await t.parley.db.kysely
          .selectFrom("jobs")
          .select("id")
          .where("type", "in", ["first-here", "second-here"])
          .executeTakeFirst()),
    );
  });

  it("a job enqueued here whose worker died runs again once its lease expires", async () => {
    const dying = new JobWorker({ db: t.parley.db, log, leaseMs: 300 });
    let started = false;
    dying.register(testJob("first-lost"), async (payload, ctx) => {
      await t.parley.db.write((trx) => ctx.enqueueHere(trx, [{ type: "second-lost", payload }]));
      return undefined;
    });
    dying.register(testJob("second-lost"), () => {
      started = true;
      return new Promise(() => {}); // hangs forever, as if the process had been killed
    });
    await enqueueJobs(t.parley.db.kysely, [{ type: "first-lost", payload: { v: 9 } }]);
    await dying.drain(1);
    await waitFor(async () => started);
    const survivor = new JobWorker({ db: t.parley.db, log, pollIntervalMs: 10 });
    const ran: Array<{ payload: unknown; attempt: number }> = [];
    survivor.register(testJob("second-lost"), async (payload, ctx) => {
      ran.push({ payload, attempt: ctx.attempt });
      return undefined;
    });
    survivor.start();
    try {
      await waitFor(async () => ran.length === 1);
      expect(ran).toEqual([{ payload: { v: 9 }, attempt: 2 }]);
    } finally {
      await survivor.stop();
    }
  });

  it("checks each payload against its job type's schema: a payload that does not match ends the job dead", async () => {
    const worker = new JobWorker({ db: t.parley.db, log });
    const typed = defineJob("typed", Type.Object({ messageId: Type.String({ minLength: 1 }) }));
    const seen: unknown[] = [];
    worker.register(typed, async (payload) => {
      seen.push(payload.messageId);
      return undefined;
    });
    const [good, bad] = await enqueueJobs(t.parley.db.kysely, [
      typed.create({ messageId: "msg_1" }, { accountId: null }),
      { type: "typed", payload: { messageId: 42 } },
    ]);
    await worker.drain();
    expect(seen).toEqual(["msg_1"]);
    const rows = await t.parley.db.kysely
      .selectFrom("jobs")
      .selectAll()
      .where("id", "in", [good!, bad!])
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: bad, status: "dead" });
    expect(rows[0]!.last_error).toContain("does not match its schema");
  });

  it("wakes after the commit of a write that enqueued a job, without waiting for the next poll", async () => {
    // A poll interval far longer than the test: only the commit signal can start the job in time.
    const worker = new JobWorker({ db: t.parley.db, log, pollIntervalMs: 60_000 });
    let ran = false;
    worker.register(testJob("woken"), async () => {
      ran = true;
      return undefined;
    });
    worker.start();
    try {
      await new Promise((r) => setTimeout(r, 50)); // the first poll found nothing and went to sleep
      await t.parley.db.write((trx) => enqueueJobs(trx, [{ type: "woken", payload: null }]));
      await waitFor(async () => ran, 5_000);
      expect(ran).toBe(true);
    } finally {
      await worker.stop();
    }
  });

  it("honours a handler's own schedule (retryAt) and leaves future jobs alone", async () => {
    const worker = new JobWorker({ db: t.parley.db, log });
    let runs = 0;
    worker.register(testJob("scheduled"), async () => {
      runs++;
      return { retryAt: Date.now() + 60_000, error: "later" };
    });
    const [id] = await enqueueJobs(t.parley.db.kysely, [{ type: "scheduled", payload: null }]);
    await worker.drain();
    await worker.drain();
    expect(runs).toBe(1);
    const row = await t.parley.db.kysely
      .selectFrom("jobs")
      .selectAll()
      .where("id", "=", id!)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("queued");
    expect(row.last_error).toBe("later");
    expect(row.run_at).toBeGreaterThan(Date.now() + 50_000);
  });

  it("lets two workers share a queue without running a job twice", async () => {
    const counts = new Map<number, number>();
    const make = () => {
      const w = new JobWorker({ db: t.parley.db, log, pollIntervalMs: 5, concurrency: 4 });
      w.register(testJob("shared"), async (payload) => {
        const n = (payload as { n: number }).n;
        counts.set(n, (counts.get(n) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 2));
        return undefined;
      });
      return w;
    };
    const w1 = make();
    const w2 = make();
    await enqueueJobs(
      t.parley.db.kysely,
      Array.from({ length: 200 }, (_, n) => ({ type: "shared", payload: { n } })),
    );
    w1.start();
    w2.start();
    try {
      await waitFor(async () => counts.size === 200, 20_000);
      await waitFor(async () => {
        const left = await t.parley.db.kysely
          .selectFrom("jobs")
          .select("id")
          .where("type", "=", "shared")
          .execute();
        return left.length === 0;
      });
    } finally {
      await Promise.all([w1.stop(), w2.stop()]);
    }
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
  });

  it("bounds each account's share of the worker so one busy account cannot starve another", async () => {
    const running = new Map<string, number>();
    const peak = new Map<string, number>();
    const finished: string[] = [];
    const worker = new JobWorker({
      db: t.parley.db,
      log,
      pollIntervalMs: 5,
      concurrency: 4,
      perAccountConcurrency: 2,
    });
    worker.register(testJob("fair"), async (_payload, ctx) => {
      const acc = ctx.accountId ?? "";
      running.set(acc, (running.get(acc) ?? 0) + 1);
      peak.set(acc, Math.max(peak.get(acc) ?? 0, running.get(acc) ?? 0));
      await new Promise((r) => setTimeout(r, 30));
      running.set(acc, (running.get(acc) ?? 0) - 1);
      finished.push(acc);
      return undefined;
    });
    const a = (await t.account()).accountId;
    const b = (await t.account()).accountId;
    await enqueueJobs(
      t.parley.db.kysely,
      Array.from({ length: 30 }, () => ({ type: "fair", accountId: a, payload: null })),
    );
    await enqueueJobs(t.parley.db.kysely, [
      { type: "fair", accountId: b, payload: null, runAt: Date.now() + 50 },
      { type: "fair", accountId: b, payload: null, runAt: Date.now() + 50 },
    ]);
    worker.start();
    try {
      await waitFor(async () => finished.length === 32, 20_000);
    } finally {
      await worker.stop();
    }
    expect(peak.get(a)).toBe(2);
    expect(peak.get(b)).toBeLessThanOrEqual(2);
    // B's two jobs ran while A still had a backlog, not after all of A's 30.
    expect(finished.lastIndexOf(b)).toBeLessThan(20);
  });
});

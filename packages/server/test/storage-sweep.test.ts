// The orphan sweep: a file written without its row (as a crash between the write and the commit leaves
// it) is removed once older than the grace; files rows name, and young orphans, stay. On the local
// DATA_DIR and on an S3-compatible bucket (s3rver), with SQLite or PostgreSQL (DATABASE_URL).
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { importsSweep } from "../src/modules/imports/index.ts";
import { createImport, importKey } from "../src/modules/imports/service.ts";
import { mediaSweep } from "../src/modules/messaging/index.ts";
import { blobKey } from "../src/modules/messaging/media/store.ts";
import { newId } from "../src/platform/ids.ts";
import { RECURRING_JOB_ID_PREFIX, recurringJobId } from "../src/platform/jobs.ts";
import { SWEEP_EVERY_MS, sweepPrefix } from "../src/platform/storage-sweep.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { dataUri, makePng } from "./fixtures/png.ts";
import { DIALECT, json, startTestApp, type TestApp } from "./helpers.ts";
import { type S3StandIn, startS3, useS3Credentials } from "./stand-ins/s3.ts";

const GRACE_SECONDS = 4;
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SWEEP_TYPES = [mediaSweep.type, importsSweep.type];

for (const where of ["local", "s3"] as const) {
  describe(`the orphan sweep (${where} storage, ${DIALECT})`, () => {
    let t: TestApp;
    let acc: CreatedAccount;
    let bucket: S3StandIn | null = null;
    let restoreCredentials = () => {};

    beforeAll(async () => {
      if (where === "s3") {
        bucket = await startS3();
        restoreCredentials = useS3Credentials(bucket);
      }
      t = await startTestApp({
        STORAGE_ORPHAN_GRACE_SECONDS: String(GRACE_SECONDS),
        ...(bucket ? { STORAGE_URL: bucket.storageUrl() } : {}),
      });
      expect(t.parley.ctx.storage.kind).toBe(where);
      acc = await t.account();
    });
    afterAll(async () => {
      await t?.close();
      await bucket?.stop();
      restoreCredentials();
    });

    const exists = async (key: string) => (await t.parley.ctx.storage.size(key)) !== null;
    const sweepRows = () =>
      t.parley.db.kysely.selectFrom("jobs").selectAll().where("type", "in", SWEEP_TYPES).execute();

    /** An attachment a message names (stored before the answer, as a data URI). */
    async function attachment(png: Buffer): Promise<string> {
      const res = await postIncoming(t, acc.apiKey, {
        customData: customData({ mediaUrl: dataUri("image/png", png), mediaContentType: "image/png" }),
      });
      expect(res.statusCode, res.body).toBe(200);
      return json<{ messageId: string }>(res).messageId;
    }

    it("every worker queues the sweeps, one pending per module across processes, an hour ahead", async () => {
      const before = Date.now();
      await t.parley.worker.queueRecurring();
      // Another process on the same database starting at the same time.
      const other = await buildApp(t.config);
      try {
        await Promise.all([other.worker.queueRecurring(), t.parley.worker.queueRecurring()]);
      } finally {
        await other.close();
      }
      const rows = await sweepRows();
      expect(rows.map((r) => r.id).sort()).toEqual(SWEEP_TYPES.map(recurringJobId).sort());
      for (const r of rows) {
        expect(r.status).toBe("queued");
        expect(r.run_at).toBeGreaterThanOrEqual(before + SWEEP_EVERY_MS);
      }
    });

    it("removes files no row names once older than the grace; named files and young orphans stay", async () => {
      // Named by rows: an attachment (by its SHA-256) and an uploaded import file (by its import).
      const named = makePng(9, 4);
      await attachment(named);
      const imp = await createImport(t.parley.ctx, acc.accountId, {
        bytes: Buffer.from("phone\n+14155550100\n"),
      });
      // Written with no row, as a crash between the write and the commit leaves them.
      const orphan = randomBytes(200);
      await t.parley.ctx.storage.put(blobKey(sha(orphan)), orphan);
      const orphanImport = importKey(newId("import"));
      await t.parley.ctx.storage.put(orphanImport, Buffer.from("phone\n"));
      // Not a key Parley writes under media/: never touched.
      const foreign = "media/notes/readme.txt";
      await t.parley.ctx.storage.put(foreign, Buffer.from("hello"));
      await sleep(GRACE_SECONDS * 1000 + 600);
      // Young orphans: their rows may still be on their way.
      const young = randomBytes(150);
      await t.parley.ctx.storage.put(blobKey(sha(young)), young);
      const youngImport = importKey(newId("import"));
      await t.parley.ctx.storage.put(youngImport, Buffer.from("phone\n"));

      await t.parley.worker.queueRecurring();
      const started = Date.now();
      await t.parley.db.write((trx) =>
        trx
          .updateTable("jobs")
          .set({ run_at: 0 })
          .where("id", "like", `${RECURRING_JOB_ID_PREFIX}%`)
          .execute(),
      );
      await t.parley.worker.drain();

      expect(await exists(blobKey(sha(orphan)))).toBe(false);
      expect(await exists(orphanImport)).toBe(false);
      expect(await exists(blobKey(sha(named)))).toBe(true);
      expect(await exists(importKey(imp.importId))).toBe(true);
      expect(await exists(blobKey(sha(young)))).toBe(true);
      expect(await exists(youngImport)).toBe(true);
      expect(await exists(foreign)).toBe(true);
      // Each sweep queued its next run an hour on, and is still the only one of its module.
      const rows = await sweepRows();
      expect(rows.map((r) => r.id).sort()).toEqual(SWEEP_TYPES.map(recurringJobId).sort());
      for (const r of rows) {
        expect(r.status).toBe("queued");
        expect(r.run_at).toBeGreaterThanOrEqual(started + SWEEP_EVERY_MS);
        expect(JSON.parse(r.payload)).toEqual({ next: 0 });
      }

      // Once they are old, the young orphans go too; the named files still stay.
      await sleep(GRACE_SECONDS * 1000 + 600);
      await t.parley.db.write((trx) =>
        trx.updateTable("jobs").set({ run_at: 0 }).where("type", "in", SWEEP_TYPES).execute(),
      );
      await t.parley.worker.drain();
      expect(await exists(blobKey(sha(young)))).toBe(false);
      expect(await exists(youngImport)).toBe(false);
      expect(await exists(blobKey(sha(named)))).toBe(true);
      expect(await exists(importKey(imp.importId))).toBe(true);
    });

    it("keeps a file whose row commits while the sweep runs (asked again right before the delete)", async () => {
      // An orphan the batch's question finds unnamed; then a message naming the same bytes commits.
      const png = makePng(11, 3);
      await t.parley.ctx.storage.put(blobKey(sha(png)), png);
      let messageId: string | null = null;
      const racing = {
        ...mediaSweep,
        async named(db: Parameters<typeof mediaSweep.named>[0], names: string[]) {
          const found = await mediaSweep.named(db, names);
          if (messageId === null && names.includes(sha(png))) messageId = await attachment(png);
          return found;
        },
      };
      // Swept as if the grace had passed.
      const counts = await sweepPrefix(
        t.parley.ctx,
        racing,
        `media/${sha(png).slice(0, 2)}/`,
        Date.now() + GRACE_SECONDS * 1000 + 1000,
      );
      expect(messageId).not.toBeNull();
      expect(counts.deleted).toBe(0);
      expect(await exists(blobKey(sha(png)))).toBe(true);
      const served = await t.inject({
        method: "GET",
        url: `/v1/messages/${messageId}/media?apiKey=${acc.apiKey}`,
      });
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.equals(png)).toBe(true);
    });
  });
}

// The orphan sweep. A file is written before the row that names it commits (platform/storage.ts), so a
// crash in between leaves a file no row names. Each module sweeps the prefix it writes, asking only its
// own tables: a recurring job (one pending across every process, see JobWorker.recur) lists the
// prefix and deletes the files older than the grace (STORAGE_ORPHAN_GRACE_SECONDS, an hour) that no
// row names, asking the database once more right before each delete, so a row that commits while the
// sweep runs keeps its file. It runs every hour, in runs of at most half a job lease (a run stops
// between two prefixes and the next goes on from there).
import type { Kysely } from "kysely";
import { Type } from "typebox";
import type { Config } from "../config.ts";
import type { Db } from "./db/index.ts";
import type { Database } from "./db/schema.ts";
import { defineJob, type JobWorker, queueNextRun } from "./jobs.ts";
import type { ObjectStorage } from "./storage.ts";

/** A whole sweep starts an hour after the last one ended (and an hour after the first start). */
export const SWEEP_EVERY_MS = 3_600_000;
/** After a failure (the bucket or the database unavailable) the sweep goes on from there later. */
const AFTER_FAILURE_MS = 300_000;
/** Files asked about in one query. */
const BATCH = 500;

export interface OrphanSweep {
  /** The job's type, e.g. media.sweep. */
  type: string;
  /** Listed one after the other; a run may stop between two. */
  prefixes: readonly string[];
  /** The name a row knows the file by (a SHA-256, an import id), or null: not this module's, kept. */
  nameOf(key: string): string | null;
  /** Which of these names some row (of any account) still uses. */
  named(db: Kysely<Database>, names: string[]): Promise<Set<string>>;
}

export interface SweepCounts {
  listed: number;
  deleted: number;
}

/** What a sweep uses of the app's context. */
export interface SweepContext {
  db: Db;
  storage: ObjectStorage;
  config: Pick<Config, "storageOrphanGraceMs" | "jobLeaseMs">;
}

/** Sweeps one prefix now: deletes its files older than the grace that no row names. */
export async function sweepPrefix(
  ctx: SweepContext,
  sweep: OrphanSweep,
  prefix: string,
  now = Date.now(),
): Promise<SweepCounts> {
  const olderThan = now - ctx.config.storageOrphanGraceMs;
  const counts: SweepCounts = { listed: 0, deleted: 0 };
  let batch: Array<{ key: string; name: string }> = [];
  const settle = async () => {
    const named = await sweep.named(ctx.db.kysely, [...new Set(batch.map((b) => b.name))]);
    for (const b of batch) {
      if (named.has(b.name)) continue;
      // Asked again right before the delete: a row committed since the batch's question keeps its file.
      if ((await sweep.named(ctx.db.kysely, [b.name])).size > 0) continue;
      await ctx.storage.delete(b.key);
      counts.deleted++;
    }
    batch = [];
  };
  for await (const object of ctx.storage.list(prefix)) {
    counts.listed++;
    const name = sweep.nameOf(object.key);
    // Young files may belong to a write whose row has not committed yet.
    if (name === null || object.modifiedAt > olderThan) continue;
    batch.push({ key: object.key, name });
    if (batch.length >= BATCH) await settle();
  }
  if (batch.length > 0) await settle();
  return counts;
}

/** Registers the sweep's job and its hourly schedule with the worker (a module's `jobs`). */
export function registerSweep(worker: JobWorker, ctx: SweepContext, sweep: OrphanSweep): void {
  const job = defineJob(sweep.type, Type.Object({ next: Type.Integer({ minimum: 0 }) }));
  worker.register(job, async (payload, run) => {
    const deadline = Date.now() + ctx.config.jobLeaseMs / 2;
    const total = { listed: 0, deleted: 0 };
    let next = Math.min(payload.next, sweep.prefixes.length);
    let runAt: number;
    try {
      while (next < sweep.prefixes.length) {
        const counts = await sweepPrefix(ctx, sweep, sweep.prefixes[next]!);
        total.listed += counts.listed;
        total.deleted += counts.deleted;
        next++;
        if (Date.now() >= deadline) break;
      }
      runAt = next < sweep.prefixes.length ? Date.now() : Date.now() + SWEEP_EVERY_MS;
    } catch (err) {
      run.log.warn({ err, prefix: sweep.prefixes[next] }, "orphan sweep failed; it goes on from there later");
      runAt = Date.now() + AFTER_FAILURE_MS;
    }
    if (total.deleted > 0) run.log.info(total, "orphan sweep removed files no row names");
    const done = next >= sweep.prefixes.length;
    await ctx.db.write((trx) =>
      queueNextRun(trx, run, job.create({ next: done ? 0 : next }, { accountId: null, runAt })),
    );
    return undefined;
  });
  worker.recur(job, { next: 0 }, { firstRunInMs: SWEEP_EVERY_MS });
}

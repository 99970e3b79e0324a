// The lease index is dropped: expired leases are looked for among running jobs only, at most the
// workers' concurrency, which jobs_due_idx (status, run_at) finds directly. Enqueueing a job (one per
// incoming text message, the hot path) now updates one index fewer.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("jobs_lease_idx").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.createIndex("jobs_lease_idx").on("jobs").columns(["status", "lease_until"]).execute();
}

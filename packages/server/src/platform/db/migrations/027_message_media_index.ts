// Which messages name a stored attachment (by its SHA-256): the orphan sweep asks it of every file
// older than its grace, and an erasure of every file it would remove. Partial: only messages with a
// stored attachment are in it, so a text message (the hot path) updates no more indexes than before.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex("messages_media_sha256_idx")
    .on("messages")
    .column("media_sha256")
    .where(sql.ref("media_sha256"), "is not", null)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("messages_media_sha256_idx").execute();
}

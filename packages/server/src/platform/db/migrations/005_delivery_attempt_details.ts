// Each delivery attempt records where it went, which attempt it was, what started it and, when it
// failed, when the next one is due; jobs name the row they act on, so a message's delivery jobs are
// found by id (resend) instead of by matching payload text.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("delivery_attempts").addColumn("url", "text").execute();
  await db.schema.alterTable("delivery_attempts").addColumn("attempt_number", "integer").execute();
  await db.schema.alterTable("delivery_attempts").addColumn("trigger", "text").execute();
  await db.schema.alterTable("delivery_attempts").addColumn("next_attempt_at", "bigint").execute();
  await db.schema.alterTable("jobs").addColumn("subject_id", "text").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("jobs").dropColumn("subject_id").execute();
  for (const column of ["next_attempt_at", "trigger", "attempt_number", "url"]) {
    await db.schema.alterTable("delivery_attempts").dropColumn(column).execute();
  }
}

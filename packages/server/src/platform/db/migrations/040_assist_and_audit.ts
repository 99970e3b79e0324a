// Agency assist (issue 38): an agency owner's or admin's signed-in session working inside one client
// for a short time (a grant on that session), the client's switch to refuse it, and the audit log of
// what was changed while assisting, which the client reads.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("assist_grants")
    // One client at a time per agency session: switching replaces the row.
    .addColumn("session_id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("agency_account_id", "text", (c) => c.notNull())
    .addColumn("agency_user_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("assist_grants_account_idx").on("assist_grants").column("account_id").execute();
  await db.schema
    .createTable("assist_settings")
    .addColumn("account_id", "text", (c) => c.primaryKey())
    .addColumn("allowed", "integer", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("audit_log")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("actor_user_id", "text", (c) => c.notNull())
    .addColumn("actor_email", "text", (c) => c.notNull())
    .addColumn("actor_name", "text")
    .addColumn("agency_account_id", "text", (c) => c.notNull())
    .addColumn("agency_name", "text", (c) => c.notNull())
    .addColumn("method", "text", (c) => c.notNull())
    .addColumn("route", "text", (c) => c.notNull())
    .addColumn("object_id", "text")
    .addColumn("status", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("audit_log_account_idx")
    .on("audit_log")
    .columns(["account_id", "created_at", "id"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("audit_log").execute();
  await db.schema.dropTable("assist_settings").execute();
  await db.schema.dropTable("assist_grants").execute();
}

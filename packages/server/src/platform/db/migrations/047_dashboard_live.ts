// The dashboard's live days (today and yesterday) counted ahead by the hourly job, one row per
// account: the figures of the messages written before `as_of`, so the first dashboard of the hour
// counts only what came since instead of a day and a half of messages while a person waits.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("dashboard_live")
    .addColumn("account_id", "text", (c) => c.primaryKey())
    .addColumn("from_day", "integer", (c) => c.notNull())
    .addColumn("to_day", "integer", (c) => c.notNull())
    .addColumn("figures", "text", (c) => c.notNull())
    .addColumn("as_of", "bigint", (c) => c.notNull())
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("dashboard_live").execute();
}

// The dashboard (web app part 2): whether a bot reply answered or fell back, an index for an account's
// messages by time, and a cache of finished days' figures (a daily rollup computed once per day).
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("messages").addColumn("bot_outcome", "text").execute();
  await db.schema
    .createIndex("messages_account_time_idx")
    .on("messages")
    .columns(["account_id", "created_at"])
    .execute();
  await db.schema
    .createTable("dashboard_days")
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("day", "integer", (c) => c.notNull())
    .addColumn("figures", "text", (c) => c.notNull())
    .addColumn("computed_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("dashboard_days_pk", ["account_id", "day"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("dashboard_days").execute();
  await db.schema.dropIndex("messages_account_time_idx").execute();
  await db.schema.alterTable("messages").dropColumn("bot_outcome").execute();
}

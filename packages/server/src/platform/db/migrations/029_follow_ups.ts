// Follow-ups (issue 35): a campaign's steps (JSON), and an index that counts a campaign's follow-up
// messages for its stats without reading the account's other messages.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("campaigns")
    .addColumn("follow_ups", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
  await db.schema
    .createIndex("messages_follow_up_idx")
    .on("messages")
    .columns(["account_id", "campaign_id", "id"])
    .where(sql.ref("bot_outcome"), "=", sql.lit("follow_up"))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("messages_follow_up_idx").execute();
  await db.schema.alterTable("campaigns").dropColumn("follow_ups").execute();
}

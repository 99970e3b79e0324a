// Unread per person (issue 33): when each teammate last opened a conversation in the app. A teammate
// without a row falls back to the conversation's account-wide last_read_at.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("conversation_reads")
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("conversation_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("last_read_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("conversation_reads_pk", ["conversation_id", "user_id"])
    .execute();
  // A removed teammate's rows go by user.
  await db.schema
    .createIndex("conversation_reads_user_idx")
    .on("conversation_reads")
    .columns(["account_id", "user_id"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("conversation_reads").execute();
}

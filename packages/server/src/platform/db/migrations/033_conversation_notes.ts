// Private notes (issues 33 and 35): a team's notes in a conversation, with the teammates they mention.
// Never messages: nothing reads them but the inbox.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("conversation_notes")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("conversation_id", "text", (c) => c.notNull())
    .addColumn("author_user_id", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("mentions", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("conversation_notes_conversation_idx")
    .on("conversation_notes")
    .columns(["account_id", "conversation_id", "id"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("conversation_notes").execute();
}

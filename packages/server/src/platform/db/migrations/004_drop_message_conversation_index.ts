// messages_conversation_idx is dropped: a contact has exactly one conversation (conversations_contact_uq),
// so a conversation's messages are its contact's, which messages_contact_idx (account_id, contact_id, id)
// already orders. Every stored message (the hot path) now updates one index fewer.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("messages_conversation_idx").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex("messages_conversation_idx")
    .on("messages")
    .columns(["conversation_id", "id"])
    .execute();
}

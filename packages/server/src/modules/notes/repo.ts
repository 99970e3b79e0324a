// Private notes' rows (conversation_notes): the team's notes in a conversation. Account id first in
// every function; another account's conversation has none.
import type { Kysely, Selectable, Transaction } from "kysely";
import type { ConversationNotesTable, Database } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export type NoteRow = Selectable<ConversationNotesTable>;

export async function insertNote(db: Q, row: NoteRow): Promise<void> {
  await db.insertInto("conversation_notes").values(row).execute();
}

/** The conversation's last `limit` notes, oldest first. */
export async function lastNotesOf(
  db: Q,
  accountId: string,
  conversationId: string,
  limit: number,
): Promise<NoteRow[]> {
  const rows = await db
    .selectFrom("conversation_notes")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("conversation_id", "=", conversationId)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.reverse();
}

/** Erasure: the notes of these conversations go with them. */
export async function deleteNotesOfConversations(
  db: Q,
  accountId: string,
  conversationIds: string[],
): Promise<void> {
  if (conversationIds.length === 0) return;
  await db
    .deleteFrom("conversation_notes")
    .where("account_id", "=", accountId)
    .where("conversation_id", "in", conversationIds)
    .execute();
}

// Exports read other modules' tables and write none: pages by id (keyset), so a million rows stream
// through a few hundred kilobytes. Account id first in every function.
import type { Kysely, Transaction } from "kysely";
import type { ContactRow, ConversationRow, Database, MessageRow } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export async function contactsAfter(
  db: Q,
  accountId: string,
  afterId: string | null,
  limit: number,
): Promise<ContactRow[]> {
  let q = db.selectFrom("contacts").selectAll().where("account_id", "=", accountId);
  if (afterId !== null) q = q.where("id", ">", afterId);
  return q.orderBy("id").limit(limit).execute();
}

/** The lists each of `contactIds` belongs to, by contact id (ordered by list name). */
export async function listsOfContacts(
  db: Q,
  accountId: string,
  contactIds: string[],
): Promise<Map<string, Array<{ id: string; name: string }>>> {
  const out = new Map<string, Array<{ id: string; name: string }>>();
  if (contactIds.length === 0) return out;
  const rows = await db
    .selectFrom("list_members as m")
    .innerJoin("lists as l", (j) =>
      j.onRef("l.id", "=", "m.list_id").onRef("l.account_id", "=", "m.account_id"),
    )
    .select(["m.contact_id", "l.id", "l.name"])
    .where("m.account_id", "=", accountId)
    .where("m.contact_id", "in", contactIds)
    .orderBy("l.name")
    .execute();
  for (const r of rows) {
    const lists = out.get(r.contact_id) ?? [];
    lists.push({ id: r.id, name: r.name });
    out.set(r.contact_id, lists);
  }
  return out;
}

export type ExportConversationRow = ConversationRow & {
  contact_first_name: string | null;
  contact_last_name: string | null;
  contact_phone: string | null;
  contact_email: string | null;
  contact_external_id: string | null;
};

export async function conversationsAfter(
  db: Q,
  accountId: string,
  afterId: string | null,
  limit: number,
): Promise<ExportConversationRow[]> {
  let q = db
    .selectFrom("conversations as c")
    .innerJoin("contacts as ct", (j) =>
      j.onRef("ct.id", "=", "c.contact_id").onRef("ct.account_id", "=", "c.account_id"),
    )
    .selectAll("c")
    .select([
      "ct.first_name as contact_first_name",
      "ct.last_name as contact_last_name",
      "ct.phone as contact_phone",
      "ct.email as contact_email",
      "ct.external_id as contact_external_id",
    ])
    .where("c.account_id", "=", accountId);
  if (afterId !== null) q = q.where("c.id", ">", afterId);
  return q.orderBy("c.id").limit(limit).execute();
}

/**
 * The messages of `conversations` after `after` (by conversation, then oldest first), at most `limit`.
 * Filtered by contact too, so the (account_id, contact_id, id) index narrows the read.
 */
export async function messagesOfConversations(
  db: Q,
  accountId: string,
  conversations: ReadonlyArray<Pick<ConversationRow, "id" | "contact_id">>,
  after: { conversationId: string; id: string } | null,
  limit: number,
): Promise<MessageRow[]> {
  if (conversations.length === 0) return [];
  let q = db
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("contact_id", "in", [...new Set(conversations.map((c) => c.contact_id))])
    .where(
      "conversation_id",
      "in",
      conversations.map((c) => c.id),
    );
  if (after) {
    const { conversationId, id } = after;
    q = q.where((eb) =>
      eb.or([
        eb("conversation_id", ">", conversationId),
        eb.and([eb("conversation_id", "=", conversationId), eb("id", ">", id)]),
      ]),
    );
  }
  return q.orderBy("conversation_id").orderBy("id").limit(limit).execute();
}

// Lists SQL. Every function takes the account id first; another account's list is never seen.
import { type Kysely, sql, type Transaction } from "kysely";
import { chunks } from "../../platform/db/chunks.ts";
import type { ContactRow, Database, ListRow } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export type ListWithCount = ListRow & { member_count: number };

export async function insertList(db: Q, list: ListRow): Promise<void> {
  await db.insertInto("lists").values(list).execute();
}

/** Member count as a correlated subquery: one statement per list or page, served by the PK index. */
const memberCount = sql<number>`(select count(*) from list_members m where m.list_id = lists.id)`;

export async function findListById(
  db: Q,
  accountId: string,
  listId: string,
): Promise<ListWithCount | undefined> {
  const row = await db
    .selectFrom("lists")
    .selectAll()
    .select(memberCount.as("member_count"))
    .where("account_id", "=", accountId)
    .where("id", "=", listId)
    .executeTakeFirst();
  return row && { ...row, member_count: Number(row.member_count) };
}

export async function listExists(db: Q, accountId: string, listId: string): Promise<boolean> {
  const row = await db
    .selectFrom("lists")
    .select("id")
    .where("account_id", "=", accountId)
    .where("id", "=", listId)
    .executeTakeFirst();
  return row !== undefined;
}

/** `limit` rows after `afterId` in id (creation) order; the caller asks for one more than it shows. */
export async function listLists(
  db: Q,
  accountId: string,
  afterId: string | null,
  limit: number,
): Promise<ListWithCount[]> {
  let q = db
    .selectFrom("lists")
    .selectAll()
    .select(memberCount.as("member_count"))
    .where("account_id", "=", accountId);
  if (afterId !== null) q = q.where("id", ">", afterId);
  const rows = await q.orderBy("id", "asc").limit(limit).execute();
  return rows.map((r) => ({ ...r, member_count: Number(r.member_count) }));
}

/** True when the membership was written; false when it already existed (the primary key decides). */
export async function addMember(
  db: Q,
  accountId: string,
  listId: string,
  contactId: string,
): Promise<boolean> {
  const result = await db
    .insertInto("list_members")
    .values({ list_id: listId, contact_id: contactId, account_id: accountId, created_at: Date.now() })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Adds many contacts to a list in few statements; members already there are left as they are. */
export async function addMembers(
  db: Q,
  accountId: string,
  listId: string,
  contactIds: string[],
): Promise<void> {
  const now = Date.now();
  for (const part of chunks([...new Set(contactIds)], 500)) {
    await db
      .insertInto("list_members")
      .values(
        part.map((contactId) => ({
          list_id: listId,
          contact_id: contactId,
          account_id: accountId,
          created_at: now,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

/** Of these contacts, the ones already on the list. */
export async function membersAmong(
  db: Q,
  accountId: string,
  listId: string,
  contactIds: string[],
): Promise<Set<string>> {
  if (contactIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("list_members")
    .select("contact_id")
    .where("account_id", "=", accountId)
    .where("list_id", "=", listId)
    .where("contact_id", "in", contactIds)
    .execute();
  return new Set(rows.map((r) => r.contact_id));
}

export async function removeMember(
  db: Q,
  accountId: string,
  listId: string,
  contactId: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom("list_members")
    .where("account_id", "=", accountId)
    .where("list_id", "=", listId)
    .where("contact_id", "=", contactId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** One page of a list's member contacts in contact id order: one query, no per-member look-ups. */
export async function listMembers(
  db: Q,
  accountId: string,
  listId: string,
  afterContactId: string | null,
  limit: number,
): Promise<ContactRow[]> {
  let q = db
    .selectFrom("list_members")
    .innerJoin("contacts", "contacts.id", "list_members.contact_id")
    .selectAll("contacts")
    .where("list_members.account_id", "=", accountId)
    .where("list_members.list_id", "=", listId)
    .where("contacts.account_id", "=", accountId);
  if (afterContactId !== null) q = q.where("list_members.contact_id", ">", afterContactId);
  return q.orderBy("list_members.contact_id", "asc").limit(limit).execute();
}

/** Erasure: the contact leaves every list. */
export async function removeContactFromAllLists(db: Q, accountId: string, contactId: string): Promise<void> {
  await db
    .deleteFrom("list_members")
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    .execute();
}

export async function renameList(
  db: Q,
  accountId: string,
  listId: string,
  name: string,
  at: number,
): Promise<boolean> {
  const result = await db
    .updateTable("lists")
    .set({ name, updated_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", listId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A list and its memberships (the contacts stay). */
export async function deleteList(db: Q, accountId: string, listId: string): Promise<boolean> {
  await db
    .deleteFrom("list_members")
    .where("account_id", "=", accountId)
    .where("list_id", "=", listId)
    .execute();
  const result = await db
    .deleteFrom("lists")
    .where("account_id", "=", accountId)
    .where("id", "=", listId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The lists a contact is on (id and name), by list id. */
export async function listsOfContact(
  db: Q,
  accountId: string,
  contactId: string,
): Promise<Array<{ id: string; name: string }>> {
  return db
    .selectFrom("list_members as m")
    .innerJoin("lists as l", (j) =>
      j.onRef("l.id", "=", "m.list_id").onRef("l.account_id", "=", "m.account_id"),
    )
    .select(["l.id", "l.name"])
    .where("m.account_id", "=", accountId)
    .where("m.contact_id", "=", contactId)
    .orderBy("l.id")
    .execute();
}

// Canned replies' rows (canned_replies). Account id first in every function; another account's row is
// never seen.
import type { Kysely, Selectable, Transaction, Updateable } from "kysely";
import type { CannedRepliesTable, Database } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export type CannedReplyRow = Selectable<CannedRepliesTable>;

export async function insertCannedReply(db: Q, row: CannedReplyRow): Promise<void> {
  await db.insertInto("canned_replies").values(row).execute();
}

export async function findCannedReply(
  db: Q,
  accountId: string,
  id: string,
): Promise<CannedReplyRow | undefined> {
  return db
    .selectFrom("canned_replies")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** The reply using this shortcut in the account, if any. */
export async function findByShortcut(
  db: Q,
  accountId: string,
  shortcut: string,
): Promise<CannedReplyRow | undefined> {
  return db
    .selectFrom("canned_replies")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("shortcut", "=", shortcut)
    .executeTakeFirst();
}

/** `limit` rows after `afterId` in id (creation) order; the caller asks for one more than it shows. */
export async function pageCannedReplies(
  db: Q,
  accountId: string,
  afterId: string | null,
  limit: number,
): Promise<CannedReplyRow[]> {
  let q = db.selectFrom("canned_replies").selectAll().where("account_id", "=", accountId);
  if (afterId !== null) q = q.where("id", ">", afterId);
  return q.orderBy("id", "asc").limit(limit).execute();
}

/** The account's first `limit` replies in shortcut order (the reply box's list). */
export async function cannedRepliesByShortcut(
  db: Q,
  accountId: string,
  limit: number,
): Promise<CannedReplyRow[]> {
  return db
    .selectFrom("canned_replies")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("shortcut", "asc")
    .limit(limit)
    .execute();
}

/** True when a row of this account was changed. */
export async function updateCannedReply(
  db: Q,
  accountId: string,
  id: string,
  changes: Updateable<CannedRepliesTable>,
): Promise<boolean> {
  const result = await db
    .updateTable("canned_replies")
    .set(changes)
    .where("account_id", "=", accountId)
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** True when a row of this account was deleted. */
export async function deleteCannedReply(db: Q, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom("canned_replies")
    .where("account_id", "=", accountId)
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

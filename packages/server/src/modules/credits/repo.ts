// Credits SQL: an agency's sub-accounts, credit history pages and stored idempotent answers.
// Every function takes the calling account id first; another agency's sub-account is never seen.
import { type Kysely, sql, type Transaction } from "kysely";
import type { AccountRow, CreditTransactionRow, Database } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export async function findSubaccountById(
  db: Q,
  agencyId: string,
  subaccountId: string,
): Promise<AccountRow | undefined> {
  return db
    .selectFrom("accounts")
    .selectAll()
    .where("id", "=", subaccountId)
    .where("parent_account_id", "=", agencyId)
    .where("kind", "=", "subaccount")
    .executeTakeFirst();
}

export async function findSubaccountByEmail(
  db: Q,
  agencyId: string,
  email: string,
): Promise<AccountRow | undefined> {
  return db
    .selectFrom("accounts")
    .selectAll()
    .where("parent_account_id", "=", agencyId)
    .where("email", "=", email)
    .where("kind", "=", "subaccount")
    .executeTakeFirst();
}

/** Oldest first (creation order), `limit + 1` rows so the caller can tell whether more exist. */
export async function listSubaccounts(
  db: Q,
  agencyId: string,
  page: { after: string | null; limit: number },
): Promise<AccountRow[]> {
  let q = db
    .selectFrom("accounts")
    .selectAll()
    .where("parent_account_id", "=", agencyId)
    .where("kind", "=", "subaccount");
  if (page.after) q = q.where("id", ">", page.after);
  return q
    .orderBy("id", "asc")
    .limit(page.limit + 1)
    .execute();
}

/** Newest first, `limit + 1` rows. */
export async function listTransactions(
  db: Q,
  accountId: string,
  page: { before: string | null; limit: number },
): Promise<CreditTransactionRow[]> {
  let q = db.selectFrom("credit_transactions").selectAll().where("account_id", "=", accountId);
  if (page.before) q = q.where("id", "<", page.before);
  return q
    .orderBy("id", "desc")
    .limit(page.limit + 1)
    .execute();
}

// ---- Idempotency keys -------------------------------------------------------------------------

export interface StoredAnswer {
  request_hash: string;
  status_code: number;
  response: string;
}

/** Drops this one key when it is older than the cutoff (only that row: no lock on other keys). */
export async function deleteExpiredKey(
  db: Q,
  accountId: string,
  scope: string,
  key: string,
  cutoff: number,
): Promise<void> {
  await db
    .deleteFrom("idempotency_keys")
    .where("account_id", "=", accountId)
    .where("scope", "=", scope)
    .where("key", "=", key)
    .where("created_at", "<", cutoff)
    .execute();
}

/**
 * Claims a key for this request. The primary key decides between concurrent requests: the loser's
 * insert waits for the winner's transaction (PostgreSQL) and then inserts nothing; ON CONFLICT DO
 * NOTHING keeps the loser's transaction usable, so it can read the winner's answer.
 */
export async function claimKey(
  db: Q,
  accountId: string,
  scope: string,
  key: string,
  requestHash: string,
  now: number,
): Promise<boolean> {
  const row = await db
    .insertInto("idempotency_keys")
    .values({
      account_id: accountId,
      scope,
      key,
      request_hash: requestHash,
      status_code: 0,
      response: "",
      created_at: now,
    })
    .onConflict((oc) => oc.columns(["account_id", "scope", "key"]).doNothing())
    .returning("key")
    .executeTakeFirst();
  return row !== undefined;
}

export async function findKey(
  db: Q,
  accountId: string,
  scope: string,
  key: string,
): Promise<StoredAnswer | undefined> {
  return db
    .selectFrom("idempotency_keys")
    .select(["request_hash", "status_code", "response"])
    .where("account_id", "=", accountId)
    .where("scope", "=", scope)
    .where("key", "=", key)
    .executeTakeFirst();
}

export async function storeAnswer(
  db: Q,
  accountId: string,
  scope: string,
  key: string,
  statusCode: number,
  response: string,
): Promise<void> {
  await db
    .updateTable("idempotency_keys")
    .set({ status_code: statusCode, response })
    .where("account_id", "=", accountId)
    .where("scope", "=", scope)
    .where("key", "=", key)
    .execute();
}

/** Housekeeping: the account's keys past their lifetime. */
export async function purgeExpiredKeys(db: Q, accountId: string, cutoff: number): Promise<void> {
  await db
    .deleteFrom("idempotency_keys")
    .where("account_id", "=", accountId)
    .where("created_at", "<", cutoff)
    .execute();
}

/** Credits the bot's replies used, by UTC day, in hundredths (positive). */
export async function botSpendByDay(
  db: Q,
  accountId: string,
  from: number,
  to: number,
): Promise<Array<{ day: number; spent: number }>> {
  const rows = await db
    .selectFrom("credit_transactions")
    .select([
      sql<number>`cast(created_at / 86400000 as integer)`.as("day"),
      sql<number>`sum(-amount)`.as("spent"),
    ])
    .where("account_id", "=", accountId)
    .where("kind", "=", "bot_reply")
    .where("created_at", ">=", from)
    .where("created_at", "<", to)
    .groupBy(sql`cast(created_at / 86400000 as integer)`)
    .execute();
  return rows.map((r) => ({ day: Number(r.day), spent: Number(r.spent) }));
}

// Accounts, users and API keys, including the balance columns (changed only through the credits
// module's ledger, which calls the functions below). Functions that act on one tenant take the
// account id first.
import { type Kysely, sql, type Transaction } from "kysely";
import type { AccountRow, AccountUpdate, Database, NewAccount } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export async function insertAccount(db: Q, row: NewAccount): Promise<void> {
  await db.insertInto("accounts").values(row).execute();
}

export async function findAccountById(db: Q, accountId: string): Promise<AccountRow | undefined> {
  return db.selectFrom("accounts").selectAll().where("id", "=", accountId).executeTakeFirst();
}

/**
 * Operator look-up (CLI). Top-level accounts have one address each, and a sub-account's address is
 * unique within its agency, but one address may be used by several tenants (a few rows at most).
 */
export async function findAccountsByEmail(db: Q, email: string): Promise<AccountRow[]> {
  return db
    .selectFrom("accounts")
    .selectAll()
    .where("email", "=", email.toLowerCase())
    .orderBy("id")
    .limit(20)
    .execute();
}

export async function updateAccount(db: Q, accountId: string, patch: AccountUpdate): Promise<void> {
  await db
    .updateTable("accounts")
    .set({ ...patch, updated_at: Date.now() })
    .where("id", "=", accountId)
    .execute();
}

export async function insertUser(
  db: Q,
  accountId: string,
  user: {
    id: string;
    email: string;
    passwordHash: string;
    role: "owner" | "admin" | "agent";
    name?: string | null;
  },
): Promise<void> {
  await db
    .insertInto("users")
    .values({
      id: user.id,
      account_id: accountId,
      email: user.email,
      password_hash: user.passwordHash,
      role: user.role,
      name: user.name ?? null,
      created_at: Date.now(),
    })
    .execute();
}

export async function findOwnerUserId(db: Q, accountId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("users")
    .select("id")
    .where("account_id", "=", accountId)
    .where("role", "=", "owner")
    .orderBy("id")
    .executeTakeFirst();
  return row?.id;
}

/** Replaces the account's key: the old hash is deleted in the same statement set, so it stops at once. */
export async function replaceApiKey(
  db: Q,
  accountId: string,
  key: { id: string; hash: string; prefix: string },
): Promise<void> {
  await db.deleteFrom("api_keys").where("account_id", "=", accountId).execute();
  await db
    .insertInto("api_keys")
    .values({
      id: key.id,
      account_id: accountId,
      key_hash: key.hash,
      key_prefix: key.prefix,
      created_at: Date.now(),
    })
    .execute();
}

export async function findAccountByKeyHash(
  db: Q,
  keyHash: string,
): Promise<{ keyId: string; keyHash: string; account: AccountRow } | undefined> {
  const row = await db
    .selectFrom("api_keys")
    .innerJoin("accounts", "accounts.id", "api_keys.account_id")
    .selectAll("accounts")
    .select(["api_keys.id as key_id", "api_keys.key_hash as key_hash"])
    .where("api_keys.key_hash", "=", keyHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { key_id, key_hash, ...account } = row;
  return { keyId: key_id, keyHash: key_hash, account };
}

// ---- Balance and auto-recharge (the credits ledger is the only caller) --------------------------

/** Adds hundredths; re-arms auto-recharge once the balance is back at or above the threshold. */
export async function addCredits(db: Q, accountId: string, amount: number): Promise<number> {
  const row = await db
    .updateTable("accounts")
    .set({
      credits: sql`credits + ${amount}`,
      auto_recharge_armed: sql`case when auto_recharge_threshold is not null and credits + ${amount} >= auto_recharge_threshold then 1 else auto_recharge_armed end`,
      updated_at: Date.now(),
    })
    .where("id", "=", accountId)
    .returning(["credits"])
    .executeTakeFirstOrThrow();
  return row.credits;
}

/** Takes hundredths if the balance covers them: the new balance, or null (nothing written). */
export async function takeCredits(db: Q, accountId: string, amount: number): Promise<number | null> {
  const row = await db
    .updateTable("accounts")
    .set({ credits: sql`credits - ${amount}`, updated_at: Date.now() })
    .where("id", "=", accountId)
    .where("credits", ">=", amount)
    .returning(["credits"])
    .executeTakeFirst();
  return row ? row.credits : null;
}

/**
 * Disarms a sub-account's auto-recharge when its balance is below the threshold, with a conditional
 * UPDATE, so of two concurrent debits only one gets the row back (and fires the event).
 */
export async function disarmAutoRechargeIfBelow(db: Q, accountId: string) {
  return db
    .updateTable("accounts")
    .set({ auto_recharge_armed: 0 })
    .where("id", "=", accountId)
    .where("kind", "=", "subaccount")
    .where("auto_recharge_armed", "=", 1)
    .where("auto_recharge_threshold", "is not", null)
    .where("auto_recharge_amount", "is not", null)
    .where(sql<boolean>`credits < auto_recharge_threshold`)
    .returning([
      "id",
      "email",
      "credits",
      "auto_recharge_threshold",
      "auto_recharge_amount",
      "parent_account_id",
    ])
    .executeTakeFirst();
}

/** An update of one sub-account of the agency (never another agency's). */
function subaccountUpdate(db: Q, agencyId: string, subaccountId: string) {
  return db
    .updateTable("accounts")
    .where("id", "=", subaccountId)
    .where("parent_account_id", "=", agencyId)
    .where("kind", "=", "subaccount");
}

/**
 * Sets a sub-account's auto-recharge. Turning it on arms it; changing it re-arms it only when the
 * balance is at or above the new threshold, so an event already sent for this dip is not repeated.
 */
export function setAutoRecharge(
  db: Q,
  agencyId: string,
  subaccountId: string,
  threshold: number,
  rechargeAmount: number,
): Promise<boolean> {
  const update = subaccountUpdate(db, agencyId, subaccountId).set({
    // Right-hand sides see the row before this update (SQL semantics on both databases).
    auto_recharge_armed: sql`case when auto_recharge_threshold is null or credits >= ${threshold} then 1 else auto_recharge_armed end`,
    auto_recharge_threshold: threshold,
    auto_recharge_amount: rechargeAmount,
    updated_at: Date.now(),
  });
  return update.executeTakeFirst().then((r) => Number(r.numUpdatedRows) > 0);
}

export function clearAutoRecharge(db: Q, agencyId: string, subaccountId: string): Promise<boolean> {
  const update = subaccountUpdate(db, agencyId, subaccountId).set({
    auto_recharge_threshold: null,
    auto_recharge_amount: null,
    auto_recharge_armed: 1,
    updated_at: Date.now(),
  });
  return update.executeTakeFirst().then((r) => Number(r.numUpdatedRows) > 0);
}

/**
 * Suspends (a time) or resumes (null) a sub-account of the agency. Suspending an already suspended one
 * keeps its first time. Writing accounts moves the key cache's generation, so no cached key outlives it.
 */
export function setSuspended(
  db: Q,
  agencyId: string,
  subaccountId: string,
  at: number | null,
): Promise<boolean> {
  const now = Date.now();
  const update = subaccountUpdate(db, agencyId, subaccountId).set({
    suspended_at: at === null ? null : sql<number>`coalesce(suspended_at, ${at})`,
    updated_at: now,
  });
  return update.executeTakeFirst().then((r) => Number(r.numUpdatedRows) > 0);
}

export function renameSubaccount(
  db: Q,
  agencyId: string,
  subaccountId: string,
  name: string,
): Promise<boolean> {
  const update = subaccountUpdate(db, agencyId, subaccountId).set({ name, updated_at: Date.now() });
  return update.executeTakeFirst().then((r) => Number(r.numUpdatedRows) > 0);
}

// Accounts, users and API keys. Functions that act on one tenant take the account id first.
import type { Kysely, Transaction } from "kysely";
import type { AccountRow, AccountUpdate, Database, NewAccount } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export async function insertAccount(db: Q, row: NewAccount): Promise<void> {
  await db.insertInto("accounts").values(row).execute();
}

export async function findAccountById(db: Q, accountId: string): Promise<AccountRow | undefined> {
  return db.selectFrom("accounts").selectAll().where("id", "=", accountId).executeTakeFirst();
}

/** Operator look-up (CLI): e-mails are unique across accounts. */
export async function findAccountByEmail(db: Q, email: string): Promise<AccountRow | undefined> {
  return db.selectFrom("accounts").selectAll().where("email", "=", email.toLowerCase()).executeTakeFirst();
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
  user: { id: string; email: string; passwordHash: string; role: "owner" | "member" },
): Promise<void> {
  await db
    .insertInto("users")
    .values({
      id: user.id,
      account_id: accountId,
      email: user.email,
      password_hash: user.passwordHash,
      role: user.role,
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

// E-mail addresses per tenant (hardening): an agency may create a sub-account for an address that
// another tenant also uses, so the answer never tells whether the address exists elsewhere. The
// global unique constraint on accounts.email becomes two: top-level accounts (standard, agency) stay
// unique among themselves, and a sub-account's address is unique within its agency. users.email stays
// unique on the install (sign-in is by e-mail); a clash is settled when the invite is accepted.
// Invites may now carry the role `owner` (a sub-account's owner joins through a link).
import { type Kysely, PostgresAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

function isPostgres(db: AnyDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * SQLite cannot drop an inline UNIQUE: the table is rebuilt (SQLite's documented procedure, foreign
 * keys off meanwhile), from its own stored definition so columns added by later migrations are kept.
 */
async function rebuildSqliteAccounts(db: AnyDb, from: RegExp, to: string): Promise<void> {
  const table = await sql<{ sql: string }>`
    select sql from sqlite_master where type = 'table' and name = 'accounts'`.execute(db);
  const definition = table.rows[0]?.sql ?? "";
  if (!from.test(definition)) throw new Error(`unexpected accounts definition: ${definition}`);
  const indexes = await sql<{ sql: string }>`
    select sql from sqlite_master
    where type = 'index' and tbl_name = 'accounts' and sql is not null`.execute(db);
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await sql.raw(definition.replace(from, to).replace(/"accounts"/, '"accounts_rebuilt"')).execute(trx);
      await sql`insert into accounts_rebuilt select * from accounts`.execute(trx);
      await sql`drop table accounts`.execute(trx);
      await sql`alter table accounts_rebuilt rename to accounts`.execute(trx);
      for (const index of indexes.rows) await sql.raw(index.sql).execute(trx);
      const broken = await sql`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) throw new Error("foreign keys broken by the accounts rebuild");
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

export async function up(db: AnyDb): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table accounts drop constraint accounts_email_key`.execute(db);
  } else {
    await rebuildSqliteAccounts(db, /"email" text not null unique/, '"email" text not null');
  }
  await db.schema.dropIndex("accounts_parent_idx").execute();
  // A sub-account's address, once per agency (also the grant's look-up by e-mail).
  await db.schema
    .createIndex("accounts_parent_email_idx")
    .on("accounts")
    .columns(["parent_account_id", "email"])
    .unique()
    .execute();
  // Top-level accounts: one per address, as before.
  await db.schema
    .createIndex("accounts_top_email_idx")
    .on("accounts")
    .column("email")
    .unique()
    .where(sql.ref("parent_account_id"), "is", null)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.deleteFrom("invites").where("role", "=", "owner").execute();
  await db.schema.dropIndex("accounts_top_email_idx").execute();
  await db.schema.dropIndex("accounts_parent_email_idx").execute();
  await db.schema
    .createIndex("accounts_parent_idx")
    .on("accounts")
    .columns(["parent_account_id", "email"])
    .execute();
  if (isPostgres(db)) {
    await sql`alter table accounts add constraint accounts_email_key unique (email)`.execute(db);
  } else {
    await rebuildSqliteAccounts(db, /"email" text not null(?! unique)/, '"email" text not null unique');
  }
}

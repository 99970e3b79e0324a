// PostgreSQL only: every committed change to accounts or api_keys is announced on a channel, so each
// API node drops cached account data at once (see modules/accounts/key-cache.ts). SQLite needs
// nothing: other writers are seen through PRAGMA data_version.
import { type Kysely, PostgresAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

function isPostgres(db: AnyDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export async function up(db: AnyDb): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`
    create or replace function parley_notify_accounts() returns trigger language plpgsql as $$
    begin
      perform pg_notify('parley_accounts', '');
      return null;
    end $$`.execute(db);
  for (const table of ["accounts", "api_keys"]) {
    await sql`
      create trigger ${sql.raw(`${table}_notify`)} after insert or update or delete on ${sql.table(table)}
      for each statement execute function parley_notify_accounts()`.execute(db);
  }
}

export async function down(db: AnyDb): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop trigger if exists accounts_notify on accounts`.execute(db);
  await sql`drop trigger if exists api_keys_notify on api_keys`.execute(db);
  await sql`drop function if exists parley_notify_accounts()`.execute(db);
}

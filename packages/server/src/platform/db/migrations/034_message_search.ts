// Full-text search over message text (issue 33): the inbox's `q` finds a word among millions of
// messages without scanning them. Backfills the messages already stored.
// - SQLite: a contentless FTS5 table (the text stays in messages only) keyed by the message's rowid,
//   kept in step by triggers, so every write path (the repo, raw ingest, erasure) is covered. Its
//   `account` column holds the account id as one token, so a search reads only that account's hits.
// - PostgreSQL: a GIN index on the expression to_tsvector('simple', body); 'simple' because messages
//   come in any language (no stemming, like FTS5's unicode61). Accents count on both (PostgreSQL
//   would need the unaccent extension to ignore them).
import { type Kysely, PostgresAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

function isPostgres(db: AnyDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export async function up(db: AnyDb): Promise<void> {
  if (isPostgres(db)) {
    await sql`create index messages_search_idx on messages using gin (to_tsvector('simple', body))`.execute(
      db,
    );
    return;
  }
  await sql`create virtual table message_search using fts5(
    body, account, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0')`.execute(db);
  await sql`create trigger message_search_insert after insert on messages begin
    insert into message_search (rowid, body, account) values (new.rowid, new.body, replace(new.account_id, '_', ''));
  end`.execute(db);
  await sql`create trigger message_search_delete after delete on messages begin
    delete from message_search where rowid = old.rowid;
  end`.execute(db);
  await sql`create trigger message_search_update after update of body on messages begin
    delete from message_search where rowid = old.rowid;
    insert into message_search (rowid, body, account) values (new.rowid, new.body, replace(new.account_id, '_', ''));
  end`.execute(db);
  await sql`insert into message_search (rowid, body, account)
    select rowid, body, replace(account_id, '_', '') from messages`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop index messages_search_idx`.execute(db);
    return;
  }
  for (const t of ["message_search_insert", "message_search_delete", "message_search_update"]) {
    await sql`drop trigger ${sql.id(t)}`.execute(db);
  }
  await sql`drop table message_search`.execute(db);
}

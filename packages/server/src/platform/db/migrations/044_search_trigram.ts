// The inbox search's contact match (issue 33) through a trigram index: `q` is a substring of the
// contact's name, phone, e-mail or channel id, which no b-tree serves, so every search read all of the
// account's contacts (most of a search's time at 100,000 contacts). A trigram index finds the
// contacts holding every three-character piece of `q`; the query keeps its exact substring test on
// those few (inbox-repo.ts contactMatches).
// - SQLite: a contentless FTS5 table with the trigram tokenizer (case folded), keyed by the contact's
//   rowid, one column per searched field (a match never spans two fields), kept in step by triggers.
// - PostgreSQL: a pg_trgm GIN index on the fields' text, lower-cased. pg_trgm ships with PostgreSQL
//   and is a trusted extension (PostgreSQL 13+): a user who may create in the database can add it.
//   When it cannot be added (not installed, no right), no index: search works as before, by a scan.
import { type Kysely, PostgresAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

function isPostgres(db: AnyDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Whether pg_trgm is there, or this user can add it (installed, trusted or superuser, CREATE right). */
async function canUseTrigrams(db: AnyDb): Promise<boolean> {
  const { rows } = await sql<{ installed: boolean; creatable: boolean }>`
    select exists (select 1 from pg_extension where extname = 'pg_trgm') as installed,
      exists (select 1 from pg_available_extension_versions v
              where v.name = 'pg_trgm'
                and (v.trusted or (select rolsuper from pg_roles where rolname = current_user))
                and has_database_privilege(current_database(), 'CREATE')) as creatable`.execute(db);
  return Boolean(rows[0]?.installed || rows[0]?.creatable);
}

export async function up(db: AnyDb): Promise<void> {
  if (isPostgres(db)) {
    // GIN queues new entries in a pending list (up to 4 MB by default) that every search reads
    // in full: 24,000 queued messages cost 90-240 ms per search at 5 M messages. A 128 kB list
    // keeps most of the write batching and bounds that read.
    await sql`alter index messages_search_idx set (gin_pending_list_limit = 128)`.execute(db);
    if (!(await canUseTrigrams(db))) return;
    await sql`create extension if not exists pg_trgm`.execute(db);
    // The same expression as contactMatches' pre-filter, so the planner can use it.
    await sql`create index contacts_search_trgm_idx on contacts using gin ((lower(
      coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(phone, '') || ' ' ||
      coalesce(email, '') || ' ' || coalesce(external_id, ''))) gin_trgm_ops)
      with (gin_pending_list_limit = 128)`.execute(db);
    return;
  }
  await sql`create virtual table contact_search using fts5(
    name, phone, email, external_id, content = '', contentless_delete = 1, tokenize = 'trigram')`.execute(db);
  const values = sql.raw(`new.rowid, coalesce(new.first_name, '') || ' ' || coalesce(new.last_name, ''),
      new.phone, new.email, new.external_id`);
  await sql`create trigger contact_search_insert after insert on contacts begin
    insert into contact_search (rowid, name, phone, email, external_id) values (${values});
  end`.execute(db);
  await sql`create trigger contact_search_delete after delete on contacts begin
    delete from contact_search where rowid = old.rowid;
  end`.execute(db);
  await sql`create trigger contact_search_update
    after update of first_name, last_name, phone, email, external_id on contacts begin
    delete from contact_search where rowid = old.rowid;
    insert into contact_search (rowid, name, phone, email, external_id) values (${values});
  end`.execute(db);
  await sql`insert into contact_search (rowid, name, phone, email, external_id)
    select rowid, coalesce(first_name, '') || ' ' || coalesce(last_name, ''), phone, email, external_id
    from contacts`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop index if exists contacts_search_trgm_idx`.execute(db);
    await sql`alter index messages_search_idx reset (gin_pending_list_limit)`.execute(db);
    return;
  }
  for (const t of ["contact_search_insert", "contact_search_delete", "contact_search_update"]) {
    await sql`drop trigger ${sql.id(t)}`.execute(db);
  }
  await sql`drop table contact_search`.execute(db);
}

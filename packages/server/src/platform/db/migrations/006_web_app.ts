// The web app (issue 15): users get a name and the roles owner/admin/agent; browser sessions (token
// stored hashed, so every node sees them), invites (token hashed, 7 days), sign-in failures counted
// in the database (per account and per address, on every node); conversations get a status
// (open/resolved), an assignee and a read mark. The inbox pages by last activity: the recent index
// gains the id as tie-breaker (it replaces conversations_recent_idx, so a message still updates
// the same number of indexes).
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("users").addColumn("name", "text").execute();
  await sql`update users set role = 'agent' where role = 'member'`.execute(db);

  await db.schema
    .createTable("sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("csrf_token", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sessions_user_idx").on("sessions").column("user_id").execute();

  await db.schema
    .createTable("invites")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_by", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("accepted_at", "bigint")
    .execute();
  await db.schema.createIndex("invites_account_idx").on("invites").column("account_id").execute();

  await db.schema
    .createTable("sign_in_failures")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("sign_in_failures_key_idx")
    .on("sign_in_failures")
    .columns(["key", "created_at"])
    .execute();

  await db.schema
    .alterTable("conversations")
    .addColumn("status", "text", (c) => c.notNull().defaultTo("open"))
    .execute();
  await db.schema.alterTable("conversations").addColumn("assignee_id", "text").execute();
  await db.schema
    .alterTable("conversations")
    .addColumn("last_read_at", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.dropIndex("conversations_recent_idx").execute();
  await db.schema
    .createIndex("conversations_inbox_idx")
    .on("conversations")
    .columns(["account_id", "last_message_at", "id"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("conversations_inbox_idx").execute();
  await db.schema
    .createIndex("conversations_recent_idx")
    .on("conversations")
    .columns(["account_id", "last_message_at"])
    .execute();
  for (const column of ["last_read_at", "assignee_id", "status"]) {
    await db.schema.alterTable("conversations").dropColumn(column).execute();
  }
  await db.schema.dropTable("sign_in_failures").execute();
  await db.schema.dropTable("invites").execute();
  await db.schema.dropTable("sessions").execute();
  await sql`update users set role = 'member' where role in ('admin', 'agent')`.execute(db);
  await db.schema.alterTable("users").dropColumn("name").execute();
}

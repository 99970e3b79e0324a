// Notifications (issue 35): each person's in-app notifications (the bell), the preferences (a person's
// own and the account's defaults, with the low-credits threshold), the e-mails waiting to go out as one
// digest per person and kind, and an index that lets the delivery health check read recent attempts.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("notifications")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("link", "text")
    .addColumn("dedupe_key", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("read_at", "bigint")
    .execute();
  await db.schema
    .createIndex("notifications_user_idx")
    .on("notifications")
    .columns(["account_id", "user_id", "id"])
    .execute();
  await db.schema
    .createIndex("notifications_unread_idx")
    .on("notifications")
    .columns(["account_id", "user_id"])
    .where(sql.ref("read_at"), "is", null)
    .execute();
  await db.schema
    .createIndex("notifications_dedupe_idx")
    .on("notifications")
    .columns(["account_id", "dedupe_key", "created_at"])
    .where(sql.ref("dedupe_key"), "is not", null)
    .execute();

  await db.schema
    .createTable("notification_settings")
    .addColumn("account_id", "text", (c) => c.notNull())
    // "account" for the account's defaults, else a user id.
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("prefs", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("credits_low_threshold", "bigint")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("notification_settings_pk", ["account_id", "scope"])
    .execute();

  await db.schema
    .createTable("notification_emails")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("link", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("batch_id", "text")
    .addColumn("batched_at", "bigint")
    .execute();
  await db.schema
    .createIndex("notification_emails_digest_idx")
    .on("notification_emails")
    .columns(["account_id", "user_id", "kind", "batch_id"])
    .execute();

  await db.schema
    .createIndex("delivery_attempts_time_idx")
    .on("delivery_attempts")
    .columns(["attempted_at"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("delivery_attempts_time_idx").execute();
  await db.schema.dropTable("notification_emails").execute();
  await db.schema.dropTable("notification_settings").execute();
  await db.schema.dropTable("notifications").execute();
}

// The initial schema. Portable column types only, so one migration runs on SQLite and PostgreSQL.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("accounts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("parent_account_id", "text", (c) => c.references("accounts.id"))
    .addColumn("credits", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("bot_active", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("webhook_url", "text")
    .addColumn("webhook_secret", "text", (c) => c.notNull())
    .addColumn("events_webhook_url", "text")
    .addColumn("llm_base_url", "text")
    .addColumn("llm_api_key", "text")
    .addColumn("llm_model", "text")
    .addColumn("auto_recharge_threshold", "bigint")
    .addColumn("auto_recharge_amount", "bigint")
    .addColumn("auto_recharge_armed", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("accounts_parent_idx")
    .on("accounts")
    .columns(["parent_account_id", "email"])
    .execute();

  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("users_account_idx").on("users").column("account_id").execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().unique().references("accounts.id"))
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("key_prefix", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("account_id", "text")
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("run_at", "bigint", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("max_attempts", "integer", (c) => c.notNull())
    .addColumn("lease_until", "bigint")
    .addColumn("locked_by", "text")
    .addColumn("last_error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  // Claiming scans due jobs by status then time; running jobs are found again by lease expiry.
  await db.schema.createIndex("jobs_due_idx").on("jobs").columns(["status", "run_at"]).execute();
  await db.schema.createIndex("jobs_lease_idx").on("jobs").columns(["status", "lease_until"]).execute();

  await db.schema
    .createTable("contacts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("first_name", "text")
    .addColumn("last_name", "text")
    .addColumn("phone", "text")
    .addColumn("email", "text")
    .addColumn("external_id", "text")
    .addColumn("bot_active", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  // Unique indexes decide duplicates, so concurrent creates cannot race past a read.
  await db.schema
    .createIndex("contacts_phone_uq")
    .on("contacts")
    .columns(["account_id", "phone"])
    .unique()
    .where(sql.ref("phone"), "is not", null)
    .execute();
  await db.schema
    .createIndex("contacts_external_uq")
    .on("contacts")
    .columns(["account_id", "external_id"])
    .unique()
    .where(sql.ref("external_id"), "is not", null)
    .execute();
  await db.schema
    .createIndex("contacts_email_idx")
    .on("contacts")
    .columns(["account_id", "email", "id"])
    .execute();

  await db.schema
    .createTable("lists")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("lists_account_idx").on("lists").columns(["account_id", "id"]).execute();

  await db.schema
    .createTable("list_members")
    .addColumn("list_id", "text", (c) => c.notNull().references("lists.id"))
    .addColumn("contact_id", "text", (c) => c.notNull().references("contacts.id"))
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("list_members_pk", ["list_id", "contact_id"])
    .execute();

  await db.schema
    .createTable("conversations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("contact_id", "text", (c) => c.notNull().references("contacts.id"))
    .addColumn("channel", "text")
    .addColumn("campaign_id", "text")
    .addColumn("bot_paused", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("human_alert", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("human_alert_reason", "text")
    .addColumn("last_message_at", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("conversations_contact_uq")
    .on("conversations")
    .columns(["account_id", "contact_id"])
    .unique()
    .execute();
  await db.schema
    .createIndex("conversations_recent_idx")
    .on("conversations")
    .columns(["account_id", "last_message_at"])
    .execute();

  await db.schema
    .createTable("messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("conversation_id", "text", (c) => c.notNull())
    .addColumn("contact_id", "text", (c) => c.notNull())
    .addColumn("direction", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("sender", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("channel", "text")
    .addColumn("campaign_id", "text")
    .addColumn("external_id", "text")
    .addColumn("from_id", "text")
    .addColumn("to_id", "text")
    .addColumn("reaction_to_message_id", "text")
    .addColumn("reaction_to_external_id", "text")
    .addColumn("media_url", "text")
    .addColumn("media_content_type", "text")
    .addColumn("media_state", "text")
    .addColumn("media_size", "bigint")
    .addColumn("media_sha256", "text")
    .addColumn("media_reason", "text")
    .addColumn("error", "text")
    .addColumn("user_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("messages_external_uq")
    .on("messages")
    .columns(["account_id", "external_id"])
    .unique()
    .where(sql.ref("external_id"), "is not", null)
    .execute();
  await db.schema
    .createIndex("messages_contact_idx")
    .on("messages")
    .columns(["account_id", "contact_id", "id"])
    .execute();
  await db.schema
    .createIndex("messages_conversation_idx")
    .on("messages")
    .columns(["conversation_id", "id"])
    .execute();

  await db.schema
    .createTable("delivery_attempts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("message_id", "text")
    .addColumn("event_id", "text")
    .addColumn("attempted_at", "bigint", (c) => c.notNull())
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("error_class", "text")
    .addColumn("error_message", "text")
    .addColumn("response_body", "text")
    .execute();
  await db.schema
    .createIndex("delivery_attempts_message_idx")
    .on("delivery_attempts")
    .columns(["message_id", "id"])
    .execute();
  await db.schema
    .createIndex("delivery_attempts_event_idx")
    .on("delivery_attempts")
    .columns(["event_id", "id"])
    .execute();

  await db.schema
    .createTable("campaigns")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("instructions", "text", (c) => c.notNull())
    .addColumn("knowledge", "text", (c) => c.notNull())
    .addColumn("keywords", "text", (c) => c.notNull())
    .addColumn("fallback_message", "text", (c) => c.notNull())
    .addColumn("engine", "text", (c) => c.notNull())
    .addColumn("model", "text")
    .addColumn("is_default", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("campaigns_account_idx")
    .on("campaigns")
    .columns(["account_id", "id"])
    .execute();

  await db.schema
    .createTable("credit_transactions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("balance_after", "bigint", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("message_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("credit_transactions_account_idx")
    .on("credit_transactions")
    .columns(["account_id", "id"])
    .execute();
  // A bot reply is debited once, even when its job runs twice.
  await db.schema
    .createIndex("credit_transactions_message_uq")
    .on("credit_transactions")
    .columns(["account_id", "message_id"])
    .unique()
    .where(sql.ref("message_id"), "is not", null)
    .execute();

  await db.schema
    .createTable("idempotency_keys")
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("request_hash", "text", (c) => c.notNull())
    .addColumn("status_code", "integer", (c) => c.notNull())
    .addColumn("response", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("idempotency_keys_pk", ["account_id", "scope", "key"])
    .execute();

  await db.schema
    .createTable("events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("events_account_idx").on("events").columns(["account_id", "id"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of [
    "events",
    "idempotency_keys",
    "credit_transactions",
    "campaigns",
    "delivery_attempts",
    "messages",
    "conversations",
    "list_members",
    "lists",
    "contacts",
    "jobs",
    "api_keys",
    "users",
    "accounts",
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}

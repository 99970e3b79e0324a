// Built-in channels (part 1): the `channels` table (a web chat widget now, provider channels later),
// the widget's visitors, and a conversation per (contact, channel): `conversations.channel_id` is ''
// for the custom channel (the spec's webhook, unchanged) or a `ch_…` id, and the unique index moves
// from (account_id, contact_id) to (account_id, contact_id, channel_id).
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("channels")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("last_error", "text")
    .addColumn("campaign_id", "text")
    .addColumn("config", "text", (c) => c.notNull())
    .addColumn("secrets", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("channels_account_idx").on("channels").columns(["account_id", "id"]).execute();

  await db.schema
    .createTable("widget_visitors")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("channel_id", "text", (c) => c.notNull())
    .addColumn("contact_id", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_seen_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("widget_visitors_token_uq")
    .on("widget_visitors")
    .columns(["channel_id", "token_hash"])
    .unique()
    .execute();
  await db.schema
    .createIndex("widget_visitors_contact_idx")
    .on("widget_visitors")
    .columns(["account_id", "contact_id"])
    .execute();

  await db.schema
    .alterTable("conversations")
    .addColumn("channel_id", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  // The new index first, so no moment exists without a unique rule on a conversation's key.
  await db.schema
    .createIndex("conversations_contact_channel_uq")
    .on("conversations")
    .columns(["account_id", "contact_id", "channel_id"])
    .unique()
    .execute();
  await db.schema.dropIndex("conversations_contact_uq").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex("conversations_contact_uq")
    .on("conversations")
    .columns(["account_id", "contact_id"])
    .unique()
    .execute();
  await db.schema.dropIndex("conversations_contact_channel_uq").execute();
  await db.schema.alterTable("conversations").dropColumn("channel_id").execute();
  await db.schema.dropTable("widget_visitors").execute();
  await db.schema.dropTable("channels").execute();
}

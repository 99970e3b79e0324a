// Knowledge sources (issue 34): files, web pages and sitemaps a campaign's bot answers from, and their
// text split into passages. The passages of a source are replaced whole on every sync.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("knowledge_sources")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("campaign_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("url", "text")
    .addColumn("content_type", "text")
    .addColumn("max_pages", "integer")
    .addColumn("file_key", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("passages", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("bytes", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("daily_resync", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_sync_at", "bigint")
    .addColumn("last_synced_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  // A campaign's sources, newest first (the list, and the bot's knowledge).
  await db.schema
    .createIndex("knowledge_sources_campaign_idx")
    .on("knowledge_sources")
    .columns(["account_id", "campaign_id", "id"])
    .execute();
  // The daily re-sync's due sources.
  await db.schema
    .createIndex("knowledge_sources_next_sync_idx")
    .on("knowledge_sources")
    .column("next_sync_at")
    .execute();
  await db.schema
    .createTable("knowledge_passages")
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("campaign_id", "text", (c) => c.notNull())
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("heading", "text")
    .addColumn("text", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("knowledge_passages_pk", ["source_id", "position"])
    .execute();
  // A campaign's passages (the bot's engine is built from them all).
  await db.schema
    .createIndex("knowledge_passages_campaign_idx")
    .on("knowledge_passages")
    .columns(["account_id", "campaign_id"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("knowledge_passages").execute();
  await db.schema.dropTable("knowledge_sources").execute();
}

// The bot that acts: a campaign's custom functions (the business's own HTTPS endpoints the LLM may call),
// a record of every call for the team, the LLM's token use per bot reply, and one hand-over summary per
// conversation.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("campaigns")
    .addColumn("functions", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();

  await db.schema
    .createTable("bot_function_calls")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("conversation_id", "text", (c) => c.notNull())
    .addColumn("message_id", "text", (c) => c.notNull())
    .addColumn("campaign_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("arguments", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("response", "text")
    .addColumn("error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("bot_function_calls_conversation_idx")
    .on("bot_function_calls")
    .columns(["account_id", "conversation_id", "created_at"])
    .execute();
  await db.schema
    .createIndex("bot_function_calls_time_idx")
    .on("bot_function_calls")
    .columns(["account_id", "created_at"])
    .execute();

  await db.schema
    .createTable("bot_replies")
    .addColumn("message_id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("conversation_id", "text", (c) => c.notNull())
    .addColumn("input_tokens", "integer", (c) => c.notNull())
    .addColumn("output_tokens", "integer", (c) => c.notNull())
    .addColumn("function_calls", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("bot_replies_time_idx")
    .on("bot_replies")
    .columns(["account_id", "created_at"])
    .execute();

  await db.schema
    .createTable("conversation_summaries")
    .addColumn("conversation_id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("engine", "text", (c) => c.notNull())
    .addColumn("summary", "text")
    .addColumn("questions", "text", (c) => c.notNull().defaultTo(sql`'[]'`))
    .addColumn("reason", "text")
    .addColumn("up_to_message_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("conversation_summaries").execute();
  await db.schema.dropTable("bot_replies").execute();
  await db.schema.dropTable("bot_function_calls").execute();
  await db.schema.alterTable("campaigns").dropColumn("functions").execute();
}

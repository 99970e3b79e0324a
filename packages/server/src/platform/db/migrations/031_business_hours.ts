// Business hours (issue 35): the account's hours (JSON, null = not set: always open) and what a
// campaign does outside them.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("accounts").addColumn("business_hours", "text").execute();
  await db.schema
    .alterTable("campaigns")
    .addColumn("outside_hours", "text", (c) => c.notNull().defaultTo("answer"))
    .execute();
  await db.schema
    .alterTable("campaigns")
    .addColumn("away_message", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  await db.schema
    .alterTable("campaigns")
    .addColumn("follow_ups_in_hours", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("campaigns").dropColumn("follow_ups_in_hours").execute();
  await db.schema.alterTable("campaigns").dropColumn("away_message").execute();
  await db.schema.alterTable("campaigns").dropColumn("outside_hours").execute();
  await db.schema.alterTable("accounts").dropColumn("business_hours").execute();
}

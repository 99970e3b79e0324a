// Sub-account suspension (issue 38): when the agency suspended the account; null = active. Nothing
// else changes on suspension, so resuming is clearing this one column.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("accounts").addColumn("suspended_at", "bigint").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("accounts").dropColumn("suspended_at").execute();
}

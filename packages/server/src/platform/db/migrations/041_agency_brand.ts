// Agency branding (issue 38): an agency's name, colour and logo, carried by its sub-accounts' app and
// chat widgets, and the host its own PUBLIC_URL serves the sign-in page from.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("agency_brands")
    .addColumn("account_id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("color", "text", (c) => c.notNull())
    // The stored file's key (brands/…) and its type; null without a logo.
    .addColumn("logo_key", "text")
    .addColumn("logo_type", "text")
    // Lower-case host[:port] of the agency's own address; one agency per host.
    .addColumn("public_host", "text")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("agency_brands_public_host_idx")
    .on("agency_brands")
    .column("public_host")
    .unique()
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("agency_brands").execute();
}

// CSV imports: the rows that changed nothing get their own count (unchanged), and an import says
// whether it fills only empty fields (the default from now on) or overwrites, and the country of
// phone numbers written without a country code. An import from before was an overwrite, and its
// uncounted rows were the unchanged ones.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("imports")
    .addColumn("unchanged", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("imports")
    .addColumn("mode", "text", (c) => c.notNull().defaultTo("overwrite"))
    .execute();
  await db.schema.alterTable("imports").addColumn("default_country", "text").execute();
  await db.updateTable("imports").set({ unchanged: sql`done - created - updated - rejected` }).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("imports").dropColumn("default_country").execute();
  await db.schema.alterTable("imports").dropColumn("mode").execute();
  await db.schema.alterTable("imports").dropColumn("unchanged").execute();
}

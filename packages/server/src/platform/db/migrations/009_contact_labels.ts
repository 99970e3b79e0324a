// Labels on contacts (web app part 2): free-form tags kept on the contact row as a JSON array of
// strings, so every contact JSON carries them without another query; filtered by a text match.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("contacts")
    .addColumn("labels", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("contacts").dropColumn("labels").execute();
}

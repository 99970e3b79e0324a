// When the contact last saw the conversation, as its channel reports it (the website chat's panel, open
// and on screen): the inbox marks the replies sent before it as Seen. Null until a channel reports it.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("conversations").addColumn("contact_seen_at", "bigint").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("conversations").dropColumn("contact_seen_at").execute();
}

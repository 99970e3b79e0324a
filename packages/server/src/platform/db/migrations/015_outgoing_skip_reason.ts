// Outgoing campaigns: a skipped member's send row says why (no_custom_channel_id: no fromId;
// no_known_channel: no channel label of its own and none on the campaign), shown in the stats and the
// skipped list. Rows from before stay null (they were all members without a fromId).
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("outgoing_sends").addColumn("reason", "text").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("outgoing_sends").dropColumn("reason").execute();
}

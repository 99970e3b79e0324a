// Outgoing campaigns (bulk work): a campaign's first message to every member of a list. The campaign
// keeps what to send and its state; one row per contact records that it was sent (or skipped), so a
// resumed or restarted campaign never sends anyone the first message twice.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("campaigns").addColumn("outgoing", "text").execute();
  await db.schema.alterTable("campaigns").addColumn("outgoing_state", "text").execute();
  await db.schema.alterTable("campaigns").addColumn("outgoing_reason", "text").execute();
  await db.schema
    .createTable("outgoing_sends")
    .addColumn("campaign_id", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("contact_id", "text", (c) => c.notNull())
    .addColumn("message_id", "text")
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("outgoing_sends_pk", ["campaign_id", "contact_id"])
    .execute();
  await db.schema
    .createIndex("outgoing_sends_contact_idx")
    .on("outgoing_sends")
    .columns(["account_id", "contact_id", "created_at"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("outgoing_sends").execute();
  for (const c of ["outgoing_reason", "outgoing_state", "outgoing"]) {
    await db.schema.alterTable("campaigns").dropColumn(c).execute();
  }
}

// Provider channels (WhatsApp, SMS, Telegram, Messenger, Instagram): an outbound message remembers the
// provider's id for it, so a status callback (delivered, read, failed) finds it; a contact remembers
// that it asked for no more SMS (STOP) and when; a WhatsApp campaign's first message carries the approved
// template it is sent as; a message being handed to a provider says so until the outcome commits (a
// crash mid-call is then known, and the message is not sent twice).
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("messages").addColumn("provider_message_id", "text").execute();
  await db.schema
    .createIndex("messages_provider_id_idx")
    .on("messages")
    .columns(["account_id", "provider_message_id"])
    .execute();
  await db.schema.alterTable("contacts").addColumn("sms_opted_out_at", "bigint").execute();
  await db.schema.alterTable("messages").addColumn("template", "text").execute();
  await db.schema.alterTable("messages").addColumn("sending_since", "bigint").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("messages_provider_id_idx").execute();
  await db.schema.alterTable("messages").dropColumn("provider_message_id").execute();
  await db.schema.alterTable("contacts").dropColumn("sms_opted_out_at").execute();
  await db.schema.alterTable("messages").dropColumn("template").execute();
  await db.schema.alterTable("messages").dropColumn("sending_since").execute();
}

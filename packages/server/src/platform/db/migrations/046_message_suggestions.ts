// "Did you mean" (issue 34): a bot message that offers the customer choices keeps them, so the channel
// can show them as buttons and the customer's next message can be read as a pick. JSON text:
// [{ "id": "1", "title": "Opening hours", "entry": 3 }], or null for an ordinary message.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("messages").addColumn("suggestions", "text").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("messages").dropColumn("suggestions").execute();
}

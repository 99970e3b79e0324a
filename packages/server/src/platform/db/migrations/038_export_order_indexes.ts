// An account's contacts and conversations in id order (the exports' keyset pages, issue 38). Without
// these, each page of `where account_id = ? and id > ? order by id` read the account's whole table
// through another account_id index and sorted it: an export got quadratically slower with size.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex("contacts_account_order_idx")
    .on("contacts")
    .columns(["account_id", "id"])
    .execute();
  await db.schema
    .createIndex("conversations_account_order_idx")
    .on("conversations")
    .columns(["account_id", "id"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("conversations_account_order_idx").execute();
  await db.schema.dropIndex("contacts_account_order_idx").execute();
}

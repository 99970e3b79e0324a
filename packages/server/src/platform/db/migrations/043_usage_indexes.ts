// A client's credits used per day (sub-account usage and the dashboard, issue 38). The ledger's only
// account index was (account_id, id): a day range read the account's whole history. With this one a
// period reads only its own rows.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex("credit_transactions_account_time_idx")
    .on("credit_transactions")
    .columns(["account_id", "created_at"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("credit_transactions_account_time_idx").execute();
}

// The dashboard's cache of finished days. Every function takes the account id first.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export async function cachedDays(
  db: Q,
  accountId: string,
  from: number,
  to: number,
): Promise<Map<number, string>> {
  const rows = await db
    .selectFrom("dashboard_days")
    .select(["day", "figures"])
    .where("account_id", "=", accountId)
    .where("day", ">=", from)
    .where("day", "<", to)
    .execute();
  return new Map(rows.map((r) => [Number(r.day), r.figures]));
}

export async function storeDays(
  db: Q,
  accountId: string,
  days: Array<{ day: number; figures: string }>,
  at: number,
): Promise<void> {
  if (days.length === 0) return;
  await db
    .insertInto("dashboard_days")
    .values(days.map((d) => ({ account_id: accountId, day: d.day, figures: d.figures, computed_at: at })))
    .onConflict((oc) => oc.columns(["account_id", "day"]).doNothing())
    .execute();
}

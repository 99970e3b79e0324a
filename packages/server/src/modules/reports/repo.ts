// The dashboard's cache of finished days and its live days counted ahead. Every function takes the
// account id first.
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

export interface LiveSnapshot {
  fromDay: number;
  toDay: number;
  figures: string;
  asOf: number;
}

export async function liveSnapshot(db: Q, accountId: string): Promise<LiveSnapshot | undefined> {
  const row = await db
    .selectFrom("dashboard_live")
    .select(["from_day", "to_day", "figures", "as_of"])
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return row
    ? {
        fromDay: Number(row.from_day),
        toDay: Number(row.to_day),
        figures: row.figures,
        asOf: Number(row.as_of),
      }
    : undefined;
}

export async function storeLiveSnapshot(db: Q, accountId: string, s: LiveSnapshot): Promise<void> {
  const values = { from_day: s.fromDay, to_day: s.toDay, figures: s.figures, as_of: s.asOf };
  await db
    .insertInto("dashboard_live")
    .values({ account_id: accountId, ...values })
    .onConflict((oc) => oc.column("account_id").doUpdateSet(values))
    .execute();
}

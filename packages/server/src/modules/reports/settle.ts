// The dashboard's finished days counted ahead: a recurring job (one pending across every process)
// stores each active account's finished days of the last MAX_DAYS, a day per count, so opening the
// dashboard reads them instead of counting millions of messages while a person waits. The dashboard
// still counts a day itself when this job has not reached it yet (a new day, a new install).
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import { defineJob, type JobHandler, queueNextRun } from "../../platform/jobs.ts";
import { accountsActiveSince } from "../conversations/repo.ts";
import { DAY_MS, MAX_DAYS, SETTLED_DAYS, settleDays } from "./service.ts";

/** How often the finished days are counted ahead: a day ends once a day; an hour keeps it close. */
export const SETTLE_EVERY_MS = 60 * 60_000;

export const settleDaysJob = defineJob("reports.settle_days", Type.Object({}));

/** Stores the finished days of the last MAX_DAYS of every account active in them. */
export async function settleActiveAccounts(ctx: AppContext, now: number): Promise<number> {
  const today = Math.floor(now / DAY_MS);
  const first = today - MAX_DAYS + 1;
  const settledBefore = today - SETTLED_DAYS + 1;
  const accounts = await accountsActiveSince(ctx.db.kysely, first * DAY_MS);
  for (const accountId of accounts) await settleDays(ctx, accountId, first, settledBefore, now, true);
  return accounts.length;
}

export function settleDaysHandler(ctx: AppContext, everyMs = SETTLE_EVERY_MS): JobHandler<object> {
  return async (_payload, job) => {
    await settleActiveAccounts(ctx, Date.now());
    await ctx.db.write((trx) =>
      queueNextRun(trx, job, settleDaysJob.create({}, { accountId: null, runAt: Date.now() + everyMs })),
    );
    return undefined;
  };
}

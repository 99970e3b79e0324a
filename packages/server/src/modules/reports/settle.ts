// The dashboard's days counted ahead: a recurring job (one pending across every process) stores each
// active account's finished days of the last MAX_DAYS, a day per count, and its live days (today and
// yesterday) as they are at the run, so opening the dashboard reads them instead of counting millions
// of messages while a person waits. The dashboard still counts a day itself when this job has not
// reached it yet (a new day, a new install).
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import { defineJob, type JobHandler, queueNextRun } from "../../platform/jobs.ts";
import { accountsActiveSince } from "../conversations/repo.ts";
import { countLiveDaysAhead, DAY_MS, dayWindow, MAX_DAYS, settleDays } from "./service.ts";

/** How often the finished days are counted ahead: a day ends once a day; an hour keeps it close. */
export const SETTLE_EVERY_MS = 60 * 60_000;
/** The first run a minute after start: a starting node has other work first. */
export const SETTLE_FIRST_RUN_MS = 60_000;

export const settleDaysJob = defineJob("reports.settle_days", Type.Object({}));

/** Stores the finished days of the last MAX_DAYS, and the live days, of every account active in them. */
export async function settleActiveAccounts(ctx: AppContext, now: number): Promise<void> {
  const { first, settledBefore } = dayWindow(now, MAX_DAYS);
  for (const accountId of await accountsActiveSince(ctx.db.kysely, first * DAY_MS)) {
    await settleDays(ctx, accountId, first, settledBefore, now, true);
    await countLiveDaysAhead(ctx, accountId, now);
  }
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

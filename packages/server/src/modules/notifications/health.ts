// "Deliveries keep failing": a recurring check (one pending job across every process) looks at the
// last 10 minutes of delivery attempts; a webhook or channel URL of an account whose every attempt
// failed, at least 5 of them, is told to the account's owners and admins, once an hour per URL.
import { Type } from "typebox";
import type { Db } from "../../platform/db/index.ts";
import { defineJob, type JobHandler, queueNextRun } from "../../platform/jobs.ts";
import { failingTargets } from "../delivery/repo.ts";
import { notify } from "./service.ts";

const WINDOW_MS = 10 * 60 * 1000;
const MIN_FAILED_ATTEMPTS = 5;

export const healthJob = defineJob("notifications.delivery_health", Type.Object({}));

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function healthHandler(db: Db, everyMs: number): JobHandler<object> {
  return async (_payload, job) => {
    const now = Date.now();
    const failing = await failingTargets(db.kysely, now - WINDOW_MS, MIN_FAILED_ATTEMPTS);
    await db.write(async (trx) => {
      for (const t of failing) {
        const host = hostOf(t.url);
        await notify(trx, {
          accountId: t.account_id,
          kind: "delivery.failing",
          title: `Deliveries to ${host} keep failing`,
          body:
            `The last ${t.attempts} delivery attempts to ${host} in the past 10 minutes failed` +
            `${t.last_error ? ` (${t.last_error})` : ""}. Messages wait and are retried; check the ` +
            "address and the receiving service.",
          link: "/settings",
          audience: "managers",
          webhook: {
            url: t.url,
            attempts: t.attempts,
            error_class: t.last_error,
            since: new Date(now - WINDOW_MS).toISOString(),
          },
          dedupeKey: `delivery.failing:${t.url}`,
          at: now,
        });
      }
      await queueNextRun(trx, job, healthJob.create({}, { accountId: null, runAt: now + everyMs }));
    });
    return undefined;
  };
}

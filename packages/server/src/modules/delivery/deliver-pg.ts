// The message delivery job on PostgreSQL in two round trips: one named statement reads everything an
// attempt needs (the message, the account's URL and secret, the owner's id, the contact's fromId and
// the attempts so far), and after the POST one named statement records the attempt, the message's
// outcome and, on success, the job's end, in autocommit. The same steps as deliver.ts, which every
// other case (SQLite, account events) still takes: six to nine round trips become two.
import type { AppContext } from "../../context.ts";
import { Batcher } from "../../platform/db/batcher.ts";
import { newId } from "../../platform/ids.ts";
import type { JobContext, JobResult } from "../../platform/jobs.ts";
import { pgDeleteClaimedJobsFrom } from "../../platform/jobs.ts";
import { storedMediaLink } from "../messaging/media/link.ts";
import { pgSetDeliveryOutcomeSql, pgSetDeliveryOutcomesFrom } from "../messaging/repo.ts";
import { errorJson } from "../messaging/view.ts";
import { NOT_CONFIGURED, postSigned } from "./attempt.ts";
import { deliverThroughChannel } from "./deliver-channel.ts";
import { attemptRowOf, MESSAGE_NOT_CONFIGURED, messageEvent, nextAttemptAt, outcomeOf } from "./outcome.ts";
import { ATTEMPT_COLUMNS, type MessageForDelivery, pgInsertAttemptsFrom } from "./repo.ts";

type Loaded = MessageForDelivery;

// What the attempts of the jobs claimed together need, read by one statement.
const LOAD = {
  name: "parley_delivery_load_v3",
  text: `
    select m.*, a.webhook_url, a.webhook_secret,
      (select u.id from users u where u.account_id = m.account_id and u.role = 'owner' order by u.id limit 1)
        as owner_user_id,
      coalesce(m.to_id, (select c.external_id from contacts c where c.account_id = m.account_id and c.id = m.contact_id))
        as contact_external_id,
      (select count(*)::int from delivery_attempts d where d.account_id = m.account_id and d.message_id = m.id)
        as previous,
      (select cv.channel_id from conversations cv where cv.account_id = m.account_id and cv.id = m.conversation_id)
        as channel_id
    from unnest($1::text[], $2::text[]) as x(account_id, id)
    join messages m on m.account_id = x.account_id and m.id = x.id
    join accounts a on a.id = m.account_id`,
};

function loaderOf(ctx: AppContext) {
  return ctx.caches.get("delivery.pgLoader", () =>
    Object.assign(
      new Batcher<{ accountId: string; messageId: string }, Loaded | undefined>(async (wanted) => {
        const rows = await ctx.db.runNamed!<Loaded>(LOAD, [
          wanted.map((w) => w.accountId),
          wanted.map((w) => w.messageId),
        ]);
        const byId = new Map(rows.map((r) => [`${r.account_id}/${r.id}`, r]));
        return wanted.map((w) => byId.get(`${w.accountId}/${w.messageId}`));
      }),
      { clear: () => {} },
    ),
  );
}

/** One attempt's row, the outcome of its message and, on success, the job it ends. */
interface Outcome {
  attempt: Record<(typeof ATTEMPT_COLUMNS)[number], unknown>;
  status: "sent" | "failed";
  error: string | null;
  at: number;
  endJob: { id: string; lockedBy: string | null } | null;
}

const TYPES: Record<(typeof ATTEMPT_COLUMNS)[number], string> = {
  id: "text",
  account_id: "text",
  message_id: "text",
  event_id: "text",
  attempted_at: "bigint",
  duration_ms: "int",
  status_code: "int",
  error_class: "text",
  error_message: "text",
  response_body: "text",
  url: "text",
  attempt_number: "int",
  trigger: "text",
  next_attempt_at: "bigint",
};
const EXTRA = [
  ["outcome_status", "text"],
  ["outcome_error", "text"],
  ["outcome_at", "bigint"],
  ["job_id", "text"],
  ["job_locked_by", "text"],
] as const;
const ALL = [...ATTEMPT_COLUMNS.map((c) => [c, TYPES[c]] as const), ...EXTRA];

// The outcomes of the attempts that finished together, recorded by one statement (one commit).
const RECORD = {
  name: "parley_delivery_record_v2",
  text: `
    with input as (
      select * from unnest(${ALL.map(([, type], i) => `$${i + 1}::${type}[]`).join(", ")})
        as t(${ALL.map(([name]) => name).join(", ")})
    ),
    attempts as (${pgInsertAttemptsFrom("input")}),
    finished as (${pgDeleteClaimedJobsFrom("(select job_id as id, job_locked_by as locked_by from input where job_id is not null) x")}),
    outcomes as (${pgSetDeliveryOutcomesFrom("(select account_id, message_id as id, outcome_status as status, outcome_error as error, outcome_at as at from input) x")})
    select 1 as done`,
};

function recorderOf(ctx: AppContext) {
  return ctx.caches.get("delivery.pgRecorder", () =>
    Object.assign(
      new Batcher<Outcome, void>(async (outcomes) => {
        const columns: unknown[][] = ALL.map(() => []);
        for (const o of outcomes) {
          const row = [
            ...ATTEMPT_COLUMNS.map((c) => o.attempt[c]),
            o.status,
            o.error,
            o.at,
            o.endJob?.id ?? null,
            o.endJob?.lockedBy ?? null,
          ];
          row.forEach((v, i) => {
            columns[i]!.push(v);
          });
        }
        await ctx.db.runNamed!(RECORD, columns);
        return outcomes.map(() => undefined);
      }),
      { clear: () => {} },
    ),
  );
}

export async function deliverMessageOnPostgres(
  ctx: AppContext,
  accountId: string,
  messageId: string,
  trigger: "scheduled" | "manual",
  job: JobContext,
): Promise<JobResult> {
  const runNamed = ctx.db.runNamed!;
  const m = await loaderOf(ctx).submit({ accountId, messageId });
  if (m?.direction !== "outbound" || ["sent", "delivered", "read"].includes(m.status)) return undefined;
  if (m.channel_id) return deliverThroughChannel(ctx, accountId, m, m.channel_id, trigger, job);
  if (!m.webhook_url) {
    const at = Date.now();
    const error = errorJson({
      statusCode: null,
      errorClass: NOT_CONFIGURED,
      message: MESSAGE_NOT_CONFIGURED,
      responseBody: null,
      at,
    });
    await runNamed(
      {
        name: "parley_delivery_unconfigured_v1",
        text: `${pgSetDeliveryOutcomeSql({ accountId: "$1", id: "$2", status: "$3", error: "$4", at: "$5" })}`,
      },
      [accountId, m.id, "failed", error, at],
    );
    ctx.live.publish(accountId, { conversationId: m.conversation_id });
    return undefined;
  }
  const body = JSON.stringify(
    messageEvent(m, m.owner_user_id, m.contact_external_id, storedMediaLink(ctx.config, m)),
  );
  const result = await postSigned(ctx, m.webhook_url, m.webhook_secret, m.id, body);
  const at = Date.now();
  const retryAt = result.ok ? null : nextAttemptAt(ctx, job, result);
  const attempt: Record<(typeof ATTEMPT_COLUMNS)[number], unknown> = {
    id: newId("attempt"),
    account_id: accountId,
    message_id: m.id,
    event_id: null,
    ...attemptRowOf(result, { url: m.webhook_url, number: m.previous + 1, trigger, nextAttemptAt: retryAt }),
  };
  const { status, error } = outcomeOf(result, at);
  await recorderOf(ctx).submit({
    attempt,
    status,
    error,
    at,
    endJob: result.ok ? job.claim : null,
  });
  // Recorded in autocommit (outside db.write), so the inbox is told here, after the commit.
  ctx.live.publish(accountId, { conversationId: m.conversation_id });
  if (result.ok) {
    job.finished();
    return undefined;
  }
  job.log.info(
    { messageId: m.id, statusCode: result.statusCode, errorClass: result.errorClass },
    "delivery attempt failed",
  );
  return retryAt === null ? undefined : { retryAt, error: `${result.errorClass}: ${result.errorMessage}` };
}

// The delivery job handler, one for outbound messages and account events: load what to send, make one
// signed attempt, record it (with its URL, number, trigger and the next attempt's time) and the
// outcome in one commit, then reschedule or finish. Idempotent: a `sent` message or event is never
// sent again.

import type { Transaction } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../platform/db/schema.ts";
import type { JobContext, JobResult } from "../../platform/jobs.ts";
import { conversationChanged } from "../../platform/live.ts";
import { iso } from "../../platform/text.ts";
import { findAccountById, findOwnerUserId } from "../accounts/repo.ts";
import { findContactById } from "../contacts/repo.ts";
import { channelIdOfConversation } from "../conversations/repo.ts";
import { findMessageById, setDeliveryOutcome } from "../messaging/repo.ts";
import { type AttemptResult, errorJson, NOT_CONFIGURED, nextRetryDelayMs, postSigned } from "./attempt.ts";
import { deliverThroughChannel } from "./deliver-channel.ts";
import { deliverMessageOnPostgres } from "./deliver-pg.ts";
import * as repo from "./repo.ts";

type Outcome = { status: "sent" | "failed"; error: string | null; at: number };

/** What one attempt needs, whatever is being delivered. */
interface Target {
  ref: { message_id: string | null; event_id: string | null };
  url: string | null;
  secret: string;
  /** The webhook-id: the same on every attempt, so receivers can deduplicate. */
  webhookId: string;
  body: string;
  notConfigured: string;
  record(trx: Transaction<Database>, outcome: Outcome): Promise<void>;
}

/** The error of a message that cannot be delivered because the account has no URL to send it to. */
export const MESSAGE_NOT_CONFIGURED =
  "No custom channel webhook URL is configured for this account; set it in the settings " +
  "(parley account set --webhook-url), then resend the message";

/** The custom channel reply event: the spec's six fields first, then Parley's additive ones. */
export function messageEvent(
  m: NonNullable<Awaited<ReturnType<typeof findMessageById>>>,
  ownerUserId: string | null,
  contactExternalId: string | null,
) {
  return {
    contactId: m.contact_id,
    messageId: m.id,
    userId: ownerUserId ?? "",
    body: m.body,
    toId: m.to_id ?? contactExternalId ?? "",
    channel: m.channel ?? "",
    type: "message.outbound",
    sender: m.sender,
    campaignId: m.campaign_id,
    createdAt: iso(m.created_at),
    media:
      m.media_url && !m.media_url.startsWith("data:")
        ? { url: m.media_url, contentType: m.media_content_type }
        : null,
  };
}

/** A message of a built-in channel's conversation: delivered by the channel's adapter. */
type ViaChannel = { viaChannel: string; message: NonNullable<Awaited<ReturnType<typeof findMessageById>>> };

async function messageTarget(
  ctx: AppContext,
  accountId: string,
  messageId: string,
): Promise<Target | ViaChannel | null> {
  const db = ctx.db.kysely;
  const m = await findMessageById(db, accountId, messageId);
  if (m?.direction !== "outbound" || m.status === "sent") return null;
  const channelId = await channelIdOfConversation(db, accountId, m.conversation_id);
  if (channelId !== "") return { viaChannel: channelId, message: m };
  const [account, owner] = await Promise.all([
    findAccountById(db, accountId),
    findOwnerUserId(db, accountId),
  ]);
  if (!account) return null;
  // Outbound messages carry the contact's fromId in to_id; older rows fall back to the contact.
  const contactExternalId =
    m.to_id ?? (await findContactById(db, accountId, m.contact_id))?.external_id ?? null;
  return {
    ref: { message_id: m.id, event_id: null },
    url: account.webhook_url,
    secret: account.webhook_secret,
    webhookId: m.id,
    body: JSON.stringify(messageEvent(m, owner ?? null, contactExternalId)),
    notConfigured: MESSAGE_NOT_CONFIGURED,
    record: async (trx, outcome) => {
      await setDeliveryOutcome(trx, accountId, m.id, outcome);
      // The inbox shows Sent / Failed as it happens.
      conversationChanged(trx, accountId, m.conversation_id);
    },
  };
}

async function eventTarget(ctx: AppContext, accountId: string, eventId: string): Promise<Target | null> {
  const db = ctx.db.kysely;
  const [e, account] = await Promise.all([
    repo.findEvent(db, accountId, eventId),
    findAccountById(db, accountId),
  ]);
  if (!e || e.status === "sent" || !account) return null;
  return {
    ref: { message_id: null, event_id: e.id },
    url: account.events_webhook_url,
    secret: account.webhook_secret,
    webhookId: e.id,
    // Stored as sent the first time: every attempt carries byte-identical JSON.
    body: e.payload,
    notConfigured:
      "No events webhook URL is configured for this account; set it in the settings " +
      "(parley account set --events-webhook-url)",
    record: (trx, outcome) => repo.setEventOutcome(trx, accountId, e.id, outcome),
  };
}

/** What an attempt row records of one attempt, beyond which message or event it was for. */
export function attemptRowOf(
  result: AttemptResult,
  about: {
    url: string | null;
    number: number;
    trigger: "scheduled" | "manual";
    nextAttemptAt: number | null;
  },
) {
  return {
    attempted_at: result.attemptedAt,
    duration_ms: result.durationMs,
    status_code: result.statusCode,
    error_class: result.errorClass,
    error_message: result.errorMessage,
    response_body: result.responseBody,
    url: about.url,
    attempt_number: about.number,
    trigger: about.trigger,
    next_attempt_at: about.nextAttemptAt,
  };
}

/** The status and stored error of one attempt. */
export function outcomeOf(result: AttemptResult, at: number): Outcome {
  return {
    status: result.ok ? "sent" : "failed",
    at,
    error: result.ok
      ? null
      : errorJson({
          statusCode: result.statusCode,
          errorClass: result.errorClass ?? "connection_error",
          message: result.errorMessage ?? "delivery failed",
          responseBody: result.responseBody,
          at: result.attemptedAt,
        }),
  };
}

/** After a failed attempt: when the next one is due, or null to stop (410 Gone, schedule exhausted). */
export function nextAttemptAt(ctx: AppContext, job: JobContext, result: AttemptResult): number | null {
  if (result.statusCode === 410) return null;
  const delay = nextRetryDelayMs(ctx.config.deliveryRetryScheduleSeconds, job.attempt, result.retryAfterMs);
  return delay === null ? null : Date.now() + delay;
}

export type DeliverWhat = { messageId: string; trigger?: "scheduled" | "manual" } | { eventId: string };

/** The `delivery` and `event.delivery` jobs. */
export async function deliver(ctx: AppContext, what: DeliverWhat, job: JobContext): Promise<JobResult> {
  const accountId = job.accountId;
  if (!accountId) return { dead: true, error: `${job.type} job without an account` };
  // A resend's first run is the person's; its retries, like every other attempt, are scheduled.
  const trigger =
    "trigger" in what && what.trigger === "manual" && job.attempt === 1 ? "manual" : "scheduled";
  if ("messageId" in what && ctx.db.runNamed) {
    return deliverMessageOnPostgres(ctx, accountId, what.messageId, trigger, job);
  }
  const target =
    "messageId" in what
      ? await messageTarget(ctx, accountId, what.messageId)
      : await eventTarget(ctx, accountId, what.eventId);
  if (!target) return undefined;
  if ("viaChannel" in target) {
    return deliverThroughChannel(ctx, accountId, target.message, target.viaChannel, trigger, job);
  }

  if (!target.url) {
    const at = Date.now();
    const error = errorJson({
      statusCode: null,
      errorClass: NOT_CONFIGURED,
      message: target.notConfigured,
      responseBody: null,
      at,
    });
    await ctx.db.write((trx) => target.record(trx, { status: "failed", error, at }));
    return undefined;
  }

  const previous = await repo.countAttempts(ctx.db.kysely, accountId, target.ref);
  const result = await postSigned(ctx, target.url, target.secret, target.webhookId, target.body);
  const at = Date.now();
  const retryAt = result.ok ? null : nextAttemptAt(ctx, job, result);
  await ctx.db.write(async (trx) => {
    await repo.insertAttempt(trx, accountId, {
      ...target.ref,
      ...attemptRowOf(result, { url: target.url, number: previous + 1, trigger, nextAttemptAt: retryAt }),
    });
    // A success ends the job in the same commit as its outcome.
    if (result.ok) await job.finishIn(trx);
    await target.record(trx, outcomeOf(result, at));
  });
  if (result.ok) return undefined;
  job.log.info(
    { ...target.ref, statusCode: result.statusCode, errorClass: result.errorClass },
    "delivery attempt failed",
  );
  return retryAt === null ? undefined : { retryAt, error: `${result.errorClass}: ${result.errorMessage}` };
}

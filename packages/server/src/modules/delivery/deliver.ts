// The delivery job handler, one for outbound messages and account events: load what to send, make one
// signed attempt, record it (with its URL, number, trigger and the next attempt's time) and the
// outcome in one commit, then reschedule or finish. Idempotent: a `sent` message or event is never
// sent again.

import type { Transaction } from "kysely";
import type { AppContext } from "../../context.ts";
import { takesBatchedPath } from "../../platform/db/index.ts";
import type { Database, MessageRow } from "../../platform/db/schema.ts";
import type { JobContext, JobResult } from "../../platform/jobs.ts";
import { conversationChanged } from "../../platform/live.ts";
import { findAccountById } from "../accounts/repo.ts";
import { storedMediaLink } from "../messaging/media/link.ts";
import { setDeliveryOutcome } from "../messaging/repo.ts";
import { errorJson } from "../messaging/view.ts";
import { NOT_CONFIGURED, postSigned } from "./attempt.ts";
import { deliverThroughChannel } from "./deliver-channel.ts";
import { deliverMessageOnPostgres } from "./deliver-pg.ts";
import {
  attemptRowOf,
  MESSAGE_NOT_CONFIGURED,
  messageEvent,
  nextAttemptAt,
  type Outcome,
  outcomeOf,
} from "./outcome.ts";
import * as repo from "./repo.ts";

/** What one attempt needs, whatever is being delivered. */
interface Target {
  ref: { message_id: string | null; event_id: string | null };
  url: string | null;
  secret: string;
  /** The webhook-id: the same on every attempt, so receivers can deduplicate. */
  webhookId: string;
  body: string;
  notConfigured: string;
  /** Attempts made before this one, when the target's read counted them. */
  previous?: number;
  record(trx: Transaction<Database>, outcome: Outcome): Promise<void>;
}

/** A message of a built-in channel's conversation: delivered by the channel's adapter. */
type ViaChannel = { viaChannel: string; message: MessageRow };

async function messageTarget(
  ctx: AppContext,
  accountId: string,
  messageId: string,
): Promise<Target | ViaChannel | null> {
  // One read: the message, its account's webhook, the owner, the contact's id, the attempts so far.
  const m = await repo.findMessageForDelivery(ctx.db.kysely, accountId, messageId);
  // Sent (or further: a provider's delivered and read) is done.
  if (m?.direction !== "outbound" || ["sent", "delivered", "read"].includes(m.status)) return null;
  const {
    webhook_url,
    webhook_secret,
    owner_user_id,
    contact_external_id,
    previous,
    channel_id,
    ...message
  } = m;
  if (channel_id) return { viaChannel: channel_id, message };
  return {
    ref: { message_id: m.id, event_id: null },
    url: webhook_url,
    secret: webhook_secret,
    webhookId: m.id,
    body: JSON.stringify(
      messageEvent(message, owner_user_id, contact_external_id, storedMediaLink(ctx.config, m)),
    ),
    notConfigured: MESSAGE_NOT_CONFIGURED,
    previous,
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

export type DeliverWhat = { messageId: string; trigger?: "scheduled" | "manual" } | { eventId: string };

/** The `delivery` and `event.delivery` jobs. */
export async function deliver(ctx: AppContext, what: DeliverWhat, job: JobContext): Promise<JobResult> {
  const accountId = job.accountId;
  if (!accountId) return { dead: true, error: `${job.type} job without an account` };
  // A resend's first run is the person's; its retries, like every other attempt, are scheduled.
  const trigger =
    "trigger" in what && what.trigger === "manual" && job.attempt === 1 ? "manual" : "scheduled";
  if ("messageId" in what && takesBatchedPath(ctx.db)) {
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

  const previous = target.previous ?? (await repo.countAttempts(ctx.db.kysely, accountId, target.ref));
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

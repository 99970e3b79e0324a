// Delivery of an outbound message whose conversation belongs to a built-in channel: the same job,
// attempt log, outcome (Sent/Failed with the error), retry schedule and Resend as webhook delivery,
// but the attempt is the channel adapter's `send` instead of the signed POST to the custom webhook.
import { performance } from "node:perf_hooks";
import type { AppContext } from "../../context.ts";
import type { MessageRow } from "../../platform/db/schema.ts";
import type { JobContext, JobResult } from "../../platform/jobs.ts";
import { conversationChanged } from "../../platform/live.ts";
import type { SendOutcome } from "../channels/adapters/types.ts";
import { channelForDelivery, markChannelError } from "../channels/service.ts";
import { findContactById, setSmsOptOut } from "../contacts/repo.ts";
import { findConversationById } from "../conversations/repo.ts";
import { storedMediaLink } from "../messaging/media/link.ts";
import { claimSending, lastInboundOf, setDeliveryOutcome, setSendingDone } from "../messaging/repo.ts";
import type { AttemptResult } from "./attempt.ts";
import { attemptRowOf, nextAttemptAt, outcomeOf } from "./outcome.ts";
import * as repo from "./repo.ts";

/** What an attempt row shows as the destination of a channel's attempt (no URL: the channel). */
export function channelDestination(channelId: string, type: string | null): string {
  return `channel:${type ?? "deleted"}/${channelId}`;
}

function failure(errorClass: string, message: string, retryable: boolean): SendOutcome {
  return { ok: false, retryable, errorClass, message };
}

/** One attempt through the conversation's channel, recorded like a webhook attempt. */
export async function deliverThroughChannel(
  ctx: AppContext,
  accountId: string,
  m: MessageRow,
  channelId: string,
  trigger: "scheduled" | "manual",
  job: JobContext,
): Promise<JobResult> {
  const db = ctx.db.kysely;
  const [found, conversation, previous, contact, lastInbound] = await Promise.all([
    channelForDelivery(ctx, accountId, channelId),
    findConversationById(db, accountId, m.conversation_id),
    repo.countAttempts(db, accountId, { message_id: m.id, event_id: null }),
    findContactById(db, accountId, m.contact_id),
    lastInboundOf(db, accountId, m.contact_id, m.conversation_id),
  ]);
  const attemptedAt = Date.now();
  const started = performance.now();
  let outcome: SendOutcome;
  let claimed = false;
  if (!found || !conversation) {
    outcome = failure("channel_deleted", "The conversation's channel was deleted; it cannot be sent", false);
  } else if (found.channel.status === "paused") {
    outcome = failure("channel_paused", "The channel is paused; resume it, then resend the message", false);
  } else if (found.channel.type === "twilio_sms" && contact?.sms_opted_out_at != null) {
    // Twilio would refuse it too (error 21610); the contact texted STOP and is not texted again.
    outcome = failure("opted_out", "The contact texted STOP: no SMS is sent until it texts START", false);
  } else if (
    // The web channel's "send" is local; a provider call is claimed first (see claimSending).
    found.channel.type !== "web" &&
    !(await ctx.db.write((trx) => claimSending(trx, accountId, m.id, attemptedAt)))
  ) {
    // Another run handed it to the provider and died before the answer was recorded (or is still at
    // it): the provider may have it. Sending again could reach the customer twice, so it is left to
    // a person (Resend).
    outcome = failure(
      "outcome_unknown",
      "Parley stopped while handing this message to the provider, which may or may not have it; " +
        "resend it if the customer did not get it",
      false,
    );
  } else {
    claimed = found.channel.type !== "web";
    try {
      outcome = await found.adapter.send(ctx, found.channel, m, {
        address: lastInbound?.from_id ?? null,
        phone: contact?.phone ?? null,
        lastInboundAt: lastInbound ? Number(lastInbound.created_at) : null,
        // A person's stored attachment: the provider downloads it through its signed link.
        mediaUrl:
          storedMediaLink(ctx.config, m) ??
          (m.media_url && /^https?:\/\//.test(m.media_url) ? m.media_url : null),
      });
    } catch (err) {
      outcome = failure("channel_error", err instanceof Error ? err.message : String(err), true);
    }
  }
  const result: AttemptResult = {
    ok: outcome.ok,
    attemptedAt,
    durationMs: Math.round(performance.now() - started),
    statusCode: outcome.ok ? null : (outcome.statusCode ?? null),
    errorClass: outcome.ok ? null : outcome.errorClass,
    errorMessage: outcome.ok ? null : outcome.message,
    responseBody: null,
    retryAfterMs: null,
  };
  const at = Date.now();
  const retryAt = outcome.ok || !outcome.retryable ? null : nextAttemptAt(ctx, job, result);
  const destination = channelDestination(channelId, found?.channel.type ?? null);
  await ctx.db.write(async (trx) => {
    await repo.insertAttempt(trx, accountId, {
      message_id: m.id,
      event_id: null,
      ...attemptRowOf(result, { url: destination, number: previous + 1, trigger, nextAttemptAt: retryAt }),
    });
    if (result.ok) await job.finishIn(trx);
    // The web channel's send is local and never claimed: nothing to clear there.
    if (claimed) {
      await setSendingDone(trx, accountId, m.id, outcome.ok ? (outcome.providerMessageId ?? null) : null);
    }
    await setDeliveryOutcome(trx, accountId, m.id, outcomeOf(result, at));
    // The provider knows the number unsubscribed: no further SMS is attempted until it texts START.
    if (!outcome.ok && outcome.recipientOptedOut && contact?.phone) {
      await setSmsOptOut(trx, accountId, contact.phone, at);
    }
    // The inbox (and the widget's visitor stream) hear of Sent / Failed on commit.
    conversationChanged(trx, accountId, m.conversation_id);
  });
  if (result.ok) return undefined;
  // The provider refused the channel's credentials: the channel shows it (Settings, dashboard).
  if (!outcome.ok && outcome.credentialsRefused && found) {
    await markChannelError(ctx, accountId, channelId, outcome.message);
  }
  job.log.info(
    { messageId: m.id, channelId, errorClass: result.errorClass },
    "channel delivery attempt failed",
  );
  return retryAt === null ? undefined : { retryAt, error: `${result.errorClass}: ${result.errorMessage}` };
}

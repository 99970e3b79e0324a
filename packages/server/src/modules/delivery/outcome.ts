// What every delivery path shares (the webhook's, PostgreSQL's batched one, a built-in channel's):
// the reply event's shape, an attempt's row, its outcome and when the next attempt is due. A leaf the
// paths import, so none of them imports another for these.
import type { AppContext } from "../../context.ts";
import type { MessageRow } from "../../platform/db/schema.ts";
import type { JobContext } from "../../platform/jobs.ts";
import { iso } from "../../platform/text.ts";
import { suggestionsOf } from "../messaging/suggestions.ts";
import { errorJson } from "../messaging/view.ts";
import { type AttemptResult, nextRetryDelayMs } from "./attempt.ts";

export type Outcome = { status: "sent" | "failed"; error: string | null; at: number };

/** The error of a message that cannot be delivered because the account has no URL to send it to. */
export const MESSAGE_NOT_CONFIGURED =
  "No custom channel webhook URL is configured for this account; set it in the settings " +
  "(parley account set --webhook-url), then resend the message";

/**
 * The custom channel reply event: the spec's six fields first, then Parley's additive ones. `media` is
 * the attachment's public URL and type: a person's stored attachment is reached through its signed
 * link (`storedMediaLink`, passed in by the caller, which has the config).
 */
export function messageEvent(
  m: MessageRow,
  ownerUserId: string | null,
  contactExternalId: string | null,
  storedMediaUrl: string | null = null,
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
    media: storedMediaUrl
      ? { url: storedMediaUrl, contentType: m.media_content_type }
      : m.media_url && !m.media_url.startsWith("data:")
        ? { url: m.media_url, contentType: m.media_content_type }
        : null,
    // A "Did you mean" message: the choices as data, for a system that shows buttons (the body lists
    // them as numbered text too). Absent on every other message.
    ...(m.suggestions
      ? { suggestions: suggestionsOf(m.suggestions).map(({ id, title }) => ({ id, title })) }
      : {}),
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

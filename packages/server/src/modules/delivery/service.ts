// Delivery rules: the signed POST of an outbound message (or an account event) to the customer's URL,
// its outcome (sent / failed + error), the retry schedule, resend, and the three ways a message goes
// out (API send, a person's reply, the bot through createOutboundMessage).
import { performance } from "node:perf_hooks";
import type { AppContext } from "../../context.ts";
import type { AccountRow, MessageRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import type { JobContext, JobResult } from "../../platform/jobs.ts";
import { enqueueJobs } from "../../platform/jobs.ts";
import { OutboundError } from "../../platform/safe-fetch.ts";
import { iso, isValidEmail, normaliseEmail } from "../../platform/text.ts";
import { findOwnerUserId } from "../accounts/repo.ts";
import { toE164 } from "../contacts/phone.ts";
import { findContactById, findOrCreateContactByExternalId } from "../contacts/repo.ts";
import { findConversationById, findOrCreateConversation, pauseBot } from "../conversations/repo.ts";
import { insertAttempt } from "../messaging/repo.ts";
import type { DeliveryError } from "../messaging/view.ts";
import { createOutboundMessage, DELIVERY_JOB } from "./outbound.ts";
import * as repo from "./repo.ts";
import { webhookHeaders } from "./signing.ts";

/** Response bodies are read (and stored) up to this size. */
export const MAX_RESPONSE_BODY_BYTES = 4096;
/** A receiver's Retry-After may push the next attempt out to at most this (or the schedule step). */
export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;
/** The message error class when the account has no URL to deliver to. */
export const NOT_CONFIGURED = "not_configured";

// ---------------------------------------------------------------------------
// Retry schedule
// ---------------------------------------------------------------------------

/** `Retry-After` as milliseconds from now: delta-seconds or an HTTP date; null when absent or invalid. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | null {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return null;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The wait before the next attempt after failed attempt number `attempt` (1-based), or null when
 * the schedule is exhausted. Each step gets ±20 % jitter; a `Retry-After` may lengthen the wait
 * (never shorten it) up to one hour, or up to the step itself when that is longer.
 */
export function nextRetryDelayMs(
  scheduleSeconds: readonly number[],
  attempt: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  const step = scheduleSeconds[attempt - 1];
  if (step === undefined) return null;
  const stepMs = step * 1000;
  const jittered = stepMs * (0.8 + random() * 0.4);
  if (retryAfterMs === null) return Math.round(jittered);
  return Math.round(Math.min(Math.max(retryAfterMs, jittered), Math.max(stepMs, MAX_RETRY_AFTER_MS)));
}

// ---------------------------------------------------------------------------
// One attempt
// ---------------------------------------------------------------------------

export interface AttemptResult {
  ok: boolean;
  attemptedAt: number;
  durationMs: number;
  statusCode: number | null;
  errorClass: string | null;
  errorMessage: string | null;
  responseBody: string | null;
  retryAfterMs: number | null;
}

/** Text for storage: PostgreSQL text cannot hold NUL characters. */
function storableText(buf: Buffer): string {
  return buf.toString("utf8").replaceAll("\u0000", "");
}

/** One signed POST through the outbound guard: 15 s in total, no redirects, 4 KiB of response read. */
async function postSigned(
  ctx: AppContext,
  url: string,
  secret: string,
  webhookId: string,
  body: string,
): Promise<AttemptResult> {
  const attemptedAt = Date.now();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await ctx.fetcher.request({
      method: "POST",
      url,
      headers: webhookHeaders(secret, webhookId, body, attemptedAt),
      body,
      maxBodyBytes: MAX_RESPONSE_BODY_BYTES,
      truncateBody: true,
      followRedirects: 0,
      totalTimeoutMs: ctx.config.deliveryTimeoutMs,
    });
    const responseBody = storableText(res.body);
    const base = { attemptedAt, durationMs: elapsed(), statusCode: res.status, responseBody };
    if (res.status >= 200 && res.status < 300) {
      return { ...base, ok: true, errorClass: null, errorMessage: null, retryAfterMs: null };
    }
    const retryAfterMs = parseRetryAfter(res.headers["retry-after"], attemptedAt);
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.location;
      const where = location ? ` to ${Array.isArray(location) ? location[0] : location}` : "";
      return {
        ...base,
        ok: false,
        errorClass: "redirect",
        errorMessage: `The URL answered HTTP ${res.status} (redirect${where}); redirects are not followed`,
        retryAfterMs,
      };
    }
    return {
      ...base,
      ok: false,
      errorClass: "http_error",
      errorMessage: `The URL answered HTTP ${res.status}; only 2xx counts as delivered`,
      retryAfterMs,
    };
  } catch (err) {
    const known = err instanceof OutboundError;
    return {
      ok: false,
      attemptedAt,
      durationMs: elapsed(),
      statusCode: known ? (err.statusCode ?? null) : null,
      errorClass: known ? err.errorClass : "connection_error",
      errorMessage: err instanceof Error ? err.message : String(err),
      responseBody: null,
      retryAfterMs: null,
    };
  }
}

function errorJson(a: {
  statusCode: number | null;
  errorClass: string;
  message: string;
  responseBody: string | null;
  at: number;
}): string {
  const error: DeliveryError = {
    statusCode: a.statusCode,
    errorClass: a.errorClass,
    message: a.message,
    responseBody: a.responseBody,
    at: iso(a.at),
  };
  return JSON.stringify(error);
}

function attemptRow(result: AttemptResult) {
  return {
    attempted_at: result.attemptedAt,
    duration_ms: result.durationMs,
    status_code: result.statusCode,
    error_class: result.errorClass,
    error_message: result.errorMessage,
    response_body: result.responseBody,
  };
}

/** After a failed attempt: reschedule, or end the job (410 Gone, schedule exhausted). */
function afterFailure(ctx: AppContext, job: JobContext, result: AttemptResult): JobResult {
  if (result.statusCode === 410) return undefined;
  const delay = nextRetryDelayMs(ctx.config.deliveryRetryScheduleSeconds, job.attempt, result.retryAfterMs);
  if (delay === null) return undefined;
  return { retryAt: Date.now() + delay, error: `${result.errorClass}: ${result.errorMessage}` };
}

function idFrom(payload: unknown, key: "messageId" | "eventId"): string | null {
  if (typeof payload !== "object" || payload === null) return null;
  const value = (payload as Record<string, unknown>)[key];
  return typeof value === "string" ? value : null;
}

// ---------------------------------------------------------------------------
// Job handlers
// ---------------------------------------------------------------------------

/** The custom channel reply event: the spec's six fields first, then Parley's additive ones. */
export function messageEvent(m: repo.MessageForDelivery) {
  return {
    contactId: m.contact_id,
    messageId: m.id,
    userId: m.owner_user_id ?? "",
    body: m.body,
    toId: m.to_id ?? m.contact_external_id ?? "",
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

/** `delivery` job: POST one outbound message; idempotent (a `sent` message is never sent again). */
export async function deliverMessage(ctx: AppContext, payload: unknown, job: JobContext): Promise<JobResult> {
  const messageId = idFrom(payload, "messageId");
  if (!messageId || !job.accountId) return { dead: true, error: "payload without messageId or account" };
  const accountId = job.accountId;
  const m = await repo.loadMessageForDelivery(ctx.db.kysely, accountId, messageId);
  if (m?.direction !== "outbound" || m.status === "sent") return undefined;

  if (!m.webhook_url) {
    const at = Date.now();
    await repo.setMessageOutcome(ctx.db.kysely, accountId, m.id, {
      status: "failed",
      at,
      error: errorJson({
        statusCode: null,
        errorClass: NOT_CONFIGURED,
        message:
          "No custom channel webhook URL is configured for this account; set it in the settings " +
          "(parley account set --webhook-url), then resend the message",
        responseBody: null,
        at,
      }),
    });
    return undefined;
  }

  // webhook-id is the message id: the same on every attempt, so receivers can deduplicate.
  const body = JSON.stringify(messageEvent(m));
  const result = await postSigned(ctx, m.webhook_url, m.webhook_secret, m.id, body);
  const at = Date.now();
  await ctx.db.write(async (trx) => {
    await insertAttempt(trx, accountId, { message_id: m.id, event_id: null, ...attemptRow(result) });
    // A success ends the job in the same commit as its outcome.
    if (result.ok) await job.finishIn(trx);
    await repo.setMessageOutcome(trx, accountId, m.id, outcomeOf(result, at));
  });
  if (result.ok) return undefined;
  job.log.info(
    { messageId: m.id, statusCode: result.statusCode, errorClass: result.errorClass },
    "message delivery failed",
  );
  return afterFailure(ctx, job, result);
}

/** The status and stored error of one attempt (messages and events alike). */
function outcomeOf(result: AttemptResult, at: number) {
  return {
    status: result.ok ? ("sent" as const) : ("failed" as const),
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

/** `event.delivery` job: POST the stored event payload, byte-identical on every attempt. */
export async function deliverEvent(ctx: AppContext, payload: unknown, job: JobContext): Promise<JobResult> {
  const eventId = idFrom(payload, "eventId");
  if (!eventId || !job.accountId) return { dead: true, error: "payload without eventId or account" };
  const accountId = job.accountId;
  const e = await repo.loadEventForDelivery(ctx.db.kysely, accountId, eventId);
  if (!e || e.status === "sent") return undefined;

  if (!e.events_webhook_url) {
    const at = Date.now();
    await repo.setEventOutcome(ctx.db.kysely, accountId, e.id, {
      status: "failed",
      at,
      error: errorJson({
        statusCode: null,
        errorClass: NOT_CONFIGURED,
        message:
          "No events webhook URL is configured for this account; set it in the settings " +
          "(parley account set --events-webhook-url)",
        responseBody: null,
        at,
      }),
    });
    return undefined;
  }

  const result = await postSigned(ctx, e.events_webhook_url, e.webhook_secret, e.id, e.payload);
  const at = Date.now();
  await ctx.db.write(async (trx) => {
    await insertAttempt(trx, accountId, { message_id: null, event_id: e.id, ...attemptRow(result) });
    if (result.ok) await job.finishIn(trx);
    await repo.setEventOutcome(trx, accountId, e.id, outcomeOf(result, at));
  });
  if (result.ok) return undefined;
  job.log.info(
    { eventId: e.id, statusCode: result.statusCode, errorClass: result.errorClass },
    "event delivery failed",
  );
  return afterFailure(ctx, job, result);
}

// ---------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------

export interface SendInput {
  fromId: string;
  customChannel: string;
  body: string;
  campaignId?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
}

function given(v: string | null | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}

function requireText(value: string, field: string): void {
  if (value.trim() === "") {
    throw new AppError("VALIDATION_ERROR", `${field} must not be empty or whitespace-only`);
  }
}

/** POST /v1/send_custom_channel_message: contact upsert, outbound message, delivery job, one transaction. */
export async function sendCustomChannelMessage(
  ctx: AppContext,
  account: AccountRow,
  input: SendInput,
): Promise<{ messageId: string; contactId: string }> {
  requireText(input.fromId, "customData.fromId");
  requireText(input.customChannel, "customData.customChannel");
  requireText(input.body, "customData.body");
  const email = given(input.email);
  const normalisedEmail = email === undefined ? undefined : normaliseEmail(email);
  if (normalisedEmail !== undefined && !isValidEmail(normalisedEmail)) {
    throw new AppError("INVALID_EMAIL", `customData.email "${email}" is not a valid e-mail address`);
  }
  if (!account.webhook_url) {
    throw new AppError(
      "WEBHOOK_NOT_CONFIGURED",
      "No custom channel webhook URL is configured for this account; set it in the settings first",
    );
  }
  const firstName = given(input.firstName);
  const lastName = given(input.lastName);
  const channel = input.customChannel.trim();
  const now = Date.now();
  const message = await ctx.db.write(async (trx) => {
    const { contact, created } = await findOrCreateContactByExternalId(trx, account.id, {
      externalId: input.fromId,
      phone: toE164(input.fromId),
      firstName: firstName ?? null,
      lastName: lastName ?? null,
      email: normalisedEmail ?? null,
    });
    if (!created) {
      await repo.updateContactDetails(
        trx,
        account.id,
        contact.id,
        {
          ...(firstName === undefined ? {} : { first_name: firstName }),
          ...(lastName === undefined ? {} : { last_name: lastName }),
          ...(normalisedEmail === undefined ? {} : { email: normalisedEmail }),
        },
        now,
      );
    }
    const { conversation } = await findOrCreateConversation(trx, account.id, contact.id, channel, now);
    return createOutboundMessage(trx, account.id, {
      conversationId: conversation.id,
      contactId: contact.id,
      body: input.body,
      sender: "api",
      channel,
      toId: input.fromId,
      campaignId: given(input.campaignId) ?? null,
      at: now,
    });
  });
  ctx.worker.wake();
  return { messageId: message.id, contactId: message.contact_id };
}

/**
 * A person's reply from the inbox (or the API extension): pauses the bot on the conversation, since
 * the bot never talks over a human, and goes out like every other outbound message.
 */
export async function sendHumanReply(
  ctx: AppContext,
  accountId: string,
  conversationId: string,
  body: string,
  userId: string | null,
): Promise<MessageRow> {
  requireText(body, "body");
  const now = Date.now();
  const message = await ctx.db.write(async (trx) => {
    const conversation = await findConversationById(trx, accountId, conversationId);
    if (!conversation) {
      throw new AppError("CONVERSATION_NOT_FOUND", `No conversation ${conversationId} in this account`);
    }
    const contact = await findContactById(trx, accountId, conversation.contact_id);
    const channel =
      conversation.channel ?? (await repo.lastChannelOf(trx, accountId, conversation.contact_id));
    await pauseBot(trx, accountId, conversationId, now);
    return createOutboundMessage(trx, accountId, {
      conversationId,
      contactId: conversation.contact_id,
      body,
      sender: "human",
      channel,
      toId: contact?.external_id ?? null,
      campaignId: conversation.campaign_id,
      userId: userId ?? (await findOwnerUserId(trx, accountId)) ?? null,
      at: now,
    });
  });
  ctx.worker.wake();
  return message;
}

/**
 * Queues a new attempt now for a failed outbound message and restarts its retry schedule. A retry
 * that is still queued is replaced (never two deliveries in parallel); one that is running right now
 * is left to finish and decides the outcome.
 */
export async function resendMessage(ctx: AppContext, accountId: string, messageId: string): Promise<void> {
  await ctx.db.write(async (trx) => {
    const m = await trx
      .selectFrom("messages")
      .select(["id", "direction", "status"])
      .where("account_id", "=", accountId)
      .where("id", "=", messageId)
      .executeTakeFirst();
    if (!m) throw new AppError("MESSAGE_NOT_FOUND", `No message ${messageId} in this account`);
    if (m.direction !== "outbound" || m.status !== "failed") {
      throw new AppError(
        "MESSAGE_NOT_FAILED",
        m.direction === "outbound"
          ? `Only a failed message can be resent; message ${messageId} is ${m.status}`
          : `Message ${messageId} is an incoming message; only failed outbound messages can be resent`,
      );
    }
    if (!(await repo.markPendingForResend(trx, accountId, messageId, Date.now()))) {
      throw new AppError("MESSAGE_NOT_FAILED", `Message ${messageId} is no longer failed`);
    }
    const jobs = await repo.deliveryJobsOf(trx, accountId, messageId);
    await repo.deleteQueuedJobs(
      trx,
      jobs.filter((j) => j.status === "queued").map((j) => j.id),
    );
    if (!jobs.some((j) => j.status === "running")) {
      await enqueueJobs(trx, [{ type: DELIVERY_JOB, accountId, payload: { messageId }, maxAttempts: 100 }]);
    }
  });
  ctx.worker.wake();
}

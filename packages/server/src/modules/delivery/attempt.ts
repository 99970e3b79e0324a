// One delivery attempt and the retry math: the signed POST of an outbound message or an account
// event to the customer's URL through the outbound guard, what counts as delivered, the stored error,
// and when the next attempt is due.
import { performance } from "node:perf_hooks";
import type { AppContext } from "../../context.ts";
import { OutboundError } from "../../platform/safe-fetch.ts";
import { type SigningKeyCache, webhookHeaders } from "./signing.ts";

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
export async function postSigned(
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
      headers: webhookHeaders(
        secret,
        webhookId,
        body,
        attemptedAt,
        ctx.caches.get("delivery.signingKeys", (): SigningKeyCache => new Map()),
      ),
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

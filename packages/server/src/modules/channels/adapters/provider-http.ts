// One outbound call to a messaging provider, through the outbound address guard (ctx.fetcher) like every
// webhook; and what every provider adapter does with the answer: a network error, a timeout, a 429 or a
// 5xx is worth another attempt, any other 4xx is final, and a refusal of the credentials (401, or the
// provider's own code for it) turns the channel `error`.
import { timingSafeEqual } from "node:crypto";
import type { AppContext } from "../../../context.ts";
import { OutboundError } from "../../../platform/safe-fetch.ts";
import type { SendOutcome } from "./types.ts";

/** Provider answers are small JSON; attachments are fetched with their own cap. */
const MAX_ANSWER_BYTES = 256 * 1024;
const PROVIDER_TIMEOUT_MS = 15_000;

export interface ProviderAnswer {
  status: number;
  /** The answer parsed as JSON, or null when it is not JSON. */
  json: unknown;
  text: string;
}

export type ProviderCall =
  | { ok: true; answer: ProviderAnswer }
  | { ok: false; outcome: Extract<SendOutcome, { ok: false }> };

export interface ProviderRequest {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** A JSON body (sent as application/json). */
  json?: unknown;
  /** A form body (sent as application/x-www-form-urlencoded), e.g. Twilio's. */
  form?: Record<string, string | string[]>;
}

/** Calls the provider; a network failure comes back as a retryable outcome, never as a throw. */
export async function callProvider(ctx: AppContext, req: ProviderRequest): Promise<ProviderCall> {
  const headers: Record<string, string> = { accept: "application/json", ...req.headers };
  let body: string | undefined;
  if (req.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(req.json);
  } else if (req.form !== undefined) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(req.form)) {
      for (const v of Array.isArray(value) ? value : [value]) params.append(key, v);
    }
    body = params.toString();
  }
  try {
    const res = await ctx.fetcher.request({
      url: req.url,
      method: req.method ?? (body === undefined ? "GET" : "POST"),
      headers,
      ...(body === undefined ? {} : { body }),
      maxBodyBytes: MAX_ANSWER_BYTES,
      truncateBody: true,
      totalTimeoutMs: PROVIDER_TIMEOUT_MS,
    });
    const text = res.body.toString("utf8");
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { ok: true, answer: { status: res.status, json, text } };
  } catch (err) {
    const errorClass = err instanceof OutboundError ? err.errorClass : "connection_error";
    const message = err instanceof Error ? err.message : String(err);
    // An address the guard refuses will not be allowed on the next attempt either.
    return {
      ok: false,
      outcome: { ok: false, retryable: errorClass !== "blocked_address", errorClass, message },
    };
  }
}

/** The outcome of a provider's error answer, by its HTTP status and what the provider said. */
export function failedAnswer(
  provider: string,
  status: number,
  detail: string,
  opts: { credentialsRefused?: boolean } = {},
): Extract<SendOutcome, { ok: false }> {
  const credentialsRefused = opts.credentialsRefused ?? status === 401;
  const retryable = !credentialsRefused && (status === 429 || status >= 500);
  return {
    ok: false,
    retryable,
    errorClass: credentialsRefused
      ? "credentials_refused"
      : retryable
        ? "provider_unavailable"
        : "provider_error",
    message: `${provider} answered ${status}: ${detail}`.slice(0, 1000),
    statusCode: status,
    ...(credentialsRefused ? { credentialsRefused: true } : {}),
  };
}

/** Compares two secrets in constant time (a missing or differently sized one is simply unequal). */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The 24-hour customer service window of WhatsApp, Messenger and Instagram. */
export const CUSTOMER_WINDOW_MS = 24 * 60 * 60 * 1000;

/** A media file's bytes, with the caller's headers (credentials); throws on a non-2xx answer. */
export async function fetchBytes(
  ctx: AppContext,
  url: string,
  headers: Record<string, string>,
  maxBytes: number,
): Promise<{ bytes: Buffer; contentType: string }> {
  const res = await ctx.fetcher.request({
    url,
    method: "GET",
    headers,
    maxBodyBytes: maxBytes,
    followRedirects: 3,
    totalTimeoutMs: 30_000,
  });
  if (res.status < 200 || res.status >= 300) {
    throw new OutboundError("http_error", `media fetch answered ${res.status}`, { statusCode: res.status });
  }
  const type = res.headers["content-type"];
  return {
    bytes: res.body,
    contentType: (Array.isArray(type) ? type[0] : type) ?? "application/octet-stream",
  };
}

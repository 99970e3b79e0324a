// A campaign's custom functions: the business's own HTTPS endpoints the LLM engine may call in the
// middle of a reply (look up an order, check a slot). Defined on the campaign, validated here, called
// through the outbound address guard with a Standard Webhooks signature (the account's webhook secret),
// bounded in time and size. Every call is recorded for the team and never sent to the customer.
import { Ajv, type ValidateFunction } from "ajv";
import type { AppContext } from "../../context.ts";
import type { AccountRow, FunctionCallStatus } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { OutboundError } from "../../platform/safe-fetch.ts";
import { validateWebhookUrl } from "../accounts/webhook-url.ts";
import { webhookHeaders } from "../delivery/signing.ts";

export interface BotFunction {
  name: string;
  description: string;
  /** A JSON Schema of type "object": what the model must pass. */
  parameters: Record<string, unknown>;
  url: string;
  timeoutMs: number;
}

export const FUNCTION_LIMITS = {
  perCampaign: 10,
  description: 1_000,
  url: 2_000,
  parametersBytes: 20_000,
  minTimeoutMs: 1_000,
  maxTimeoutMs: 15_000,
  defaultTimeoutMs: 5_000,
  /** Calls one reply may make; the model is refused past it. */
  callsPerReply: 3,
  /** Bytes of a function's answer read at most (a bigger answer is a failure, not a truncated fact). */
  responseBytes: 64 * 1024,
  /** Characters of the answer given to the model. */
  modelChars: 8_000,
  /** Characters of the answer kept in the thread. */
  threadChars: 500,
} as const;

const NAME_RE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const EMPTY_PARAMETERS = { type: "object", properties: {} };

// One Ajv for the businesses' schemas: no coercion, no defaults written into the model's arguments.
const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
const validators = new Map<string, ValidateFunction>();

function validatorFor(parameters: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(parameters);
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile(parameters);
    if (validators.size >= 1_000) validators.clear();
    validators.set(key, v);
  }
  return v;
}

/** "orderId is required", "/orderId must be string": what the model (and a person testing) is told. */
export function argumentErrors(fn: BotFunction, args: unknown): string | null {
  const validate = validatorFor(fn.parameters);
  if (validate(args)) return null;
  const e = validate.errors?.[0];
  if (!e) return "the arguments do not match the function's parameters";
  if (e.keyword === "required") {
    const missing = (e.params as { missingProperty: string }).missingProperty;
    const at = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
    return `${at ? `${at}.` : ""}${missing} is required`;
  }
  const at = e.instancePath.replace(/^\//, "").replace(/\//g, ".") || "arguments";
  return `${at} ${e.message ?? "is invalid"}`;
}

/** Stored functions; a damaged value reads as none rather than breaking the bot. */
export function parseFunctions(json: string | null | undefined): BotFunction[] {
  if (!json) return [];
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? (v as BotFunction[]) : [];
  } catch {
    return [];
  }
}

/**
 * The functions as given, checked and filled in (timeoutMs 5,000 by default). Errors name the item
 * (functions[2].url). The URL follows the webhook URL's rule: https://, or http:// only for addresses in
 * OUTBOUND_ALLOW_CIDRS.
 */
export async function normaliseFunctions(value: unknown, allowCidrs: string[]): Promise<BotFunction[]> {
  if (!Array.isArray(value)) throw new AppError("VALIDATION_ERROR", "functions must be an array");
  if (value.length > FUNCTION_LIMITS.perCampaign) {
    throw new AppError(
      "VALIDATION_ERROR",
      `functions must have at most ${FUNCTION_LIMITS.perCampaign} items`,
    );
  }
  const seen = new Set<string>();
  const out: BotFunction[] = [];
  for (const [i, raw] of value.entries()) {
    const at = `functions[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new AppError("VALIDATION_ERROR", `${at} must be an object {name, description, parameters, url}`);
    }
    const f = raw as Record<string, unknown>;
    const name = typeof f.name === "string" ? f.name.trim() : "";
    if (!NAME_RE.test(name)) {
      throw new AppError(
        "VALIDATION_ERROR",
        `${at}.name must start with a letter and hold only letters, digits and _ (at most 64)`,
      );
    }
    if (seen.has(name.toLowerCase())) {
      throw new AppError("VALIDATION_ERROR", `${at}.name: another function is already called ${name}`);
    }
    seen.add(name.toLowerCase());
    const description = typeof f.description === "string" ? f.description.trim() : "";
    if (description === "" || description.length > FUNCTION_LIMITS.description) {
      throw new AppError(
        "VALIDATION_ERROR",
        `${at}.description must be 1–${FUNCTION_LIMITS.description} characters (it tells the bot when to use it)`,
      );
    }
    const parameters = f.parameters === undefined || f.parameters === null ? EMPTY_PARAMETERS : f.parameters;
    if (typeof parameters !== "object" || Array.isArray(parameters)) {
      throw new AppError("VALIDATION_ERROR", `${at}.parameters must be a JSON Schema object`);
    }
    const schema = parameters as Record<string, unknown>;
    if (schema.type !== "object") {
      throw new AppError("VALIDATION_ERROR", `${at}.parameters must be a JSON Schema with "type": "object"`);
    }
    if (JSON.stringify(schema).length > FUNCTION_LIMITS.parametersBytes) {
      throw new AppError(
        "VALIDATION_ERROR",
        `${at}.parameters must be at most ${FUNCTION_LIMITS.parametersBytes} characters of JSON`,
      );
    }
    try {
      validatorFor(schema);
    } catch (err) {
      throw new AppError(
        "VALIDATION_ERROR",
        `${at}.parameters is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    if (typeof f.url !== "string" || f.url.trim() === "" || f.url.length > FUNCTION_LIMITS.url) {
      throw new AppError(
        "VALIDATION_ERROR",
        `${at}.url must be a URL of at most ${FUNCTION_LIMITS.url} characters`,
      );
    }
    const url = await validateWebhookUrl(f.url, allowCidrs, `${at}.url`);
    const timeoutMs = f.timeoutMs ?? FUNCTION_LIMITS.defaultTimeoutMs;
    if (
      typeof timeoutMs !== "number" ||
      !Number.isInteger(timeoutMs) ||
      timeoutMs < FUNCTION_LIMITS.minTimeoutMs ||
      timeoutMs > FUNCTION_LIMITS.maxTimeoutMs
    ) {
      throw new AppError(
        "VALIDATION_ERROR",
        `${at}.timeoutMs must be a whole number from ${FUNCTION_LIMITS.minTimeoutMs} to ${FUNCTION_LIMITS.maxTimeoutMs}`,
      );
    }
    out.push({ name, description, parameters: schema, url, timeoutMs });
  }
  return out;
}

export interface CallContext {
  conversationId: string | null;
  contactId: string | null;
  messageId: string | null;
  campaignId: string;
  /** A call from the campaign page's Test button. */
  test?: boolean;
}

export interface CallResult {
  id: string;
  status: Exclude<FunctionCallStatus, "invalid_arguments">;
  statusCode: number | null;
  durationMs: number;
  /** The answer's text (at most FUNCTION_LIMITS.responseBytes), null when none came. */
  body: string | null;
  error: string | null;
}

/** One signed POST to the business's function; never throws for anything the far side does. */
export async function callFunction(
  ctx: AppContext,
  account: Pick<AccountRow, "webhook_secret">,
  fn: BotFunction,
  args: unknown,
  call: CallContext,
): Promise<CallResult> {
  const id = newId("functionCall");
  const body = JSON.stringify({
    type: "bot.function_call",
    function: fn.name,
    arguments: args,
    conversationId: call.conversationId,
    contactId: call.contactId,
    messageId: call.messageId,
    campaignId: call.campaignId,
    ...(call.test ? { test: true } : {}),
  });
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    const res = await ctx.fetcher.request({
      url: fn.url,
      method: "POST",
      headers: webhookHeaders(account.webhook_secret, id, body),
      body,
      maxBodyBytes: FUNCTION_LIMITS.responseBytes,
      totalTimeoutMs: fn.timeoutMs,
    });
    const text = res.body.toString("utf8");
    if (res.status >= 200 && res.status < 300) {
      return { id, status: "ok", statusCode: res.status, durationMs: took(), body: text, error: null };
    }
    return {
      id,
      status: "error",
      statusCode: res.status,
      durationMs: took(),
      body: text,
      error: `the function answered HTTP ${res.status}`,
    };
  } catch (err) {
    const cls = err instanceof OutboundError ? err.errorClass : "connection_error";
    const status = cls === "timeout" ? "timeout" : cls === "blocked_address" ? "blocked" : "error";
    const message =
      cls === "timeout"
        ? `no answer within ${fn.timeoutMs} ms`
        : cls === "too_large"
          ? `the answer is larger than ${FUNCTION_LIMITS.responseBytes / 1024} KB`
          : err instanceof OutboundError
            ? err.message
            : "the call failed";
    return { id, status, statusCode: null, durationMs: took(), body: null, error: message };
  }
}

export function shorten(text: string | null, max: number): string | null {
  if (text === null) return null;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

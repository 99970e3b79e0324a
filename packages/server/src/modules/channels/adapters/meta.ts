// What WhatsApp, Messenger and Instagram share, as Meta documents it for Webhooks and the Graph API:
// the subscription handshake (GET hub.mode=subscribe & hub.verify_token → echo hub.challenge), the
// payload signature (X-Hub-Signature-256: sha256=HMAC-SHA256(app secret, raw body)), and the Graph API's
// error object ({"error":{"message","type","code","error_subcode","fbtrace_id"}}).
import { createHmac, randomBytes } from "node:crypto";
import type { AppContext } from "../../../context.ts";
import { configObject, invalid, text } from "./fields.ts";
import { callProvider, failedAnswer, sameSecret } from "./provider-http.ts";
import type { DecryptedChannel, InboundCheck, InboundReply, InboundRequest, SendOutcome } from "./types.ts";

export const DEFAULT_GRAPH_VERSION = "v21.0";

/** Graph error codes that mean the token is no longer good (expired, revoked, wrong app). */
const TOKEN_ERROR_CODES = new Set([190, 102, 463, 467]);

export function graphVersionOf(obj: Record<string, unknown>): string {
  const version = text(obj, "graphVersion", { max: 10, fallback: DEFAULT_GRAPH_VERSION })!;
  if (!/^v\d{1,2}\.\d$/.test(version)) throw invalid("config.graphVersion must look like v21.0");
  return version;
}

/** A secret config value: given, kept from before, or (for a verify token only) generated. */
export function secretField(
  obj: Record<string, unknown>,
  previous: Record<string, unknown> | undefined,
  key: string,
  opts: { generate?: boolean; max?: number } = {},
): string {
  const given = text(obj, key, { max: opts.max ?? 1000 });
  if (given) return given;
  const kept = previous?.[key];
  if (typeof kept === "string" && kept !== "") return kept;
  if (opts.generate) return randomBytes(18).toString("base64url");
  throw invalid(`config.${key} is required`);
}

/**
 * A Meta channel's config: its numeric id (`idKey`: phoneNumberId or pageId) and Graph version, and
 * its three secrets (the token under `tokenKey`, the app secret, the verify token). An update names
 * only what changes.
 */
export function parseMetaConfig(
  input: unknown,
  previous: { config: Record<string, unknown>; secrets: Record<string, unknown> } | undefined,
  keys: { idKey: string; idHint: string; tokenKey: string },
): { config: Record<string, unknown>; secrets: Record<string, unknown> } {
  const given = configObject(input, [keys.idKey, keys.tokenKey, "appSecret", "verifyToken", "graphVersion"]);
  const merged = { ...previous?.config, ...given };
  const id = text(merged, keys.idKey, { max: 30, required: true })!;
  if (!/^\d{5,30}$/.test(id)) throw invalid(`config.${keys.idKey} must be ${keys.idHint}`);
  return {
    config: { [keys.idKey]: id, graphVersion: graphVersionOf(merged) },
    secrets: {
      [keys.tokenKey]: secretField(given, previous?.secrets, keys.tokenKey),
      appSecret: secretField(given, previous?.secrets, "appSecret", { max: 200 }),
      verifyToken: secretField(given, previous?.secrets, "verifyToken", { generate: true, max: 200 }),
    },
  };
}

export function verifyMetaSubscription(
  channel: DecryptedChannel,
  query: Record<string, string>,
): InboundReply {
  const token = channel.secrets.verifyToken;
  if (
    query["hub.mode"] !== "subscribe" ||
    typeof token !== "string" ||
    !sameSecret(query["hub.verify_token"], token)
  ) {
    return {
      status: 403,
      contentType: "application/json",
      body: JSON.stringify({
        error: {
          code: "FORBIDDEN",
          message: "hub.mode must be subscribe and hub.verify_token this channel's",
        },
      }),
    };
  }
  return { status: 200, contentType: "text/plain", body: query["hub.challenge"] ?? "" };
}

export function authenticateMeta(channel: DecryptedChannel, req: InboundRequest): InboundCheck {
  const secret = channel.secrets.appSecret;
  const header = req.headers["x-hub-signature-256"];
  if (typeof secret !== "string" || !header?.startsWith("sha256=")) {
    return { ok: false, status: 401, message: "X-Hub-Signature-256 is missing" };
  }
  const expected = `sha256=${createHmac("sha256", secret).update(req.rawBody).digest("hex")}`;
  if (!sameSecret(header.toLowerCase(), expected)) {
    return { ok: false, status: 401, message: "X-Hub-Signature-256 does not match the body" };
  }
  try {
    return { ok: true, payload: JSON.parse(req.rawBody.toString("utf8")) };
  } catch {
    return { ok: false, status: 400, message: "The body is not JSON" };
  }
}

interface GraphError {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  error_data?: { details?: string };
}

export function graphErrorOf(json: unknown): GraphError | null {
  const error = (json as { error?: unknown } | null)?.error;
  return error && typeof error === "object" ? (error as GraphError) : null;
}

/** POST to the Graph API with the channel's token; a success's JSON, or the outcome of a failure. */
export async function graphPost(
  ctx: AppContext,
  product: string,
  path: string,
  token: string,
  body: unknown,
): Promise<{ ok: true; json: unknown } | { ok: false; outcome: Extract<SendOutcome, { ok: false }> }> {
  const call = await callProvider(ctx, {
    url: `${ctx.config.providers.metaGraphUrl}/${path}`,
    headers: { authorization: `Bearer ${token}` },
    json: body,
  });
  if (!call.ok) return call;
  const { status, json } = call.answer;
  if (status >= 200 && status < 300) return { ok: true, json };
  const error = graphErrorOf(json);
  const detail = error
    ? `(#${error.code ?? "?"}) ${error.message ?? "error"}${error.error_data?.details ? `: ${error.error_data.details}` : ""}`
    : call.answer.text.slice(0, 200);
  const tokenRefused = status === 401 || (error?.code !== undefined && TOKEN_ERROR_CODES.has(error.code));
  return { ok: false, outcome: failedAnswer(product, status, detail, { credentialsRefused: tokenRefused }) };
}

/** Messages older than the window cannot be answered free-form (WhatsApp, Messenger, Instagram). */
export function outsideWindow(product: string): Extract<SendOutcome, { ok: false }> {
  return {
    ok: false,
    retryable: false,
    errorClass: "outside_window",
    message:
      `${product} accepts free-form replies only within 24 hours of the customer's last message; ` +
      "this conversation's window is closed",
  };
}

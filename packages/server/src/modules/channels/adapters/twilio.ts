// The `twilio_sms` channel: SMS and MMS through Twilio's Programmable Messaging. Its config is the
// account SID, the auth token (the one secret) and the sender: a phone number (`from`) or a Messaging
// Service (`messagingServiceSid`), exactly one. Twilio posts incoming messages and status callbacks
// form-encoded to the channel's inbound URL, signed with X-Twilio-Signature (HMAC-SHA1 of the URL it
// called and the sorted parameters, keyed with the auth token: twilio's own `validateRequest` checks
// it); it wants TwiML back, an empty <Response/> sends nothing. Sending is one POST on the Messages
// resource, with HTTP Basic auth (account SID : auth token) and the inbound URL as StatusCallback.
// Twilio's default opt-out keywords come back as opt-out and opt-in events besides the message.
// Docs: https://www.twilio.com/docs/messaging/api/message-resource,
// https://www.twilio.com/docs/usage/webhooks/messaging-webhooks,
// https://www.twilio.com/docs/usage/security#validating-requests,
// https://help.twilio.com/articles/223134027 (the opt-out keywords).
// Only the webhooks module of the SDK is loaded (not the whole client): it needs nothing but node's crypto.
import { validateRequest } from "twilio/lib/webhooks/webhooks.js";
import type { AppContext } from "../../../context.ts";
import { MAX_MEDIA_BYTES } from "../../messaging/media/sniff.ts";
import { configObject, invalid } from "./fields.ts";
import { callProvider, failedAnswer, fetchBytes } from "./provider-http.ts";
import type { ChannelAdapter, DecryptedChannel, InboundEvent, MediaRef } from "./types.ts";

const KEYS = ["accountSid", "authToken", "from", "messagingServiceSid"] as const;

/** Twilio's default opt-out keywords (the whole message, trimmed, any case). */
const OPT_OUT = new Set(["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"]);
/** Twilio's default opt-in keywords. */
const OPT_IN = new Set(["START", "YES", "UNSTOP"]);
/** Twilio's default help keywords: Twilio answers them; they change nothing here. */
const HELP = new Set(["HELP", "INFO"]);

/** What the common delivery ErrorCodes of a status callback mean (https://www.twilio.com/docs/api/errors). */
const ERROR_MEANINGS: Record<string, string> = {
  "30003": "Unreachable destination handset",
  "30004": "Message blocked",
  "30005": "Unknown destination handset",
  "30006": "Landline or unreachable carrier",
  "30007": "Message filtered",
  "30008": "Unknown error",
  "21610": "Attempt to send to unsubscribed recipient",
  "21211": "Invalid 'To' phone number",
};

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

const E164 = /^\+[1-9]\d{6,14}$/;

export interface TwilioConfig {
  accountSid: string;
  from?: string;
  messagingServiceSid?: string;
}

/** A SID: its two-letter prefix and 32 hex digits (the prefix as Twilio writes it, the hex lower case). */
function sid(value: unknown, key: string, prefix: "AC" | "MG"): string {
  if (value === undefined || value === null) throw invalid(`config.${key} is required`);
  const v = typeof value === "string" ? value.trim() : value;
  if (typeof v !== "string" || !new RegExp(`^${prefix}[0-9a-f]{32}$`, "i").test(v)) {
    throw invalid(`config.${key} must be a Twilio SID like ${prefix}0123456789abcdef0123456789abcdef`);
  }
  return prefix + v.slice(2).toLowerCase();
}

function phoneNumber(value: unknown): string {
  const v = typeof value === "string" ? value.trim().replace(/[\s().-]/g, "") : value;
  if (typeof v !== "string" || !E164.test(v)) {
    throw invalid("config.from must be a phone number in E.164 form, like +14155550100");
  }
  return v;
}

export function parseTwilioConfig(
  input: unknown,
  previous?: { config: Record<string, unknown>; secrets: Record<string, unknown> },
): { config: TwilioConfig; secrets: { authToken: string } } {
  const given = configObject(input, KEYS);
  const has = (key: string) => given[key] !== undefined && given[key] !== null;

  const accountSid = sid(
    has("accountSid") ? given.accountSid : previous?.config.accountSid,
    "accountSid",
    "AC",
  );

  // A secret left out keeps its value.
  const token = has("authToken") ? given.authToken : previous?.secrets.authToken;
  if (typeof token !== "string" || !/^[0-9a-f]{32}$/i.test(token.trim())) {
    throw invalid("config.authToken must be the account's auth token: 32 hex characters");
  }

  // The sender: the one given replaces the previous one (a number can become a Messaging Service).
  const sender = has("from") || has("messagingServiceSid") ? given : (previous?.config ?? {});
  const hasFrom = sender.from !== undefined && sender.from !== null;
  const hasService = sender.messagingServiceSid !== undefined && sender.messagingServiceSid !== null;
  if (hasFrom === hasService) {
    throw invalid(
      "config needs exactly one of from (the Twilio number, like +14155550100) and messagingServiceSid (MG…)",
    );
  }
  const config: TwilioConfig = hasFrom
    ? { accountSid, from: phoneNumber(sender.from) }
    : { accountSid, messagingServiceSid: sid(sender.messagingServiceSid, "messagingServiceSid", "MG") };
  return { config, secrets: { authToken: token.trim() } };
}

/** The channel's inbound URL, as Twilio knows it (the same as the channel view's inboundUrl). */
function inboundUrlOf(ctx: AppContext, channel: DecryptedChannel): string {
  const base = (ctx.config.publicUrl ?? `https://localhost:${ctx.config.port}`).replace(/\/+$/, "");
  return `${base}/v1/channels/${channel.id}/inbound`;
}

function credentials(channel: DecryptedChannel): { accountSid: string; authToken: string } {
  return {
    accountSid: String(channel.config.accountSid ?? ""),
    authToken: String(channel.secrets.authToken ?? ""),
  };
}

function basicAuth(channel: DecryptedChannel): string {
  const { accountSid, authToken } = credentials(channel);
  return `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;
}

/** A form body as a flat object; a repeated key keeps its first value. */
function formParams(raw: Buffer): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(raw.toString("utf8"))) {
    if (!Object.hasOwn(params, key)) params[key] = value;
  }
  return params;
}

function field(payload: Record<string, unknown>, key: string): string | null {
  const v = payload[key];
  return typeof v === "string" && v !== "" ? v : null;
}

function statusEvent(payload: Record<string, unknown>, status: string): InboundEvent[] {
  const providerMessageId = field(payload, "MessageSid") ?? field(payload, "SmsSid");
  if (!providerMessageId) return [];
  switch (status) {
    case "sent":
    case "delivered":
    case "read":
      return [{ kind: "status", providerMessageId, status }];
    case "undelivered":
    case "failed": {
      const code = field(payload, "ErrorCode");
      const meaning = code ? ERROR_MEANINGS[code] : undefined;
      const message = code
        ? `Twilio error ${code}${meaning ? `: ${meaning}` : ""}`
        : `Twilio reported the message ${status}`;
      return [
        { kind: "status", providerMessageId, status: "failed", error: { code: code ?? status, message } },
      ];
    }
    default:
      // queued, accepted, scheduled, sending, canceled, partially_delivered…: nothing to record.
      return [];
  }
}

function messageEvents(payload: Record<string, unknown>): InboundEvent[] {
  const messageSid = field(payload, "MessageSid") ?? field(payload, "SmsSid");
  const from = field(payload, "From");
  if (!messageSid || !from) return [];
  const body = typeof payload.Body === "string" ? payload.Body : "";
  // An MMS may carry up to 10 attachments; the message keeps the first (Parley's messages have one).
  const numMedia = Number.parseInt(field(payload, "NumMedia") ?? "0", 10);
  const mediaUrl = numMedia > 0 ? field(payload, "MediaUrl0") : null;
  const media: MediaRef | null = mediaUrl
    ? { ref: mediaUrl, contentType: field(payload, "MediaContentType0") }
    : null;
  // SMS senders are phone numbers; a short code or an alphanumeric sender is kept by its address.
  const contact = E164.test(from) ? { phone: from } : { externalId: `tw:${from}` };
  const keyword = body.trim().toUpperCase();
  const providerKeyword = OPT_OUT.has(keyword) || OPT_IN.has(keyword) || HELP.has(keyword);
  const events: InboundEvent[] = [
    { kind: "message", externalId: `tw:${messageSid}`, address: from, contact, body, media, providerKeyword },
  ];
  if (E164.test(from) && OPT_OUT.has(keyword)) events.push({ kind: "opt_out", phone: from });
  if (E164.test(from) && OPT_IN.has(keyword)) events.push({ kind: "opt_in", phone: from });
  return events;
}

export const twilioAdapter: ChannelAdapter = {
  type: "twilio_sms",
  secretKeys: ["authToken"],

  parseConfig(input, previous) {
    const { config, secrets } = parseTwilioConfig(input, previous);
    return { config: { ...config }, secrets: { ...secrets } };
  },

  authenticate(channel, req) {
    const { accountSid, authToken } = credentials(channel);
    const signature = req.headers["x-twilio-signature"];
    if (!signature) return { ok: false, status: 403, message: "X-Twilio-Signature is missing" };
    const params = formParams(req.rawBody);
    let valid = false;
    try {
      valid = authToken !== "" && validateRequest(authToken, signature, req.publicUrl, params);
    } catch {
      valid = false;
    }
    if (!valid) {
      return {
        ok: false,
        status: 403,
        message: "X-Twilio-Signature does not match this channel's auth token",
      };
    }
    if (params.AccountSid !== accountSid) {
      return { ok: false, status: 403, message: "AccountSid is not this channel's account" };
    }
    return { ok: true, payload: params };
  },

  acceptedReply: { status: 200, contentType: "text/xml", body: EMPTY_TWIML },

  parseInbound(payload) {
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return [];
    const p = payload as Record<string, unknown>;
    const status = field(p, "MessageStatus");
    if (status && status !== "received") return statusEvent(p, status);
    return messageEvents(p);
  },

  async fetchMedia(ctx, channel, media) {
    // Twilio's media URLs are on its API host (and may redirect to its storage, where the guard drops
    // the credentials); the credentials go to the configured Twilio API origin only.
    const sameOrigin = (() => {
      try {
        return new URL(media.ref).origin === new URL(ctx.config.providers.twilioApiUrl).origin;
      } catch {
        return false;
      }
    })();
    return fetchBytes(
      ctx,
      media.ref,
      sameOrigin ? { authorization: basicAuth(channel) } : {},
      MAX_MEDIA_BYTES,
    );
  },

  async send(ctx, channel, message, target) {
    const to = target.address ?? target.phone;
    if (!to) {
      return {
        ok: false,
        retryable: false,
        errorClass: "no_address",
        message: "the contact has no phone number to text",
      };
    }
    const { accountSid } = credentials(channel);
    const form: Record<string, string> = { To: to };
    if (typeof channel.config.messagingServiceSid === "string") {
      form.MessagingServiceSid = channel.config.messagingServiceSid;
    } else {
      form.From = String(channel.config.from ?? "");
    }
    form.Body = message.body;
    form.StatusCallback = inboundUrlOf(ctx, channel);
    if (target.mediaUrl) form.MediaUrl = target.mediaUrl;

    const call = await callProvider(ctx, {
      url: `${ctx.config.providers.twilioApiUrl}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`,
      method: "POST",
      headers: { authorization: basicAuth(channel) },
      form,
    });
    if (!call.ok) return call.outcome;
    const { status, json, text } = call.answer;
    const answer = (typeof json === "object" && json !== null ? json : {}) as Record<string, unknown>;
    if (status >= 200 && status < 300) {
      return typeof answer.sid === "string" ? { ok: true, providerMessageId: answer.sid } : { ok: true };
    }
    // Twilio's error answer: {code, message, more_info, status}.
    const code = answer.code === undefined || answer.code === null ? null : String(answer.code);
    const said = typeof answer.message === "string" ? answer.message : text.slice(0, 300);
    const detail = code ? `Twilio error ${code}: ${said}` : said;
    // 21610: the number texted STOP to this sender, possibly before Parley knew it (or on another app).
    if (code === "21610") {
      return {
        ...failedAnswer("Twilio", status, detail),
        errorClass: "opted_out",
        recipientOptedOut: true,
      };
    }
    return failedAnswer("Twilio", status, detail, { credentialsRefused: status === 401 || code === "20003" });
  },
};

// Verifying what Parley POSTs to your URLs (replies on the custom channel webhook, account events on the
// events webhook): Standard Webhooks signatures, checked by the `standardwebhooks` package.
import { Webhook, WebhookVerificationError } from "standardwebhooks";

/** A reply on a custom channel (bot, person in the inbox, or API send), posted to the webhook URL. */
export interface MessageOutboundEvent {
  type: "message.outbound";
  contactId: string;
  messageId: string;
  /** The account owner's user id. */
  userId: string;
  body: string;
  /** The contact's id on your platform: the `fromId` of its incoming messages. */
  toId: string;
  channel: string;
  sender: "bot" | "human" | "api";
  campaignId: string | null;
  createdAt: string;
  media: { url: string; contentType: string | null } | null;
}

/** A sub-account's balance fell below its threshold; the same `idempotency_key` on every delivery. */
export interface AutoRechargeEvent {
  type: "subaccount.auto_recharge";
  idempotency_key: string;
  sub_account_id: string;
  email: string;
  balance: number;
  threshold: number;
  recharge_amount: number;
  created_at: string;
}

/** A conversation needs a person (e.g. the bot could not answer or credits ran out). */
export interface HumanAlertEvent {
  type: "conversation.human_alert";
  conversation_id: string;
  contact_id: string;
  reason: string;
  message_id: string | null;
  created_at: string;
}

/** The signed test event sent from the settings page. */
export interface TestEvent {
  type: "test";
  timestamp: string;
  data: { accountId: string; message: string };
}

export type ParleyEvent = MessageOutboundEvent | AutoRechargeEvent | HumanAlertEvent | TestEvent;

export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | Iterable<[string, string]>;

/** Thrown for a missing or wrong signature, or a timestamp more than 5 minutes away from now. */
export class WebhookError extends Error {
  override readonly name = "WebhookError";
}

function headerRecord(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries: Iterable<[string, unknown]> =
    typeof (headers as Headers).entries === "function" && typeof (headers as Headers).get === "function"
      ? (headers as Headers).entries()
      : Symbol.iterator in headers
        ? (headers as Iterable<[string, string]>)
        : Object.entries(headers);
  for (const [k, v] of entries) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(",") : String(v);
  }
  return out;
}

/**
 * Checks a delivery's Standard Webhooks signature against the account's `whsec_…` secret (settings) and
 * returns the parsed event. `rawBody` must be the bytes as received, before any JSON parsing. Throws
 * `WebhookError` on a bad or missing signature, or a timestamp outside the 5-minute tolerance.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
): ParleyEvent {
  const h = headerRecord(headers);
  const payload = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  try {
    return new Webhook(secret).verify(payload, {
      "webhook-id": h["webhook-id"] ?? "",
      "webhook-timestamp": h["webhook-timestamp"] ?? "",
      "webhook-signature": h["webhook-signature"] ?? "",
    }) as ParleyEvent;
  } catch (err) {
    if (err instanceof WebhookVerificationError) throw new WebhookError(err.message, { cause: err });
    throw err;
  }
}

/** Narrowing helper: `if (isEvent(e, "subaccount.auto_recharge")) e.recharge_amount`. */
export function isEvent<T extends ParleyEvent["type"]>(
  event: ParleyEvent,
  type: T,
): event is Extract<ParleyEvent, { type: T }> {
  return event.type === type;
}

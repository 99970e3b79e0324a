// The public JSON of a message (GET /v1/messages/{id}, history pages, the inbox).
import { Type } from "typebox";
import type { DeliveryAttemptRow, MessageRow } from "../../platform/db/schema.ts";
import { iso } from "../../platform/text.ts";

export interface DeliveryError {
  statusCode: number | null;
  errorClass: string;
  message: string;
  responseBody: string | null;
  at: string;
}

/** A message's stored error (the `error` column): what every delivery path and a provider's status write. */
export function errorJson(a: {
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

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const DeliveryAttemptJson = Type.Object({
  id: Type.String(),
  attemptedAt: Type.String(),
  durationMs: Type.Integer(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  errorClass: Nullable(Type.String()),
  errorMessage: Nullable(Type.String()),
  responseBody: Nullable(Type.String()),
  url: Type.Union([Type.String(), Type.Null()], { description: "Where the attempt was sent" }),
  attemptNumber: Type.Union([Type.Integer(), Type.Null()], { description: "1 for the first attempt" }),
  trigger: Type.Union([Type.Literal("scheduled"), Type.Literal("manual"), Type.Null()], {
    description: "scheduled: first attempt or retry schedule; manual: a resend",
  }),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()], {
    description: "When this attempt failed and another is scheduled: when",
  }),
});

export const MessageJson = Type.Object({
  id: Type.String(),
  conversationId: Type.String(),
  contactId: Type.String(),
  direction: Type.Union([Type.Literal("inbound"), Type.Literal("outbound")]),
  type: Type.Union([Type.Literal("text"), Type.Literal("reaction")]),
  sender: Type.Union([
    Type.Literal("contact"),
    Type.Literal("bot"),
    Type.Literal("human"),
    Type.Literal("api"),
  ]),
  body: Type.String(),
  status: Type.String({
    description:
      "inbound: received; outbound: pending, sent, failed, and on a provider channel delivered and read (its status callbacks)",
  }),
  channel: Nullable(Type.String()),
  campaignId: Nullable(Type.String()),
  messageSid: Nullable(Type.String()),
  fromId: Nullable(Type.String()),
  toId: Nullable(Type.String()),
  reactionTo: Type.Union([
    Type.Object({ messageSid: Type.String(), messageId: Nullable(Type.String()) }),
    Type.Null(),
  ]),
  media: Type.Union([
    Type.Object({
      state: Type.Union([Type.Literal("pending"), Type.Literal("stored"), Type.Literal("rejected")]),
      contentType: Nullable(Type.String()),
      size: Type.Union([Type.Integer(), Type.Null()]),
      sha256: Nullable(Type.String()),
      reason: Nullable(Type.String()),
      url: Nullable(Type.String({ description: "Source URL (not shown for embedded data URIs)" })),
    }),
    Type.Null(),
  ]),
  error: Type.Union([
    Type.Object({
      statusCode: Type.Union([Type.Integer(), Type.Null()]),
      errorClass: Type.String(),
      message: Type.String(),
      responseBody: Nullable(Type.String()),
      at: Type.String(),
    }),
    Type.Null(),
  ]),
  deliveryAttempts: Type.Array(DeliveryAttemptJson),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export function attemptView(a: DeliveryAttemptRow) {
  return {
    id: a.id,
    attemptedAt: iso(a.attempted_at),
    durationMs: a.duration_ms,
    statusCode: a.status_code,
    errorClass: a.error_class,
    errorMessage: a.error_message,
    responseBody: a.response_body,
    url: a.url,
    attemptNumber: a.attempt_number,
    trigger: a.trigger,
    nextAttemptAt: a.next_attempt_at === null ? null : iso(a.next_attempt_at),
  };
}

export function messageView(m: MessageRow, attempts: DeliveryAttemptRow[] = []) {
  return {
    id: m.id,
    conversationId: m.conversation_id,
    contactId: m.contact_id,
    direction: m.direction,
    type: m.type,
    sender: m.sender,
    body: m.body,
    status: m.status,
    channel: m.channel,
    campaignId: m.campaign_id,
    messageSid: m.external_id,
    fromId: m.from_id,
    toId: m.to_id,
    reactionTo: m.reaction_to_external_id
      ? { messageSid: m.reaction_to_external_id, messageId: m.reaction_to_message_id }
      : null,
    media: m.media_state
      ? {
          state: m.media_state,
          contentType: m.media_content_type,
          size: m.media_size,
          sha256: m.media_sha256,
          reason: m.media_reason,
          url: m.media_url && !m.media_url.startsWith("data:") ? m.media_url : null,
        }
      : null,
    error: m.error ? (JSON.parse(m.error) as DeliveryError) : null,
    deliveryAttempts: attempts.map(attemptView),
    createdAt: iso(m.created_at),
    updatedAt: iso(m.updated_at),
  };
}

// How any part of Parley sends something out, inside the caller's transaction: an outbound message
// (bot reply, a person's reply, an API send) or an account event (auto-recharge, human alert). Both
// only write rows and enqueue a job; the delivery jobs do the HTTP work after the commit.
import type { Kysely, Transaction } from "kysely";
import type { Database, MessageRow } from "../../platform/db/schema.ts";
import { newId } from "../../platform/ids.ts";
import { enqueueJobs, type JobInput } from "../../platform/jobs.ts";
import { touchConversations } from "../conversations/repo.ts";
import { insertMessages } from "../messaging/repo.ts";
import type { Suggestion } from "../messaging/suggestions.ts";
import { deliveryJob, eventDeliveryJob } from "./jobs.ts";
import { insertEvent } from "./repo.ts";

type Q = Kysely<Database> | Transaction<Database>;

export { DELIVERY_JOB, EVENT_DELIVERY_JOB } from "./jobs.ts";

export interface OutboundMessageInput {
  conversationId: string;
  contactId: string;
  body: string;
  sender: "bot" | "human" | "api";
  /** The custom channel label; the contact's fromId becomes the event's toId. */
  channel: string | null;
  toId: string | null;
  campaignId?: string | null;
  /** The person who typed a human reply. */
  userId?: string | null;
  /** Set when the message must be unique (a bot reply to one inbound message uses "bot:<inboundId>"). */
  externalId?: string | null;
  /**
   * A bot message: whether a reply answered, fell back, or handed over to a person (the dashboard counts
   * them), a campaign's follow-up after the customer went quiet, or its away message outside business
   * hours.
   */
  botOutcome?: "answer" | "fallback" | "handover" | "follow_up" | "away" | "choices" | null;
  /** The choices a bot's "Did you mean" offers: channels show them as buttons. */
  suggestions?: Suggestion[] | null;
  /** A WhatsApp template to send instead of free text (an outgoing campaign's first message). */
  template?: { name: string; language: string; parameters: string[] } | null;
  /** A person's attachment, already checked and in the blob store (messaging/media/reply-attachment.ts). */
  media?: { contentType: string; size: number; sha256: string } | null;
  at?: number;
}

/** Stores the outbound message as `pending` and queues its delivery, in the caller's transaction. */
export async function createOutboundMessage(
  db: Q,
  accountId: string,
  input: OutboundMessageInput,
): Promise<MessageRow> {
  return (await createOutboundMessages(db, accountId, [input]))[0] as MessageRow;
}

/**
 * createOutboundMessage for several messages of one account (bot replies due together): one insert,
 * one conversation update per distinct time, one job insert.
 */
export async function createOutboundMessages(
  db: Q,
  accountId: string,
  inputs: OutboundMessageInput[],
  /** How the delivery jobs are queued (a worker's job may queue them to run itself: enqueueHere). */
  enqueue: (db: Q, jobs: JobInput[]) => Promise<unknown> = enqueueJobs,
): Promise<MessageRow[]> {
  const fallbackNow = Date.now();
  const rows = inputs.map((input) => outboundRow(accountId, input, input.at ?? fallbackNow));
  await insertMessages(db, rows);
  for (const [at, sameTime] of Map.groupBy(rows, (row) => row.created_at)) {
    await touchConversations(db, accountId, [...new Set(sameTime.map((row) => row.conversation_id))], at);
  }
  await enqueue(
    db,
    rows.map((row) => deliveryJob.create({ messageId: row.id }, { accountId })),
  );
  return rows;
}

function outboundRow(accountId: string, input: OutboundMessageInput, now: number): MessageRow {
  return {
    id: newId("message"),
    account_id: accountId,
    conversation_id: input.conversationId,
    contact_id: input.contactId,
    direction: "outbound",
    type: "text",
    sender: input.sender,
    body: input.body,
    status: "pending",
    channel: input.channel,
    campaign_id: input.campaignId ?? null,
    external_id: input.externalId ?? null,
    from_id: null,
    to_id: input.toId,
    reaction_to_message_id: null,
    reaction_to_external_id: null,
    media_url: null,
    media_content_type: input.media?.contentType ?? null,
    media_state: input.media ? "stored" : null,
    media_size: input.media?.size ?? null,
    media_sha256: input.media?.sha256 ?? null,
    media_reason: null,
    error: null,
    user_id: input.userId ?? null,
    bot_outcome: input.botOutcome ?? null,
    provider_message_id: null,
    template: input.template ? JSON.stringify(input.template) : null,
    suggestions: input.suggestions?.length ? JSON.stringify(input.suggestions) : null,
    sending_since: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Records an account event (e.g. `subaccount.auto_recharge`, `conversation.human_alert`) and queues its
 * signed delivery to the account's events webhook URL. The payload is stored as sent, so every retry
 * carries the same body (and the same idempotency_key when it has one).
 */
export async function enqueueAccountEvent(
  db: Q,
  accountId: string,
  type: string,
  payload: Record<string, unknown>,
  at: number = Date.now(),
): Promise<string> {
  const id = newId("event");
  await insertEvent(db, accountId, { id, type, payload: JSON.stringify({ type, ...payload }), at });
  await enqueueJobs(db, [eventDeliveryJob.create({ eventId: id }, { accountId })]);
  return id;
}

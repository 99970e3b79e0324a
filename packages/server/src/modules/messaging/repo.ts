// Conversations, messages and their delivery attempts. Account id first in every function.
import { type Insertable, type Kysely, sql, type Transaction } from "kysely";
import { param, prepared } from "../../platform/db/prepared.ts";
import type { Database, DeliveryAttemptRow, MessageRow, MessagesTable } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export type NewMessage = Insertable<MessagesTable>;

export async function insertMessage(db: Q, row: NewMessage): Promise<void> {
  await insertMessages(db, [row]);
}

/** Several messages in one statement (replies written together). */
export async function insertMessages(db: Q, rows: NewMessage[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto("messages").values(rows).execute();
}

export async function findMessageById(
  db: Q,
  accountId: string,
  messageId: string,
): Promise<MessageRow | undefined> {
  return db
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", messageId)
    .executeTakeFirst();
}

export async function findMessageByExternalId(
  db: Q,
  accountId: string,
  externalId: string,
): Promise<MessageRow | undefined> {
  return db
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("external_id", "=", externalId)
    .executeTakeFirst();
}

/** Attempts of several messages in one query (no N+1), oldest first, grouped by message id. */
export async function attemptsByMessage(
  db: Q,
  accountId: string,
  messageIds: string[],
): Promise<Map<string, DeliveryAttemptRow[]>> {
  const out = new Map<string, DeliveryAttemptRow[]>();
  if (messageIds.length === 0) return out;
  const rows = await db
    .selectFrom("delivery_attempts")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("message_id", "in", messageIds)
    .orderBy("id")
    .execute();
  for (const r of rows) {
    const list = out.get(r.message_id ?? "") ?? [];
    list.push(r);
    out.set(r.message_id ?? "", list);
  }
  return out;
}

/**
 * Inserts an inbound message unless (account, external_id) already exists: the unique index
 * messages_external_uq decides, so concurrent repeats cannot both insert. Returns false on a repeat.
 * ON CONFLICT DO NOTHING keeps a PostgreSQL transaction usable after the conflict.
 */
const MESSAGE_COLUMNS = [
  "id",
  "account_id",
  "conversation_id",
  "contact_id",
  "direction",
  "type",
  "sender",
  "body",
  "status",
  "channel",
  "campaign_id",
  "external_id",
  "from_id",
  "to_id",
  "reaction_to_message_id",
  "reaction_to_external_id",
  "media_url",
  "media_content_type",
  "media_state",
  "media_size",
  "media_sha256",
  "media_reason",
  "error",
  "user_id",
  "created_at",
  "updated_at",
] as const satisfies ReadonlyArray<keyof MessagesTable>;

// No RETURNING: the changed-row count says whether it was inserted, without building a result row.
const messageInsertIfNew = prepared<NewMessage, never>((db) =>
  db
    .insertInto("messages")
    .values(Object.fromEntries(MESSAGE_COLUMNS.map((c) => [c, param(c)])) as unknown as NewMessage)
    .onConflict((oc) => oc.doNothing()),
);

/** Inserts unless (account, external_id) exists: true when this row was inserted. */
export async function insertMessageIfNew(db: Q, row: NewMessage): Promise<boolean> {
  return (await messageInsertIfNew.run(db, row)) > 0;
}

/** A contact's messages in id order (oldest first), starting after `afterId`, `limit` rows. */
export async function listMessagesByContact(
  db: Q,
  accountId: string,
  contactId: string,
  afterId: string | null,
  limit: number,
): Promise<MessageRow[]> {
  let q = db
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId);
  if (afterId !== null) q = q.where("id", ">", afterId);
  return q.orderBy("id", "asc").limit(limit).execute();
}

/** Records a fetched attachment; only a `pending` one changes (a job that runs twice changes nothing). */
export async function markMediaStored(
  db: Q,
  accountId: string,
  messageId: string,
  media: { contentType: string; size: number; sha256: string },
  at: number = Date.now(),
): Promise<boolean> {
  const result = await db
    .updateTable("messages")
    .set({
      media_state: "stored",
      media_content_type: media.contentType,
      media_size: media.size,
      media_sha256: media.sha256,
      media_reason: null,
      updated_at: at,
    })
    .where("account_id", "=", accountId)
    .where("id", "=", messageId)
    .where("media_state", "=", "pending")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function markMediaRejected(
  db: Q,
  accountId: string,
  messageId: string,
  reason: string,
  at: number = Date.now(),
): Promise<boolean> {
  const result = await db
    .updateTable("messages")
    .set({ media_state: "rejected", media_reason: reason, updated_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", messageId)
    .where("media_state", "=", "pending")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Sets the delivery outcome; a failure never turns a `sent` message back (attempts racing after a lease expiry). */
const messageSent = prepared<{ accountId: string; id: string; at: number }, never>((db) =>
  db
    .updateTable("messages")
    .set({ status: "sent", error: null, updated_at: param<number>("at") })
    .where("account_id", "=", param<string>("accountId"))
    .where("id", "=", param<string>("id")),
);

const messageFailed = prepared<{ accountId: string; id: string; at: number; error: string | null }, never>(
  (db) =>
    db
      .updateTable("messages")
      .set({ status: "failed", error: param<string | null>("error"), updated_at: param<number>("at") })
      .where("account_id", "=", param<string>("accountId"))
      .where("id", "=", param<string>("id"))
      // A late failure never overwrites a success.
      .where("status", "<>", "sent"),
);

export async function setDeliveryOutcome(
  db: Q,
  accountId: string,
  messageId: string,
  outcome: { status: "sent" | "failed"; error: string | null; at: number },
): Promise<void> {
  if (outcome.status === "sent") await messageSent.run(db, { accountId, id: messageId, at: outcome.at });
  else await messageFailed.run(db, { accountId, id: messageId, at: outcome.at, error: outcome.error });
}

/**
 * Before a provider call: claims the hand-over of the message (true), unless another run holds it or
 * died holding it (false). A run that dies before its outcome commits leaves the claim, so the next
 * run does not send the message a second time (providers take no idempotency key); a run whose job
 * lease ran out while a slow call was in flight is not doubled either. setSendingDone clears it with
 * the outcome.
 */
export async function claimSending(
  db: Q,
  accountId: string,
  messageId: string,
  at: number,
): Promise<boolean> {
  const res = await db
    .updateTable("messages")
    .set({ sending_since: at })
    .where("account_id", "=", accountId)
    .where("id", "=", messageId)
    .where("sending_since", "is", null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Ends a claimed hand-over, with the provider's id for the message when it took it (one statement). */
export async function setSendingDone(
  db: Q,
  accountId: string,
  messageId: string,
  providerMessageId: string | null,
): Promise<void> {
  await db
    .updateTable("messages")
    .set(
      providerMessageId
        ? { sending_since: null, provider_message_id: providerMessageId }
        : { sending_since: null },
    )
    .where("account_id", "=", accountId)
    .where("id", "=", messageId)
    .execute();
}

/** How far an outbound message has got: a provider's status never moves it back. */
const PROVIDER_STATUS_RANK: Record<string, number> = { pending: 0, sent: 1, delivered: 2, read: 3 };

/**
 * A provider's status callback for the outbound message it knows by its own id: sent, delivered and
 * read only move forward; failed (with the provider's error) only replaces pending or sent. Answers the
 * message's conversation when the message was found (whether or not it moved), else undefined.
 */
export async function applyProviderStatus(
  db: Q,
  accountId: string,
  providerMessageId: string,
  status: "sent" | "delivered" | "read" | "failed",
  error: string | null,
  at: number,
): Promise<{ messageId: string; conversationId: string; changed: boolean } | undefined> {
  const m = await db
    .selectFrom("messages")
    .select(["id", "conversation_id", "status"])
    .where("account_id", "=", accountId)
    .where("provider_message_id", "=", providerMessageId)
    .where("direction", "=", "outbound")
    .executeTakeFirst();
  if (!m) return undefined;
  const current = PROVIDER_STATUS_RANK[m.status];
  const moves =
    status === "failed"
      ? m.status === "pending" || m.status === "sent"
      : current !== undefined && (PROVIDER_STATUS_RANK[status] ?? 0) > current;
  if (moves) {
    await db
      .updateTable("messages")
      .set({ status, error: status === "failed" ? error : null, updated_at: at })
      .where("account_id", "=", accountId)
      .where("id", "=", m.id)
      .where("status", "=", m.status)
      .execute();
  }
  return { messageId: m.id, conversationId: m.conversation_id, changed: moves };
}

/**
 * The contact's latest message in a conversation: where a provider channel's reply goes (its from_id,
 * the provider's address) and when the customer-service window opened (its created_at).
 */
export async function lastInboundOf(
  db: Q,
  accountId: string,
  contactId: string,
  conversationId: string,
): Promise<{ from_id: string | null; created_at: number } | undefined> {
  return db
    .selectFrom("messages")
    .select(["from_id", "created_at"])
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    .where("conversation_id", "=", conversationId)
    .where("direction", "=", "inbound")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** A failed message back to `pending` for a resend; false when it is not (or no longer) failed. */
export async function markPendingForResend(
  db: Q,
  accountId: string,
  messageId: string,
  at: number,
): Promise<boolean> {
  const res = await db
    .updateTable("messages")
    .set({ status: "pending", error: null, updated_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", messageId)
    .where("direction", "=", "outbound")
    .where("status", "=", "failed")
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/**
 * The most recent custom channel label used with a contact (for a reply when none is stored). A
 * contact has one conversation, so its messages are that conversation's (messages_contact_idx).
 */
export async function lastChannelOf(db: Q, accountId: string, contactId: string): Promise<string | null> {
  const row = await db
    .selectFrom("messages")
    .select("channel")
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    .where("channel", "is not", null)
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.channel ?? null;
}

/**
 * PostgreSQL SQL setting a message's delivery outcome (a failure never overwrites a success), for the
 * delivery statement that records attempt, outcome and job end in one round trip.
 */
export function pgSetDeliveryOutcomeSql(p: {
  accountId: string;
  id: string;
  status: string;
  error: string;
  at: string;
}): string {
  return `update messages set status = ${p.status}, error = ${p.error}, updated_at = ${p.at}
    where account_id = ${p.accountId} and id = ${p.id} and (${p.status} = 'sent' or status <> 'sent')`;
}

/**
 * PostgreSQL SQL setting the delivery outcome of every message listed by `source` (columns
 * account_id, id, status, error, at); a failure never overwrites a success.
 */
export function pgSetDeliveryOutcomesFrom(source: string): string {
  return `update messages m set status = x.status, error = x.error, updated_at = x.at
    from ${source}
    where m.account_id = x.account_id and m.id = x.id and (x.status = 'sent' or m.status <> 'sent')`;
}

/**
 * Erasure of a contact: its messages go; answers their ids (for their attempts and jobs) and the
 * stored attachments they pointed at (files are removed after the commit when nothing else uses them).
 */
export async function deleteMessagesOfContact(
  db: Q,
  accountId: string,
  contactId: string,
): Promise<{ messageIds: string[]; blobs: string[] }> {
  const rows = await db
    .selectFrom("messages")
    .select(["id", "media_sha256"])
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    .execute();
  await db
    .deleteFrom("messages")
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    .execute();
  return {
    messageIds: rows.map((r) => r.id),
    blobs: [...new Set(rows.flatMap((r) => (r.media_sha256 ? [r.media_sha256] : [])))],
  };
}

/**
 * Which of these files (by SHA-256) some message of any account still uses (stored files are shared
 * by content): the orphan sweep keeps them. Found through messages_media_sha256_idx.
 */
export async function blobsInUse(db: Q, sha256s: string[]): Promise<Set<string>> {
  if (sha256s.length === 0) return new Set();
  const rows = await db
    .selectFrom("messages")
    .select("media_sha256")
    .distinct()
    .where("media_sha256", "in", sha256s)
    .execute();
  return new Set(rows.flatMap((r) => (r.media_sha256 ? [r.media_sha256] : [])));
}

/** Whether any message (of any account: stored files are shared by content) still uses this file. */
export async function blobInUse(db: Q, sha256: string): Promise<boolean> {
  const row = await db
    .selectFrom("messages")
    .select("id")
    .where("media_sha256", "=", sha256)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Message counts of an account between two times, by UTC day (86,400,000 ms, written as a literal so
 * PostgreSQL sees one expression in SELECT and GROUP BY) and kind (messages_account_time_idx). With
 * `byChannel`, also by the conversation's channel (channel_id: '' for the custom channel; each
 * conversation read by its key); without it (an account with no built-in channel) every row is the
 * custom channel's and no conversation is read.
 */
export async function messageCountsByDay(
  db: Q,
  accountId: string,
  from: number,
  to: number,
  byChannel = false,
): Promise<
  Array<{
    day: number;
    direction: string;
    status: string;
    sender: string;
    bot_outcome: string | null;
    channel_id: string;
    n: number;
  }>
> {
  const day = sql<number>`cast(m.created_at / 86400000 as integer)`;
  const channel = byChannel ? sql<string>`coalesce(cv.channel_id, '')` : sql<string>`''`;
  let q = db.selectFrom("messages as m");
  if (byChannel) {
    q = q.leftJoin("conversations as cv", (j) =>
      j.onRef("cv.id", "=", "m.conversation_id").onRef("cv.account_id", "=", "m.account_id"),
    ) as unknown as typeof q;
  }
  const rows = await q
    .select([
      day.as("day"),
      "m.direction",
      "m.status",
      "m.sender",
      "m.bot_outcome",
      channel.as("channel_id"),
      sql<number>`count(*)`.as("n"),
    ])
    .where("m.account_id", "=", accountId)
    .where("m.created_at", ">=", from)
    .where("m.created_at", "<", to)
    .where("m.type", "=", "text")
    .groupBy([
      sql`cast(m.created_at / 86400000 as integer)`,
      "m.direction",
      "m.status",
      "m.sender",
      "m.bot_outcome",
      ...(byChannel ? [sql`coalesce(cv.channel_id, '')`] : []),
    ])
    .execute();
  return rows.map((r) => ({ ...r, day: Number(r.day), n: Number(r.n) }));
}

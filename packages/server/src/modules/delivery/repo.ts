// Delivery SQL: what one delivery attempt needs in one query, outcomes, and the few updates the send
// paths make. Account id first in every function.
import type { Kysely, Transaction } from "kysely";
import type { Database, EventRow, MessageRow } from "../../platform/db/schema.ts";
import { DELIVERY_JOB } from "./outbound.ts";

type Q = Kysely<Database> | Transaction<Database>;

export type MessageForDelivery = MessageRow & {
  webhook_url: string | null;
  webhook_secret: string;
  contact_external_id: string | null;
  owner_user_id: string | null;
};

/** The message with its account's URL and secret, the contact's fromId and the owner's user id. */
export async function loadMessageForDelivery(
  db: Q,
  accountId: string,
  messageId: string,
): Promise<MessageForDelivery | undefined> {
  return db
    .selectFrom("messages as m")
    .innerJoin("accounts as a", "a.id", "m.account_id")
    .leftJoin("contacts as c", (j) =>
      j.onRef("c.id", "=", "m.contact_id").onRef("c.account_id", "=", "m.account_id"),
    )
    .selectAll("m")
    .select(["a.webhook_url", "a.webhook_secret", "c.external_id as contact_external_id"])
    .select((eb) =>
      eb
        .selectFrom("users")
        .select("users.id")
        .whereRef("users.account_id", "=", "m.account_id")
        .where("users.role", "=", "owner")
        .orderBy("users.id")
        .limit(1)
        .as("owner_user_id"),
    )
    .where("m.account_id", "=", accountId)
    .where("m.id", "=", messageId)
    .executeTakeFirst();
}

export type EventForDelivery = EventRow & { events_webhook_url: string | null; webhook_secret: string };

export async function loadEventForDelivery(
  db: Q,
  accountId: string,
  eventId: string,
): Promise<EventForDelivery | undefined> {
  return db
    .selectFrom("events as e")
    .innerJoin("accounts as a", "a.id", "e.account_id")
    .selectAll("e")
    .select(["a.events_webhook_url", "a.webhook_secret"])
    .where("e.account_id", "=", accountId)
    .where("e.id", "=", eventId)
    .executeTakeFirst();
}

/** Sets the delivery outcome; a failure never turns a `sent` message back (attempts racing after a lease expiry). */
export async function setMessageOutcome(
  db: Q,
  accountId: string,
  messageId: string,
  outcome: { status: "sent" | "failed"; error: string | null; at: number },
): Promise<void> {
  let q = db
    .updateTable("messages")
    .set({ status: outcome.status, error: outcome.error, updated_at: outcome.at })
    .where("account_id", "=", accountId)
    .where("id", "=", messageId);
  if (outcome.status === "failed") q = q.where("status", "<>", "sent");
  await q.execute();
}

export async function setEventOutcome(
  db: Q,
  accountId: string,
  eventId: string,
  outcome: { status: "sent" | "failed"; error: string | null; at: number },
): Promise<void> {
  let q = db
    .updateTable("events")
    .set({ status: outcome.status, error: outcome.error, updated_at: outcome.at })
    .where("account_id", "=", accountId)
    .where("id", "=", eventId);
  if (outcome.status === "failed") q = q.where("status", "<>", "sent");
  await q.execute();
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

/** The delivery jobs still queued or running for a message (resend only; a rare, manual action). */
export async function deliveryJobsOf(
  db: Q,
  accountId: string,
  messageId: string,
): Promise<Array<{ id: string; status: string }>> {
  return db
    .selectFrom("jobs")
    .select(["id", "status"])
    .where("status", "in", ["queued", "running"])
    .where("type", "=", DELIVERY_JOB)
    .where("account_id", "=", accountId)
    .where("payload", "=", JSON.stringify({ messageId }))
    .execute();
}

export async function deleteQueuedJobs(db: Q, jobIds: string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await db.deleteFrom("jobs").where("id", "in", jobIds).where("status", "=", "queued").execute();
}

/** Names and e-mail given with a send update an existing contact (only the fields given). */
export async function updateContactDetails(
  db: Q,
  accountId: string,
  contactId: string,
  patch: { first_name?: string; last_name?: string; email?: string },
  at: number,
): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  await db
    .updateTable("contacts")
    .set({ ...patch, updated_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", contactId)
    .execute();
}

/** A person replied: the bot stays quiet on this conversation until someone resumes it. */
export async function pauseBot(db: Q, accountId: string, conversationId: string, at: number): Promise<void> {
  await db
    .updateTable("conversations")
    .set({ bot_paused: 1, updated_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", conversationId)
    .execute();
}

/** The most recent custom channel label used in a conversation (for a reply when none is stored). */
export async function lastChannelOf(
  db: Q,
  accountId: string,
  conversationId: string,
): Promise<string | null> {
  const row = await db
    .selectFrom("messages")
    .select("channel")
    .where("account_id", "=", accountId)
    .where("conversation_id", "=", conversationId)
    .where("channel", "is not", null)
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.channel ?? null;
}

// Delivery SQL: the delivery attempts and account events this module owns. Account id first in every
// function. Messages' delivery status belongs to the messaging module (messaging/repo.ts).
import { type Kysely, sql, type Transaction } from "kysely";
import { param, prepared } from "../../platform/db/prepared.ts";
import type { Database, DeliveryAttemptRow, EventRow, MessageRow } from "../../platform/db/schema.ts";
import { newId } from "../../platform/ids.ts";

type Q = Kysely<Database> | Transaction<Database>;

export async function findEvent(db: Q, accountId: string, eventId: string): Promise<EventRow | undefined> {
  return db
    .selectFrom("events")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", eventId)
    .executeTakeFirst();
}

export async function insertEvent(
  db: Q,
  accountId: string,
  event: { id: string; type: string; payload: string; at: number },
): Promise<void> {
  await db
    .insertInto("events")
    .values({
      id: event.id,
      account_id: accountId,
      type: event.type,
      payload: event.payload,
      status: "pending",
      error: null,
      created_at: event.at,
      updated_at: event.at,
    })
    .execute();
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
  // A late failure never overwrites a success.
  if (outcome.status === "failed") q = q.where("status", "<>", "sent");
  await q.execute();
}

const attemptInsert = prepared<DeliveryAttemptRow, never>((db) =>
  db.insertInto("delivery_attempts").values({
    id: param("id"),
    account_id: param("account_id"),
    message_id: param("message_id"),
    event_id: param("event_id"),
    attempted_at: param("attempted_at"),
    duration_ms: param("duration_ms"),
    status_code: param("status_code"),
    error_class: param("error_class"),
    error_message: param("error_message"),
    response_body: param("response_body"),
    url: param("url"),
    attempt_number: param("attempt_number"),
    trigger: param("trigger"),
    next_attempt_at: param("next_attempt_at"),
  }),
);

export type NewAttempt = Omit<DeliveryAttemptRow, "id" | "account_id">;

export async function insertAttempt(db: Q, accountId: string, attempt: NewAttempt): Promise<string> {
  const id = newId("attempt");
  await attemptInsert.all(db, { id, account_id: accountId, ...attempt });
  return id;
}

/** An outbound message with everything one webhook attempt needs, read by one statement. */
export type MessageForDelivery = MessageRow & {
  webhook_url: string | null;
  webhook_secret: string;
  owner_user_id: string | null;
  contact_external_id: string | null;
  previous: number;
  /** The conversation's channel: '' (custom: the webhook) or a built-in channel's id (its adapter). */
  channel_id: string | null;
};

// Scalar sub-queries, not a join: without statistics SQLite planned the join with accounts as a scan of
// accounts and then of the account's messages.
const messageForDelivery = prepared<{ accountId: string; messageId: string }, MessageForDelivery>(
  (db) =>
    db
      .selectFrom("messages as m")
      .selectAll("m")
      .select((eb) => [
        eb
          .selectFrom("accounts as a")
          .select("a.webhook_url")
          .whereRef("a.id", "=", "m.account_id")
          .as("webhook_url"),
        eb
          .selectFrom("accounts as a")
          .select("a.webhook_secret")
          .whereRef("a.id", "=", "m.account_id")
          .as("webhook_secret"),
        eb
          .selectFrom("users as u")
          .select("u.id")
          .whereRef("u.account_id", "=", "m.account_id")
          // Literals, not bound values: with `role = ? … limit ?` SQLite ran this read ~15x slower.
          .where("u.role", "=", sql.lit("owner"))
          .orderBy("u.id")
          .limit(sql.lit(1))
          .as("owner_user_id"),
        // Outbound messages carry the contact's fromId in to_id; older rows fall back to the contact.
        eb.fn
          .coalesce(
            "m.to_id",
            eb
              .selectFrom("contacts as c")
              .select("c.external_id")
              .whereRef("c.account_id", "=", "m.account_id")
              .whereRef("c.id", "=", "m.contact_id"),
          )
          .as("contact_external_id"),
        eb
          .selectFrom("delivery_attempts as d")
          .select((d) => d.fn.countAll<number>().as("n"))
          .whereRef("d.account_id", "=", "m.account_id")
          .whereRef("d.message_id", "=", "m.id")
          .as("previous"),
        eb
          .selectFrom("conversations as cv")
          .select("cv.channel_id")
          .whereRef("cv.account_id", "=", "m.account_id")
          .whereRef("cv.id", "=", "m.conversation_id")
          .as("channel_id"),
      ])
      .where("m.account_id", "=", param<string>("accountId"))
      .where("m.id", "=", param<string>("messageId")) as never,
);

export async function findMessageForDelivery(
  db: Q,
  accountId: string,
  messageId: string,
): Promise<MessageForDelivery | undefined> {
  const row = await messageForDelivery.first(db, { accountId, messageId });
  // The account always exists while its messages do; its secret signs the attempt.
  if (!row || row.webhook_secret == null) return undefined;
  return { ...row, previous: Number(row.previous ?? 0) };
}

const attemptsOfMessage = prepared<{ accountId: string; messageId: string }, { n: number }>((db) =>
  db
    .selectFrom("delivery_attempts")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("message_id", "=", param<string>("messageId"))
    .where("account_id", "=", param<string>("accountId")),
);

const attemptsOfEvent = prepared<{ accountId: string; eventId: string }, { n: number }>((db) =>
  db
    .selectFrom("delivery_attempts")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("event_id", "=", param<string>("eventId"))
    .where("account_id", "=", param<string>("accountId")),
);

/** Attempts made so far for a message or an event (numbers the next one). */
export async function countAttempts(
  db: Q,
  accountId: string,
  ref: { message_id: string | null; event_id: string | null },
): Promise<number> {
  const row = ref.message_id
    ? await attemptsOfMessage.first(db, { accountId, messageId: ref.message_id })
    : await attemptsOfEvent.first(db, { accountId, eventId: ref.event_id ?? "" });
  return Number(row?.n ?? 0);
}

/** The columns of a delivery attempt, in the order the batched statements pass them. */
export const ATTEMPT_COLUMNS = [
  "id",
  "account_id",
  "message_id",
  "event_id",
  "attempted_at",
  "duration_ms",
  "status_code",
  "error_class",
  "error_message",
  "response_body",
  "url",
  "attempt_number",
  "trigger",
  "next_attempt_at",
] as const;

/** PostgreSQL SQL inserting the attempts listed by `source` (columns as ATTEMPT_COLUMNS). */
export function pgInsertAttemptsFrom(source: string): string {
  return `insert into delivery_attempts (${ATTEMPT_COLUMNS.join(", ")})
    select ${ATTEMPT_COLUMNS.join(", ")} from ${source}`;
}

/** Erasure: the delivery attempts of a contact's messages (before the messaging module deletes them). */
export async function deleteAttemptsOfContact(db: Q, accountId: string, contactId: string): Promise<void> {
  await db
    .deleteFrom("delivery_attempts")
    .where("account_id", "=", accountId)
    .where("message_id", "in", (q) =>
      q
        .selectFrom("messages")
        .select("id")
        .where("account_id", "=", accountId)
        .where("contact_id", "=", contactId),
    )
    .execute();
}

export interface FailingTarget {
  account_id: string;
  url: string;
  attempts: number;
  last_error: string | null;
}

/**
 * Every account's delivery targets (webhook or channel URL) whose attempts since `since` all failed,
 * at least `minAttempts` of them. A sweep across accounts (the notifications' health check), read-only.
 */
export async function failingTargets(db: Q, since: number, minAttempts: number): Promise<FailingTarget[]> {
  const rows = await db
    .selectFrom("delivery_attempts")
    .select([
      "account_id",
      "url",
      sql<number>`count(*)`.as("attempts"),
      sql<number>`sum(case when error_class is null then 1 else 0 end)`.as("ok"),
      sql<string | null>`max(error_class)`.as("last_error"),
    ])
    .where("attempted_at", ">=", since)
    .where("url", "is not", null)
    .groupBy(["account_id", "url"])
    .execute();
  return rows
    .filter((r) => Number(r.ok) === 0 && Number(r.attempts) >= minAttempts)
    .map((r) => ({
      account_id: r.account_id,
      url: r.url as string,
      attempts: Number(r.attempts),
      last_error: r.last_error,
    }));
}

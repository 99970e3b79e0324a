// The widget's reads of a visitor's own conversation. Every query is scoped by the account, the
// visitor's contact and the channel: a visitor can reach nothing else (no other contact, no other
// conversation, no team data beyond a replying person's name).
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

/** The visitor's conversation on this channel, if it has written yet. */
export async function findVisitorConversationId(
  db: Q,
  accountId: string,
  contactId: string,
  channelId: string,
): Promise<string | null> {
  const row = await db
    .selectFrom("conversations")
    .select("id")
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    .where("channel_id", "=", channelId)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** What the widget reads of a message: never the contact's or the team's other fields. */
const WIDGET_MESSAGE_COLUMNS = [
  "id",
  "direction",
  "sender",
  "body",
  "status",
  "user_id",
  "media_state",
  "media_content_type",
  "media_size",
  "suggestions",
  "created_at",
] as const;

export interface WidgetMessageRow {
  id: string;
  direction: "inbound" | "outbound";
  sender: "contact" | "bot" | "human" | "api";
  body: string;
  status: string;
  user_id: string | null;
  media_state: "pending" | "stored" | "rejected" | null;
  media_content_type: string | null;
  media_size: number | null;
  /** JSON [{id, title, entry}]: a bot's "Did you mean" choices, else null. */
  suggestions: string | null;
  created_at: number;
}

/**
 * Text messages of one conversation the visitor may see: its own, and replies once sent (a pending or
 * failed reply is not shown). Oldest first; `after` (a message id of this conversation) continues.
 */
export async function listVisibleMessages(
  db: Q,
  accountId: string,
  conversationId: string,
  contactId: string,
  after: { createdAt: number; id: string } | null,
  limit: number,
): Promise<WidgetMessageRow[]> {
  let q = db
    .selectFrom("messages")
    .select(WIDGET_MESSAGE_COLUMNS)
    .where("account_id", "=", accountId)
    .where("conversation_id", "=", conversationId)
    .where("contact_id", "=", contactId)
    .where("type", "=", "text")
    .where((eb) =>
      eb.or([eb("direction", "=", "inbound"), eb("status", "in", ["sent", "delivered", "read"])]),
    );
  if (after) {
    q = q.where((eb) =>
      eb.or([
        eb("created_at", ">", after.createdAt),
        eb.and([eb("created_at", "=", after.createdAt), eb("id", ">", after.id)]),
      ]),
    );
  }
  // The newest `limit`, returned oldest first.
  const rows = await q.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
  return rows.reverse() as WidgetMessageRow[];
}

/** One message of the conversation as the widget shows it (the visitor's just-stored message). */
export async function findVisibleMessage(
  db: Q,
  accountId: string,
  conversationId: string,
  messageId: string,
): Promise<WidgetMessageRow | undefined> {
  const row = await db
    .selectFrom("messages")
    .select(WIDGET_MESSAGE_COLUMNS)
    .where("account_id", "=", accountId)
    .where("conversation_id", "=", conversationId)
    .where("id", "=", messageId)
    .executeTakeFirst();
  return row as WidgetMessageRow | undefined;
}

/** A message of the conversation (for `after` cursors and attachments), or undefined. */
export async function findConversationMessage(
  db: Q,
  accountId: string,
  conversationId: string,
  messageId: string,
): Promise<
  | {
      id: string;
      created_at: number;
      media_state: string | null;
      media_sha256: string | null;
      media_content_type: string | null;
    }
  | undefined
> {
  return db
    .selectFrom("messages")
    .select(["id", "created_at", "media_state", "media_sha256", "media_content_type"])
    .where("account_id", "=", accountId)
    .where("conversation_id", "=", conversationId)
    .where("id", "=", messageId)
    .executeTakeFirst();
}

/** First names of the people who replied (only read when the business shows them). */
export async function userNames(
  db: Q,
  accountId: string,
  userIds: string[],
): Promise<Map<string, string | null>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("users")
    .select(["id", "name"])
    .where("account_id", "=", accountId)
    .where("id", "in", userIds)
    .execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

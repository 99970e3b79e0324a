// The web app's JSON for conversations and messages (docs/app-api.md), assembled from the domains'
// reads: the inbox row (conversations), the thread and its delivery attempts (messaging), names (accounts).
import type { Db } from "../../platform/db/index.ts";
import type { MessageRow, UserRow } from "../../platform/db/schema.ts";
import { iso } from "../../platform/text.ts";
import { findUsersByIds } from "../accounts/users-repo.ts";
import { tokensOfReplies } from "../bot/repo.ts";
import { type InboxRow, lastMessagesOf, messagesByIds } from "../conversations/inbox-repo.ts";
import { eventsOfConversation } from "../conversations/repo.ts";
import { attemptsByMessage } from "../messaging/repo.ts";
import { messageView } from "../messaging/view.ts";
import type { BotOutcome, ChannelKindName } from "./responses.ts";

export const THREAD_SIZE = 200;

type Author = Pick<UserRow, "id" | "name" | "email">;

export function conversationJson(
  row: InboxRow,
  lastMessage: MessageRow | undefined,
  lastAuthor: Author | undefined = undefined,
) {
  const name = [row.contact_first_name, row.contact_last_name].filter((p) => p?.trim()).join(" ");
  const alert = Number(row.human_alert) === 1;
  return {
    id: row.id,
    contact: {
      id: row.contact_id,
      name: name || null,
      fromId: row.contact_external_id,
      phone: row.contact_phone,
      email: row.contact_email,
      // Texted STOP on an SMS channel: the inbox says no SMS reaches them.
      smsOptedOutAt: row.contact_sms_opted_out_at == null ? null : iso(Number(row.contact_sms_opted_out_at)),
    },
    channel: row.channel,
    channelId: row.channel_id === "" ? null : row.channel_id,
    // "custom" for the custom channel; null when the built-in channel was deleted since.
    // (channel_type is a channel's type, read from its row.)
    channelType: (row.channel_id === "" ? "custom" : row.channel_type) as ChannelKindName | null,
    campaignId: row.campaign_id,
    // The list's preview says who wrote it ("Bot:", "Sam:", "You:"): the sender and, for a person's
    // reply, who that person is.
    lastMessage: lastMessage
      ? {
          body: lastMessage.body,
          direction: lastMessage.direction,
          createdAt: iso(lastMessage.created_at),
          sender: lastMessage.sender,
          userId: lastMessage.sender === "human" ? lastMessage.user_id : null,
          senderName:
            lastMessage.sender === "human" && lastAuthor ? (lastAuthor.name ?? lastAuthor.email) : null,
        }
      : null,
    unreadCount: Number(row.unread_count),
    humanAlert: alert,
    humanAlertReason: alert ? row.human_alert_reason : null,
    assignee: row.assignee_id
      ? { id: row.assignee_id, name: row.assignee_name ?? row.assignee_email ?? null }
      : null,
    status: row.status,
    botPaused: Number(row.bot_paused) === 1,
    lastMessageAt: iso(row.last_message_at),
    // The browser's alerts tell a new conversation from an old one that came back.
    createdAt: iso(row.created_at),
    // The website chat reports when its visitor saw the conversation: earlier replies show as Seen.
    contactSeenAt: row.contact_seen_at == null ? null : iso(row.contact_seen_at),
  };
}

/** Conversation JSON for a page of rows: their last messages in one query. */
export async function conversationsJson(db: Db, accountId: string, rows: InboxRow[]) {
  const ids = rows.flatMap((r) => (r.last_message_id ? [r.last_message_id] : []));
  const byId = new Map((await messagesByIds(db.kysely, accountId, ids)).map((m) => [m.id, m]));
  const authors = await findUsersByIds(
    db.kysely,
    accountId,
    [...byId.values()].flatMap((m) => (m.sender === "human" && m.user_id ? [m.user_id] : [])),
  );
  return rows.map((r) => {
    const last = r.last_message_id ? byId.get(r.last_message_id) : undefined;
    return conversationJson(r, last, last?.user_id ? authors.get(last.user_id) : undefined);
  });
}

export function messageJson(
  m: MessageRow,
  attempts: Parameters<typeof messageView>[1],
  senderName: string | null,
  reactions: MessageRow[],
  llmTokens: { input: number; output: number } | null = null,
  maxAttempts: number | null = null,
) {
  const v = messageView(m, attempts);
  return {
    id: v.id,
    direction: v.direction,
    type: v.type,
    sender: v.sender,
    senderName,
    // answer | fallback on the bot's replies: the inbox offers "Save as knowledge" after a fallback.
    botOutcome: m.sender === "bot" ? ((m.bot_outcome ?? null) as BotOutcome | null) : null,
    body: v.body,
    status: v.status,
    error: v.error,
    deliveryAttempts: v.deliveryAttempts,
    media: m.media_state
      ? {
          state: m.media_state,
          contentType: m.media_content_type,
          reason: m.media_reason,
          url: `/app/api/messages/${m.id}/media`,
        }
      : null,
    reactions: reactions.map((r) => ({ body: r.body, createdAt: iso(r.created_at) })),
    // The LLM's token use for a bot reply it wrote; null otherwise.
    llmTokens,
    retry: m.status === "failed" ? retryOf(v.deliveryAttempts, maxAttempts) : null,
    createdAt: v.createdAt,
  };
}

/** Messages with their attempts and sender names (reply or resend answers). */
/**
 * A failed message whose last attempt scheduled another: when, and which attempt of how many (the
 * retry schedule restarts with a resend, so attempts count from the last resend).
 */
function retryOf(
  attempts: ReturnType<typeof messageView>["deliveryAttempts"],
  maxAttempts: number | null,
): { nextAttemptAt: string; attempt: number; maxAttempts: number | null } | null {
  const last = attempts.at(-1);
  if (!last?.nextAttemptAt) return null;
  const runStart = attempts.findLastIndex((a) => a.trigger === "manual");
  const inRun = attempts.length - Math.max(runStart, 0);
  return { nextAttemptAt: last.nextAttemptAt, attempt: inRun + 1, maxAttempts };
}

/** `maxAttempts`: the configured delivery schedule's attempts (its retries and the first). */
export async function messagesJson(
  db: Db,
  accountId: string,
  messages: MessageRow[],
  maxAttempts: number | null = null,
) {
  const [attempts, users, tokens] = await Promise.all([
    attemptsByMessage(
      db.kysely,
      accountId,
      messages.filter((m) => m.direction === "outbound").map((m) => m.id),
    ),
    findUsersByIds(
      db.kysely,
      accountId,
      messages.flatMap((m) => (m.sender === "human" && m.user_id ? [m.user_id] : [])),
    ),
    tokensOfReplies(
      db.kysely,
      accountId,
      messages.filter((m) => m.sender === "bot").map((m) => m.id),
    ),
  ]);
  // Reactions go with the message they react to, when it is in the thread.
  // (by message id, or by the client's messageSid when the reaction arrived before its id was known).
  const inThread = new Set(messages.map((m) => m.id));
  const bySid = new Map(messages.flatMap((m) => (m.external_id ? [[m.external_id, m.id] as const] : [])));
  const reactionsOf = new Map<string, MessageRow[]>();
  const shown: MessageRow[] = [];
  for (const m of messages) {
    const target =
      m.type !== "reaction"
        ? null
        : (m.reaction_to_message_id ??
          (m.reaction_to_external_id ? bySid.get(m.reaction_to_external_id) : undefined) ??
          null);
    if (target && inThread.has(target)) {
      reactionsOf.set(target, [...(reactionsOf.get(target) ?? []), m]);
    } else {
      shown.push(m);
    }
  }
  return shown.map((m) => {
    const user = m.user_id ? users.get(m.user_id) : undefined;
    return messageJson(
      m,
      attempts.get(m.id) ?? [],
      m.sender === "human" && user ? (user.name ?? user.email) : null,
      reactionsOf.get(m.id) ?? [],
      tokens.get(m.id) ?? null,
      maxAttempts,
    );
  });
}

export async function threadJson(
  db: Db,
  accountId: string,
  row: InboxRow,
  maxAttempts: number | null = null,
) {
  const messages = await lastMessagesOf(db.kysely, accountId, row.contact_id, THREAD_SIZE, row.id);
  return messagesJson(db, accountId, messages, maxAttempts);
}

/** A conversation's events as thread lines: a hand-back names the person who replied. */
export async function conversationEventsJson(db: Db, accountId: string, conversationId: string) {
  const events = await eventsOfConversation(db.kysely, accountId, conversationId);
  const users = await findUsersByIds(
    db.kysely,
    accountId,
    events.flatMap((e) => (e.user_id ? [e.user_id] : [])),
  );
  return events.map((e) => {
    const user = e.user_id ? users.get(e.user_id) : undefined;
    return {
      id: e.id,
      kind: e.kind,
      userName: user ? (user.name ?? user.email) : null,
      createdAt: iso(e.created_at),
    };
  });
}

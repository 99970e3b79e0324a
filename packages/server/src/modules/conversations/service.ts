// Conversation rules: the JSON view, pages with filters, and the per-conversation bot switch.

import type { Transaction } from "kysely";
import type { Static } from "typebox";
import type { Db } from "../../platform/db/index.ts";
import type { AccountRow, Database } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { decodeCursor } from "../../platform/pagination.ts";
import { iso } from "../../platform/text.ts";
import * as inbox from "./inbox-repo.ts";
import * as repo from "./repo.ts";
import type { ConversationListQuery } from "./schemas.ts";
import * as search from "./search.ts";

// --- conversations --------------------------------------------------------------------------------

export function conversationView(account: AccountRow, c: repo.ConversationWithContact) {
  const paused = Number(c.bot_paused) === 1;
  return {
    id: c.id,
    contactId: c.contact_id,
    channel: c.channel,
    channelId: c.channel_id === "" ? null : c.channel_id,
    campaignId: c.campaign_id,
    botPaused: paused,
    botActive: account.bot_active === 1 && Number(c.contact_bot_active) === 1 && !paused,
    humanAlert: Number(c.human_alert) === 1,
    humanAlertReason: Number(c.human_alert) === 1 ? c.human_alert_reason : null,
    lastMessageAt: iso(c.last_message_at),
    createdAt: iso(c.created_at),
    updatedAt: iso(c.updated_at),
    status: c.status,
    assigneeId: c.assignee_id,
    contactSeenAt: c.contact_seen_at == null ? null : iso(c.contact_seen_at),
  };
}

export async function requireConversation(
  db: Db,
  accountId: string,
  conversationId: string,
): Promise<repo.ConversationWithContact> {
  const c = await repo.findConversation(db.kysely, accountId, conversationId);
  if (!c) throw new AppError("CONVERSATION_NOT_FOUND", `conversation ${conversationId} not found`);
  return c;
}

export async function pageConversations(
  db: Db,
  accountId: string,
  query: Static<typeof ConversationListQuery>,
) {
  const limit = query.limit ?? 50;
  return {
    limit,
    rows: await repo.pageConversations(db.kysely, accountId, {
      after: decodeCursor(query.cursor),
      limit,
      humanAlert: query.humanAlert,
      botPaused: query.botPaused,
      contactId: query.contactId,
      campaignId: query.campaignId,
    }),
  };
}

/** Resume (also clears the human alert: the person handed the conversation back) or pause the bot. */
export async function setConversationBot(
  db: Db,
  accountId: string,
  conversationId: string,
  active: boolean,
): Promise<repo.ConversationWithContact> {
  const found = await repo.setBotState(db.kysely, accountId, conversationId, active);
  if (!found) throw new AppError("CONVERSATION_NOT_FOUND", `conversation ${conversationId} not found`);
  return requireConversation(db, accountId, conversationId);
}

// --- the web app's inbox ----------------------------------------------------------------------------

export interface InboxQuery {
  status?: "open" | "resolved" | undefined;
  humanAlert?: boolean | undefined;
  /** "me", "unassigned" or a user id. */
  assignee?: string | undefined;
  channel?: string | undefined;
  /** A built-in channel's id, or "custom" (or "") for the custom channel. */
  channelId?: string | undefined;
  campaignId?: string | undefined;
  /** One contact's conversations. */
  contactId?: string | undefined;
  q?: string | undefined;
  label?: string | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

function encodeInboxCursor(row: { last_message_at: number; id: string }): string {
  return Buffer.from(`${row.last_message_at}:${row.id}`, "utf8").toString("base64url");
}

function decodeInboxCursor(cursor: string | undefined): { at: number; id: string } | null {
  if (!cursor) return null;
  const m = /^(\d{1,16}):([a-z]{2,4}_[0-9a-z]{26})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!m) throw new AppError("INVALID_CURSOR", "cursor is not valid");
  return { at: Number(m[1]), id: m[2] as string };
}

/** A page of the inbox, newest activity first; rows carry contact, assignee, unread count. */
export async function pageInbox(db: Db, accountId: string, userId: string, query: InboxQuery) {
  const limit = query.limit ?? 50;
  const assigneeId =
    query.assignee === undefined || query.assignee === ""
      ? undefined
      : query.assignee === "me"
        ? userId
        : query.assignee === "unassigned"
          ? null
          : query.assignee;
  // A search: conversations whose contact matches, and those whose messages hold the words (through
  // the full-text index), each of these showing its newest matching message.
  const q = query.q?.trim() ?? "";
  const terms = q ? search.searchTerms(q) : [];
  const [hits, byContact] = q
    ? await Promise.all([
        search.newestMatches(db, accountId, terms),
        inbox.contactMatches(db.kysely, accountId, q, search.SEARCH_HITS, db.dialect),
      ])
    : [[], []];
  const matchOf = new Map<string, search.MessageHit>();
  for (const hit of hits) if (!matchOf.has(hit.conversation_id)) matchOf.set(hit.conversation_id, hit);
  const rows = await inbox.pageInbox(db.kysely, accountId, {
    status: query.status,
    humanAlert: query.humanAlert,
    assigneeId,
    channel: query.channel,
    channelId: query.channelId === "custom" ? "" : query.channelId,
    campaignId: query.campaignId,
    contactId: query.contactId,
    qConversationIds: q ? [...new Set([...byContact, ...matchOf.keys()])] : undefined,
    label: query.label,
    after: decodeInboxCursor(query.cursor),
    limit,
    readerId: userId,
  });
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  const matches = new Map<string, search.SearchMatch>();
  for (const row of page) {
    const hit = matchOf.get(row.id);
    if (hit) matches.set(row.id, { messageId: hit.id, ...search.snippetOf(hit.body, terms) });
  }
  return { rows: page, hasMore, nextCursor: hasMore && last ? encodeInboxCursor(last) : null, matches };
}

/** The conversation's inbox row; with `readerId`, its unread count is that teammate's. */
export async function requireInboxRow(db: Db, accountId: string, conversationId: string, readerId?: string) {
  const [row] = await inbox.pageInbox(db.kysely, accountId, { conversationId, limit: 1, readerId });
  if (!row) throw new AppError("CONVERSATION_NOT_FOUND", `conversation ${conversationId} not found`);
  return row;
}

export interface InboxChange {
  status?: "open" | "resolved" | undefined;
  /** null unassigns; the id must be a user of the account (checked by the caller's `isUser`). */
  assigneeId?: string | null | undefined;
  botPaused?: boolean | undefined;
  /** Only false: clears the alert. */
  humanAlert?: false | undefined;
}

/**
 * Applies a person's change from the inbox. Resuming the bot also clears the alert (the person hands
 * the conversation back), as on /v1.
 */
export async function changeInboxState(
  db: Db,
  accountId: string,
  conversationId: string,
  change: InboxChange,
  isUser: (userId: string) => Promise<boolean>,
  /** Runs in the change's transaction (the assignee's notification). */
  alsoIn?: (trx: Transaction<Database>) => Promise<void>,
): Promise<void> {
  const patch: inbox.InboxPatch = {};
  if (change.status !== undefined) patch.status = change.status;
  if (change.assigneeId !== undefined) {
    if (change.assigneeId !== null && !(await isUser(change.assigneeId))) {
      throw new AppError("VALIDATION_ERROR", `assigneeId: no user ${change.assigneeId} in this account`);
    }
    patch.assignee_id = change.assigneeId;
  }
  if (change.botPaused !== undefined) {
    patch.bot_paused = change.botPaused ? 1 : 0;
    if (!change.botPaused) {
      patch.human_alert = 0;
      patch.human_alert_reason = null;
    }
  }
  if (change.humanAlert === false) {
    patch.human_alert = 0;
    patch.human_alert_reason = null;
  }
  const found = await db.write(async (trx) => {
    const updated = await inbox.updateInboxState(trx, accountId, conversationId, patch, Date.now());
    if (updated && alsoIn) await alsoIn(trx);
    return updated;
  });
  if (!found) throw new AppError("CONVERSATION_NOT_FOUND", `conversation ${conversationId} not found`);
}

/** Opening a conversation in the app marks it read for that teammate only. */
export async function markConversationRead(
  db: Db,
  accountId: string,
  conversationId: string,
  userId: string,
) {
  await db.write((trx) => inbox.markReadFor(trx, accountId, conversationId, userId, Date.now()));
}

/** The most the tab title counts (it says "99+" beyond). */
export const UNREAD_CAP = 100;

/** How many conversations the teammate has unread (up to UNREAD_CAP). */
export async function unreadTotal(db: Db, accountId: string, userId: string): Promise<number> {
  return inbox.unreadConversationCount(db.kysely, accountId, userId, UNREAD_CAP);
}

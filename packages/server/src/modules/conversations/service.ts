// Conversation rules: the JSON view, pages with filters, and the per-conversation bot switch.
import type { Static } from "typebox";
import type { Db } from "../../platform/db/index.ts";
import type { AccountRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { decodeCursor } from "../../platform/pagination.ts";
import { iso } from "../../platform/text.ts";
import * as repo from "./repo.ts";
import type { ConversationListQuery } from "./schemas.ts";

// --- conversations --------------------------------------------------------------------------------

export function conversationView(account: AccountRow, c: repo.ConversationWithContact) {
  const paused = Number(c.bot_paused) === 1;
  return {
    id: c.id,
    contactId: c.contact_id,
    channel: c.channel,
    campaignId: c.campaign_id,
    botPaused: paused,
    botActive: account.bot_active === 1 && Number(c.contact_bot_active) === 1 && !paused,
    humanAlert: Number(c.human_alert) === 1,
    humanAlertReason: Number(c.human_alert) === 1 ? c.human_alert_reason : null,
    lastMessageAt: iso(c.last_message_at),
    createdAt: iso(c.created_at),
    updatedAt: iso(c.updated_at),
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

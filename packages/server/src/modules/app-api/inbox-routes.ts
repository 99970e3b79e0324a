// /app/api for the inbox: conversations (list, open, assign, close), replies, resends and attachments.
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { findUser } from "../accounts/users-repo.ts";
import { functionCallsOf } from "../bot/function-service.ts";
import {
  changeInboxState,
  markConversationRead,
  pageInbox,
  requireInboxRow,
  unreadTotal,
} from "../conversations/service.ts";
import { resendMessage, sendHumanReply } from "../delivery/send.ts";
import { REPLY_BODY_LIMIT_BYTES, storeReplyAttachment } from "../messaging/media/reply-attachment.ts";
import { sendMessageMedia } from "../messaging/routes.ts";
import { requireMessage } from "../messaging/service.ts";
import { notify } from "../notifications/service.ts";
import {
  AppConversationDetail,
  AppConversationJson,
  AppConversationPage,
  AppMessageJson,
  AppResendJson,
  AppUnreadJson,
  MediaBytes,
} from "./responses.ts";
import {
  ConversationIdParams,
  ConversationPatch,
  InboxQuery,
  MessageIdParams,
  ReplyBody,
} from "./schemas.ts";
import { sessionOf } from "./session.ts";
import { conversationEventsJson, conversationsJson, messagesJson, threadJson } from "./views.ts";

const TAGS = ["app"];

export function inboxRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/conversations",
    {
      schema: {
        operationId: "appListConversations",
        response: { 200: AppConversationPage },
        tags: TAGS,
        querystring: InboxQuery,
      },
    },
    async (request) => {
      const info = sessionOf(request);
      const page = await pageInbox(ctx.db, info.account.id, info.user.id, request.query);
      const data = await conversationsJson(ctx.db, info.account.id, page.rows);
      return {
        // A search (q) says why each conversation matched: its newest matching message, or null
        // when the contact's name, phone, e-mail or channel id did.
        data: request.query.q?.trim()
          ? data.map((c) => ({ ...c, match: page.matches.get(c.id) ?? null }))
          : data,
        hasMore: page.hasMore,
        nextCursor: page.nextCursor,
      };
    },
  );

  // The teammate's own unread total, for the tab title.
  app.get(
    "/inbox/unread",
    { schema: { operationId: "appGetUnread", response: { 200: AppUnreadJson }, tags: TAGS } },
    async (request) => {
      const info = sessionOf(request);
      return { unreadConversations: await unreadTotal(ctx.db, info.account.id, info.user.id) };
    },
  );

  app.get(
    "/conversations/:conversationId",
    {
      schema: {
        operationId: "appGetConversation",
        response: { 200: AppConversationDetail },
        tags: TAGS,
        params: ConversationIdParams,
      },
    },
    async (request) => {
      const { account, user } = sessionOf(request);
      const accountId = account.id;
      const { conversationId } = request.params;
      await requireInboxRow(ctx.db, accountId, conversationId);
      // Read for this teammate only: the others' unread stays.
      await markConversationRead(ctx.db, accountId, conversationId, user.id);
      const row = await requireInboxRow(ctx.db, accountId, conversationId, user.id);
      const conversation = only(await conversationsJson(ctx.db, accountId, [row]));
      const [messages, functionCalls, events] = await Promise.all([
        threadJson(ctx.db, accountId, row, maxDeliveryAttempts(ctx)),
        functionCallsOf(ctx, accountId, conversationId),
        conversationEventsJson(ctx.db, accountId, conversationId),
      ]);
      return { conversation, messages, functionCalls, events };
    },
  );

  app.post(
    "/conversations/:conversationId/messages",
    {
      bodyLimit: REPLY_BODY_LIMIT_BYTES,
      schema: {
        operationId: "appReply",
        response: { 201: AppMessageJson },
        tags: TAGS,
        params: ConversationIdParams,
        body: ReplyBody,
      },
    },
    async (request, reply) => {
      const info = sessionOf(request);
      const { conversationId } = request.params;
      const { body, attachment } = request.body;
      // The conversation is checked before a file is written, so a wrong id stores nothing.
      if (attachment) await requireInboxRow(ctx.db, info.account.id, conversationId);
      const media = attachment ? await storeReplyAttachment(ctx, attachment) : null;
      const message = await sendHumanReply(
        ctx,
        info.account.id,
        conversationId,
        media && body.trim() === "" ? "" : body,
        info.user.id,
        media,
      );
      // (The browsers hear of it from the conversation's touch in the reply's transaction.)
      const json = only(await messagesJson(ctx.db, info.account.id, [message], maxDeliveryAttempts(ctx)));
      return reply.code(201).send(json);
    },
  );

  app.patch(
    "/conversations/:conversationId",
    {
      schema: {
        operationId: "appUpdateConversation",
        response: { 200: AppConversationJson },
        tags: TAGS,
        params: ConversationIdParams,
        body: ConversationPatch,
      },
    },
    async (request) => {
      const { account, user } = sessionOf(request);
      const accountId = account.id;
      const { conversationId } = request.params;
      const assigneeId = request.body.assigneeId;
      // Assigned to someone else than before and than the person doing it: that someone is told.
      const before = assigneeId ? await requireInboxRow(ctx.db, accountId, conversationId) : null;
      const tellAssignee =
        before && assigneeId && assigneeId !== user.id && before.assignee_id !== assigneeId
          ? (trx: Parameters<typeof notify>[0]) =>
              notify(trx, {
                accountId,
                kind: "conversation.assigned",
                title: `${user.name ?? user.email} assigned you a conversation with ${contactLabel(before)}`,
                body: "It is in your inbox under Mine.",
                link: `/inbox/${conversationId}`,
                userIds: [assigneeId],
                webhook: {
                  conversation_id: conversationId,
                  assignee_id: assigneeId,
                  assigned_by: user.id,
                  created_at: new Date().toISOString(),
                },
                at: Date.now(),
              })
          : undefined;
      await changeInboxState(
        ctx.db,
        accountId,
        conversationId,
        request.body,
        async (userId) => Boolean(await findUser(ctx.db.kysely, accountId, userId)),
        tellAssignee,
      );
      const row = await requireInboxRow(ctx.db, accountId, conversationId, user.id);
      const [conversation] = await conversationsJson(ctx.db, accountId, [row]);
      return conversation;
    },
  );

  app.post(
    "/messages/:messageId/resend",
    {
      schema: {
        operationId: "appResendMessage",
        response: { 200: AppResendJson },
        tags: TAGS,
        params: MessageIdParams,
      },
    },
    async (request) => {
      const accountId = sessionOf(request).account.id;
      const { messageId } = request.params;
      await resendMessage(ctx, accountId, messageId);
      const message = await requireMessage(ctx, accountId, messageId);
      ctx.live.publish(accountId, { conversationId: message.conversation_id });
      return { success: true as const, messageId, status: "pending" as const };
    },
  );

  // The same answer as GET /v1/messages/:messageId/media (its own cache-control, not the session's).
  app.get(
    "/messages/:messageId/media",
    {
      schema: {
        operationId: "appGetMedia",
        response: { 200: MediaBytes },
        tags: TAGS,
        params: MessageIdParams,
      },
    },
    async (request, reply) => sendMessageMedia(ctx, sessionOf(request).account.id, request, reply),
  );
}

/** How a conversation's customer is named to a teammate. */
export function contactLabel(row: {
  contact_first_name: string | null;
  contact_last_name: string | null;
  contact_phone: string | null;
  contact_email: string | null;
}): string {
  const name = [row.contact_first_name, row.contact_last_name].filter(Boolean).join(" ");
  return name || row.contact_phone || row.contact_email || "a customer";
}

/** A delivery's attempts: the first and one per step of the retry schedule. */
function maxDeliveryAttempts(ctx: AppContext): number {
  return ctx.config.deliveryRetryScheduleSeconds.length + 1;
}

/** The JSON of one row: the views answer one item per row. */
function only<T>(items: T[]): T {
  const [item] = items;
  if (item === undefined) throw new Error("expected one item");
  return item;
}

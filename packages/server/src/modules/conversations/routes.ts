// Conversations (extensions): list, get, and the per-conversation bot switch. Thin handlers.
import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { pageOf, toPage } from "../../platform/pagination.ts";
import { findUser } from "../accounts/users-repo.ts";
import { bulkConversations } from "./bulk.ts";
import {
  BotSwitchBody,
  BulkConversationsBody,
  BulkConversationsResponse,
  ConversationJson,
  ConversationListQuery,
  ConversationParams,
} from "./schemas.ts";
import { conversationView, pageConversations, requireConversation, setConversationBot } from "./service.ts";

export function conversationRoutes(app: App, { db }: AppContext): void {
  app.get(
    "/v1/conversations",
    {
      schema: {
        operationId: "listConversations",
        summary: "List conversations with their bot state (extension)",
        description:
          "Oldest first, cursor pagination. Filters: humanAlert=true (the hand-over queue), botPaused, " +
          "contactId, campaignId. Errors: VALIDATION_ERROR, INVALID_CURSOR (400).",
        tags: ["conversations"],
        querystring: ConversationListQuery,
        response: { 200: pageOf(ConversationJson), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const account = accountOf(request);
      const { rows, limit } = await pageConversations(db, account.id, request.query);
      return toPage(
        rows,
        limit,
        (r) => r.id,
        (r) => conversationView(account, r),
      );
    },
  );

  app.post(
    "/v1/conversations/bulk",
    {
      schema: {
        operationId: "bulkConversations",
        summary: "Assign, resolve, reopen, label or unlabel many conversations at once (extension)",
        description:
          "One transaction: everything or, on an error, nothing. Up to 500 ids; ids that are not this " +
          "account's are listed in notFound and change nothing. Labels belong to the conversation's " +
          "contact. Errors: VALIDATION_ERROR (400, naming the field: assigneeId missing or not a user " +
          "of the account, label missing or invalid).",
        tags: ["conversations"],
        body: BulkConversationsBody,
        response: { 200: BulkConversationsResponse, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const accountId = accountOf(request).id;
      return bulkConversations(db, accountId, request.body, {
        isUser: async (userId) => Boolean(await findUser(db.kysely, accountId, userId)),
      });
    },
  );

  app.get(
    "/v1/conversations/:conversationId",
    {
      schema: {
        operationId: "getConversation",
        summary: "Get a conversation with its bot state and human alert (extension)",
        description: "Errors: CONVERSATION_NOT_FOUND (404), also for another account's conversation.",
        tags: ["conversations"],
        params: ConversationParams,
        response: { 200: ConversationJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const account = accountOf(request);
      return conversationView(
        account,
        await requireConversation(db, account.id, request.params.conversationId),
      );
    },
  );

  app.post(
    "/v1/conversations/:conversationId/bot",
    {
      schema: {
        operationId: "setConversationBot",
        summary: "Pause or resume the AI bot for one conversation (extension)",
        description:
          "A person's reply from the inbox pauses the bot for the conversation (it never talks over a " +
          "human). active: true resumes it and clears the human alert; active: false pauses it. The " +
          "account and contact switches still apply (botActive in the answer is the effective state). " +
          "Errors: VALIDATION_ERROR (400), CONVERSATION_NOT_FOUND (404).",
        tags: ["conversations"],
        params: ConversationParams,
        body: BotSwitchBody,
        response: { 200: ConversationJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const account = accountOf(request);
      const c = await setConversationBot(db, account.id, request.params.conversationId, request.body.active);
      return conversationView(account, c);
    },
  );
}

import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { MessageJson, messageView } from "../messaging/view.ts";
import {
  ConversationIdParams,
  HumanReplyBody,
  MessageIdParams,
  ResendResponse,
  SendCustomChannelMessageBody,
  SendCustomChannelMessageResponse,
} from "./schemas.ts";
import { resendMessage, sendCustomChannelMessage, sendHumanReply } from "./send.ts";

export function deliveryRoutes(app: App, ctx: AppContext): void {
  for (const [url, alias] of [
    ["/v1/send_custom_channel_message", false],
    ["/v1/send-custom-channel-message", true],
  ] as const) {
    app.post(
      url,
      {
        schema: {
          operationId: alias ? "sendCustomChannelMessageAlias" : "sendCustomChannelMessage",
          summary: alias
            ? "Send a message through a custom channel (hyphenated alias)"
            : "Send a message through a custom channel",
          description:
            "Creates or updates the contact by `customData.fromId`, stores the outbound message (sender `api`, " +
            "status `pending`) and queues its signed delivery to the account's custom channel webhook URL. " +
            "400 WEBHOOK_NOT_CONFIGURED when no URL is set (nothing is stored).",
          tags: ["messages"],
          body: SendCustomChannelMessageBody,
          response: {
            200: SendCustomChannelMessageResponse,
            ...errorResponses(400, 401, 415, 429),
          },
        },
      },
      async (request) => {
        const { messageId, contactId } = await sendCustomChannelMessage(
          ctx,
          accountOf(request),
          request.body.customData,
        );
        return { success: true, messageId, contactId, message: "Message queued for delivery" };
      },
    );
  }

  app.post(
    "/v1/messages/:messageId/resend",
    {
      schema: {
        operationId: "resendMessage",
        summary: "Resend a failed outbound message (extension)",
        description:
          "Queues a new delivery attempt now and restarts the retry schedule. Only for outbound messages " +
          "whose status is `failed` (else 409 MESSAGE_NOT_FAILED).",
        tags: ["messages"],
        params: MessageIdParams,
        response: { 200: ResendResponse, ...errorResponses(401, 404, 409, 429) },
      },
    },
    async (request) => {
      await resendMessage(ctx, accountOf(request).id, request.params.messageId);
      return { success: true, messageId: request.params.messageId, status: "pending" as const };
    },
  );

  app.post(
    "/v1/conversations/:conversationId/messages",
    {
      schema: {
        operationId: "replyInConversation",
        summary: "Reply in a conversation as a person (extension)",
        description:
          "Stores an outbound message with sender `human`, pauses the bot on this conversation and queues " +
          "the delivery to the custom channel webhook URL (or, in a built-in channel's conversation, through " +
          "that channel), exactly like a reply typed in the inbox.",
        tags: ["messages"],
        params: ConversationIdParams,
        body: HumanReplyBody,
        response: { 201: MessageJson, ...errorResponses(400, 401, 404, 415, 429) },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const message = await sendHumanReply(
        ctx,
        account.id,
        request.params.conversationId,
        request.body.body,
        null,
      );
      // Just created: no delivery attempt yet.
      return reply.code(201).send(messageView(message, []));
    },
  );
}

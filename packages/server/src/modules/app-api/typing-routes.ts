// "A person is typing" for the chat widget: the inbox's reply box calls this while someone types in a
// conversation; the visitor's widget shows "typing…" for a few seconds after each call. Nothing is
// stored: the event goes to that conversation's visitor streams only (platform/live.ts, any API node).
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import type { App } from "../../platform/http/types.ts";
import { findConversationById } from "../conversations/repo.ts";
import { NoContent } from "./responses.ts";
import { ConversationIdParams } from "./schemas.ts";
import { sessionOf } from "./session.ts";

export function typingRoutes(app: App, ctx: AppContext): void {
  app.post(
    "/conversations/:conversationId/typing",
    {
      schema: {
        operationId: "appTyping",
        response: { 204: NoContent },
        tags: ["app"],
        summary: "Tell the conversation's widget visitor that a person is typing (nothing is stored)",
        params: ConversationIdParams,
      },
    },
    async (request, reply) => {
      const accountId = sessionOf(request).account.id;
      const { conversationId } = request.params;
      const conversation = await findConversationById(ctx.db.kysely, accountId, conversationId);
      if (!conversation)
        throw new AppError("CONVERSATION_NOT_FOUND", `No conversation with id ${conversationId}`);
      // Only a built-in channel's conversation has visitors to tell.
      if (conversation.channel_id) ctx.live.publishVisitor(conversation.id, { type: "typing" });
      return reply.code(204).send();
    },
  );
}

// Presence in a conversation (who else is viewing or typing), so two teammates don't answer at once:
// the open conversation sends heartbeats here, reads who else is there, and follows the changes on
// its event stream (`event: presence`). Nothing is stored (presence.ts).
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import type { App } from "../../platform/http/types.ts";
import type { PresenceBeat } from "../../platform/live.ts";
import { findConversationById } from "../conversations/repo.ts";
import type { PresenceBoard } from "./presence.ts";
import { NoContent } from "./responses.ts";
import { ConversationIdParams } from "./schemas.ts";
import { sessionOf } from "./session.ts";

const PresenceStateSchema = Type.Union([Type.Literal("viewing"), Type.Literal("typing")]);

const PresenceBody = Type.Object({ state: PresenceStateSchema });

export const PresencePersonJson = Type.Object({
  userId: Type.String(),
  /** The teammate's name, or their e-mail address when they set none. */
  name: Type.String(),
  state: PresenceStateSchema,
});

const PresenceJson = Type.Object({
  conversationId: Type.String(),
  /** The other teammates in the conversation now (never the one asking). */
  people: Type.Array(PresencePersonJson),
});

const TAGS = ["app"];

export function presenceRoutes(app: App, ctx: AppContext, board: PresenceBoard): void {
  /** The conversation of the signed-in person's account, or 404 (another account's is "not found"). */
  const conversationOf = async (accountId: string, conversationId: string) => {
    const conversation = await findConversationById(ctx.db.kysely, accountId, conversationId);
    if (!conversation)
      throw new AppError("CONVERSATION_NOT_FOUND", `No conversation with id ${conversationId}`);
    return conversation;
  };
  /** The signed-in person's state in one of their account's conversations (404 for another's). */
  const beat = async (
    session: ReturnType<typeof sessionOf>,
    conversationId: string,
    state: PresenceBeat["state"],
  ) => {
    const { account, user } = session;
    const conversation = await conversationOf(account.id, conversationId);
    board.beat({
      accountId: account.id,
      conversationId: conversation.id,
      userId: user.id,
      name: user.name?.trim() || user.email,
      state,
    });
  };

  app.post(
    "/conversations/:conversationId/presence",
    {
      schema: {
        operationId: "appPresenceBeat",
        summary: "A heartbeat: the signed-in person is viewing (every 10 s) or typing in a conversation",
        response: { 204: NoContent },
        tags: TAGS,
        params: ConversationIdParams,
        body: PresenceBody,
      },
    },
    async (request, reply) => {
      await beat(sessionOf(request), request.params.conversationId, request.body.state);
      return reply.code(204).send();
    },
  );

  app.delete(
    "/conversations/:conversationId/presence",
    {
      schema: {
        operationId: "appPresenceLeave",
        summary: "The signed-in person left the conversation (before the heartbeat runs out)",
        response: { 204: NoContent },
        tags: TAGS,
        params: ConversationIdParams,
      },
    },
    async (request, reply) => {
      await beat(sessionOf(request), request.params.conversationId, "left");
      return reply.code(204).send();
    },
  );

  app.get(
    "/conversations/:conversationId/presence",
    {
      schema: {
        operationId: "appPresence",
        summary: "Who else is viewing or typing in a conversation now",
        response: { 200: PresenceJson },
        tags: TAGS,
        params: ConversationIdParams,
      },
    },
    async (request) => {
      const { account, user } = sessionOf(request);
      const conversation = await conversationOf(account.id, request.params.conversationId);
      return { conversationId: conversation.id, people: board.people(account.id, conversation.id, user.id) };
    },
  );
}

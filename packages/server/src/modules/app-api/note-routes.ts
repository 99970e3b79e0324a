// /app/api for private notes in a conversation (notes/service.ts): any signed-in teammate writes
// and reads them. Never messages: nothing here sends, bills or calls a webhook.
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { ConversationParams } from "../conversations/schemas.ts";
import { NoteBody, NoteJson, NoteList } from "../notes/schemas.ts";
import { addNote, notesOf } from "../notes/service.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

export function noteRoutes(app: App, ctx: AppContext): void {
  app.post(
    "/conversations/:conversationId/notes",
    {
      schema: {
        operationId: "appAddNote",
        summary: "Add a private note to a conversation; @mentions notify those teammates",
        description:
          "Seen by the team only, never sent to the customer. Errors: VALIDATION_ERROR (400, an empty " +
          "or too long body), CONVERSATION_NOT_FOUND (404, also for another account's conversation).",
        tags: TAGS,
        params: ConversationParams,
        body: NoteBody,
        response: { 201: NoteJson },
      },
    },
    async (request, reply) => {
      const { account, user } = sessionOf(request);
      const note = await addNote(ctx.db, account.id, request.params.conversationId, user, request.body.body);
      return reply.code(201).send(note);
    },
  );

  app.get(
    "/conversations/:conversationId/notes",
    {
      schema: {
        operationId: "appListNotes",
        summary: "A conversation's private notes, oldest first (the last 500)",
        description: "Errors: CONVERSATION_NOT_FOUND (404, also for another account's conversation).",
        tags: TAGS,
        params: ConversationParams,
        response: { 200: NoteList },
      },
    },
    async (request) => {
      const { account } = sessionOf(request);
      return { data: await notesOf(ctx.db, account.id, request.params.conversationId) };
    },
  );
}

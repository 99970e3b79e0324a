// Private notes (issues 33 and 35): the team's notes in a conversation, with @mentions that notify.
// Owns conversation_notes; its routes are the web app's (app-api/note-routes.ts). A module of its own
// because a note notifies: the conversations module, which the delivery module reads, stays below
// the notifications module.
import type { Module } from "../../context.ts";
import { deleteNotesOfConversations } from "./repo.ts";

export const notesModule: Module = {
  name: "notes",
  async onContactErased(trx, { accountId, conversationIds }) {
    await deleteNotesOfConversations(trx, accountId, conversationIds);
  },
};

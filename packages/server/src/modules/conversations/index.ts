// Conversations: the inbox's unit (one per contact) and its state. Owns the conversations table.
import type { Module } from "../../context.ts";
import { deleteConversationsOfContact } from "./repo.ts";
import { conversationRoutes } from "./routes.ts";

export const conversationsModule: Module = {
  name: "conversations",
  routes: conversationRoutes,
  async onContactErased(trx, { accountId, contactId }) {
    await deleteConversationsOfContact(trx, accountId, contactId);
  },
};

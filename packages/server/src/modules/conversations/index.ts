// Conversations: the inbox's unit (one per contact) and its state. Owns the conversations table.
import type { Module } from "../../context.ts";
import { conversationRoutes } from "./routes.ts";

export const conversationsModule: Module = {
  name: "conversations",
  routes: conversationRoutes,
};

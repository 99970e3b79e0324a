// Canned replies (issue 33): account-wide snippets for the reply box. Owns canned_replies; its /v1
// routes are here, the web app's in app-api/canned-reply-routes.ts. Not contact data: a contact's
// erasure leaves them.
import type { Module } from "../../context.ts";
import { cannedReplyRoutes } from "./routes.ts";

export const cannedRepliesModule: Module = {
  name: "canned-replies",
  routes: cannedReplyRoutes,
};

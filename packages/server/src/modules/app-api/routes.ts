// /app/api: the web app's door (docs/app-api.md). Session cookie + CSRF header instead of an API key;
// thin handlers over the same services as /v1 (one rule, two doors). One encapsulated Fastify plugin
// (registered with the /app/api prefix): every route in it is a session route, checked by one
// onRequest hook, unless it declares `config: { auth: "none" }` (onboarding, sign-in, invite and
// password-reset links).
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { agencyRoutes } from "./agency-routes.ts";
import { assistRoutes, createAuditHook } from "./assist-routes.ts";
import { brandRoutes } from "./brand-routes.ts";
import { bulkRoutes } from "./bulk-routes.ts";
import { businessHoursRoutes } from "./business-hours-routes.ts";
import { campaignRoutes } from "./campaign-routes.ts";
import { cannedReplyAppRoutes } from "./canned-reply-routes.ts";
import { appChannelRoutes } from "./channel-routes.ts";
import { directoryRoutes } from "./directory-routes.ts";
import { eventRoutes } from "./event-routes.ts";
import { exportAppRoutes } from "./export-routes.ts";
import { importRoutes } from "./import-routes.ts";
import { inboxRoutes } from "./inbox-routes.ts";
import { knowledgeAppRoutes } from "./knowledge-routes.ts";
import { noteRoutes } from "./note-routes.ts";
import { notificationRoutes } from "./notification-routes.ts";
import { PresenceBoard } from "./presence.ts";
import { presenceRoutes } from "./presence-routes.ts";
import { createSessionHook } from "./session.ts";
import { sessionRoutes } from "./session-routes.ts";
import { settingsRoutes } from "./settings-routes.ts";
import { teamRoutes } from "./team-routes.ts";
import { typingRoutes } from "./typing-routes.ts";
import { usageAppRoutes } from "./usage-routes.ts";

export const APP_API_PREFIX = "/app/api";

export async function appApiRoutes(api: App, ctx: AppContext): Promise<void> {
  // Signed-in unless the route says otherwise: the route table (and the API-key hook) read this mode.
  api.addHook("onRoute", (route) => {
    route.config = { auth: "session", ...route.config };
  });
  api.addHook("onRequest", createSessionHook(ctx));
  // What an agency changes while assisting a client goes into the client's audit log.
  api.addHook("onSend", createAuditHook(ctx));

  sessionRoutes(api, ctx);
  // Agency assist: the client switcher, assist sessions, the client's switch and audit log.
  assistRoutes(api, ctx);
  teamRoutes(api, ctx);
  settingsRoutes(api, ctx);
  inboxRoutes(api, ctx);
  // Who else is viewing or typing in a conversation: this node's board, pushed on the event streams.
  const presence = new PresenceBoard(ctx.live, ctx.config.presence);
  api.addHook("onClose", async () => presence.close());
  eventRoutes(api, ctx, presence);
  presenceRoutes(api, ctx, presence);
  // Web app part 2: contacts and lists, campaigns.
  directoryRoutes(api, ctx);
  campaignRoutes(api, ctx);
  // A campaign's knowledge sources (files, pages, sitemaps).
  knowledgeAppRoutes(api, ctx);
  agencyRoutes(api, ctx);
  // The sub-account page's usage charts and CSV.
  usageAppRoutes(api, ctx);
  importRoutes(api, ctx);
  // Settings → Channels.
  appChannelRoutes(api, ctx);
  // The chat widget: "a person is typing" to the conversation's visitor.
  typingRoutes(api, ctx);
  notificationRoutes(api, ctx);
  noteRoutes(api, ctx);
  // Settings → Canned replies, and the reply box's "/" list.
  cannedReplyAppRoutes(api, ctx);
  // Settings → Business hours.
  businessHoursRoutes(api, ctx);
  // Selections on the contacts page, a list's page and the inbox.
  bulkRoutes(api, ctx);
  // Settings → Export data.
  exportAppRoutes(api, ctx);
  // Agency → Brand, and the brand of the sign-in page and its logo (open).
  brandRoutes(api, ctx);
}

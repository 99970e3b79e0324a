// /app/api: the web app's door (docs/app-api.md). Session cookie + CSRF header instead of an API key;
// thin handlers over the same services as /v1 (one rule, two doors).
import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../context.ts";
import type { AccountUpdate } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import type { App } from "../../platform/http/types.ts";
import { inviteLink, requestLinkBase } from "../../platform/public-url.ts";
import { OutboundError } from "../../platform/safe-fetch.ts";
import {
  completePasswordReset,
  describePasswordReset,
  requestPasswordReset,
} from "../accounts/password-reset.ts";
import { findAccountById } from "../accounts/repo.ts";
import { rotateApiKey, rotateWebhookSecret, updateSettings } from "../accounts/service.ts";
import {
  changePassword,
  endSession,
  resolveSession,
  SESSION_COOKIE,
  sessionView,
  signIn,
} from "../accounts/sessions.ts";
import {
  acceptInvite,
  CLASH_NOTICE,
  createInvite,
  describeInvite,
  inviteView,
  onboard,
  onboardingAllowed,
  removeMember,
  requireManager,
  revokeInvite,
  teamOf,
} from "../accounts/team.ts";
import { anyAccountExists, findApiKeyInfo, findUser } from "../accounts/users-repo.ts";
import { validateWebhookUrl } from "../accounts/webhook-url.ts";
import { functionCallsOf } from "../bot/function-service.ts";
import { unassignUser } from "../conversations/inbox-repo.ts";
import {
  changeInboxState,
  markConversationRead,
  pageInbox,
  requireInboxRow,
} from "../conversations/service.ts";
import { resendMessage, sendHumanReply } from "../delivery/send.ts";
import { webhookHeaders } from "../delivery/signing.ts";
import { isTextType } from "../messaging/media/sniff.ts";
import { openBlob } from "../messaging/media/store.ts";
import { requireMessage } from "../messaging/service.ts";
import { notify } from "../notifications/service.ts";
import { agencyRoutes } from "./agency-routes.ts";
import { businessHoursRoutes } from "./business-hours-routes.ts";
import { campaignRoutes } from "./campaign-routes.ts";
import { appChannelRoutes } from "./channel-routes.ts";
import { directoryRoutes } from "./directory-routes.ts";
import { importRoutes } from "./import-routes.ts";
import { noteRoutes } from "./note-routes.ts";
import { notificationRoutes } from "./notification-routes.ts";
import {
  AcceptInviteBody,
  ConversationIdParams,
  ConversationPatch,
  InboxQuery,
  InviteBody,
  InviteParams,
  InviteTokenParams,
  MemberParams,
  MessageIdParams,
  OnboardingBody,
  OnboardingQuery,
  PasswordBody,
  PasswordResetBody,
  PasswordResetParams,
  PasswordResetRequestBody,
  ReplyBody,
  SettingsPatch,
  SignInBody,
} from "./schemas.ts";
import {
  clearSessionCookie,
  clientAddress,
  createSessionHook,
  onboardingAddress,
  readCookie,
  type SessionRoute,
  sessionOf,
  setSessionCookie,
} from "./session.ts";
import { typingRoutes } from "./typing-routes.ts";
import { conversationsJson, messagesJson, threadJson } from "./views.ts";

const TAGS = ["app"];

const SSE_PING_MS = 25_000;

export async function appApiRoutes(app: App, ctx: AppContext): Promise<void> {
  const requireSession = createSessionHook(ctx);
  /** Route options of a signed-in route. */
  const session: SessionRoute = { config: { auth: "session" as const }, onRequest: requireSession };
  const open = {
    config: { auth: "none" as const },
    onRequest: async (_request: FastifyRequest, reply: FastifyReply) => {
      reply.header("cache-control", "no-store");
    },
  };

  const settingsJson = async (accountId: string) => {
    const a = await findAccountById(ctx.db.kysely, accountId);
    if (!a) throw new AppError("NOT_FOUND", "account not found");
    const key = await findApiKeyInfo(ctx.db.kysely, accountId);
    return {
      accountId: a.id,
      name: a.name,
      email: a.email,
      kind: a.kind,
      botActive: a.bot_active === 1,
      webhookUrl: a.webhook_url,
      eventsWebhookUrl: a.events_webhook_url,
      llm: { baseUrl: a.llm_base_url, model: a.llm_model, apiKeySet: a.llm_api_key !== null },
      apiKey: key ? { prefix: key.prefix, createdAt: new Date(key.createdAt).toISOString() } : null,
    };
  };

  // ---- onboarding and session ------------------------------------------------------------------

  app.get(
    "/app/api/onboarding",
    {
      ...open,
      schema: { operationId: "appGetOnboarding", tags: TAGS, querystring: OnboardingQuery },
    },
    async (request) => {
      const needed = !(await anyAccountExists(ctx.db.kysely));
      return {
        needed,
        allowed: needed && onboardingAllowed(ctx, onboardingAddress(ctx, request), request.query.setupToken),
      };
    },
  );

  app.post(
    "/app/api/onboarding",
    { ...open, schema: { operationId: "appOnboard", tags: TAGS, body: OnboardingBody } },
    async (request, reply) => {
      if (await anyAccountExists(ctx.db.kysely)) {
        throw new AppError("ALREADY_ONBOARDED", "this server already has an account; sign in instead");
      }
      if (!onboardingAllowed(ctx, onboardingAddress(ctx, request), request.body.setupToken)) {
        throw new AppError(
          "FORBIDDEN",
          "Onboarding is open from the server itself or with the setup link printed at start",
        );
      }
      const { token, info, apiKey } = await onboard(ctx, request.body);
      setSessionCookie(reply, token, info.session.expires_at);
      // The API key made with the account: in this answer only (the page shows it once, to copy).
      return reply.code(201).send({ ...sessionView(info), apiKey });
    },
  );

  app.get(
    "/app/api/session",
    { ...session, schema: { operationId: "appGetSession", tags: TAGS } },
    async (request) => sessionView(sessionOf(request)),
  );

  app.post(
    "/app/api/session",
    { ...open, schema: { operationId: "appSignIn", tags: TAGS, body: SignInBody } },
    async (request, reply) => {
      const {
        token,
        session: s,
        user,
      } = await signIn(ctx.db, {
        email: request.body.email,
        password: request.body.password,
        address: clientAddress(ctx, request),
      });
      const account = await findAccountById(ctx.db.kysely, user.account_id);
      if (!account) throw new AppError("INVALID_CREDENTIALS", "The e-mail address or the password is wrong");
      setSessionCookie(reply, token, s.expires_at);
      return sessionView({ user, account, session: s });
    },
  );

  app.delete(
    "/app/api/session",
    { ...session, schema: { operationId: "appSignOut", tags: TAGS } },
    async (request, reply) => {
      await endSession(ctx.db, sessionOf(request).session);
      clearSessionCookie(reply);
      return reply.code(204).send();
    },
  );

  app.post(
    "/app/api/password",
    { ...session, schema: { operationId: "appChangePassword", tags: TAGS, body: PasswordBody } },
    async (request, reply) => {
      await changePassword(ctx.db, sessionOf(request), {
        currentPassword: request.body.currentPassword,
        newPassword: request.body.newPassword,
        address: clientAddress(ctx, request),
      });
      return reply.code(204).send();
    },
  );

  // ---- forgotten password (open: the link in the e-mail is the credential) ------------------------

  app.post(
    "/app/api/password-resets",
    {
      ...open,
      schema: { operationId: "appRequestPasswordReset", tags: TAGS, body: PasswordResetRequestBody },
    },
    async (request, reply) => {
      // The same answer whether or not the address signs in here.
      await requestPasswordReset(ctx, {
        email: request.body.email,
        linkBase: requestLinkBase(ctx.config, request),
      });
      return reply.code(202).send({ ok: true });
    },
  );

  app.get(
    "/app/api/password-resets/:token",
    {
      ...open,
      schema: { operationId: "appGetPasswordReset", tags: TAGS, params: PasswordResetParams },
    },
    async (request) => describePasswordReset(ctx, request.params.token),
  );

  app.post(
    "/app/api/password-resets/:token",
    {
      ...open,
      schema: {
        operationId: "appResetPassword",
        tags: TAGS,
        params: PasswordResetParams,
        body: PasswordResetBody,
      },
    },
    async (request, reply) => {
      await completePasswordReset(ctx, request.params.token, request.body);
      return reply.code(204).send();
    },
  );

  // ---- team ------------------------------------------------------------------------------------

  app.get(
    "/app/api/team",
    { ...session, schema: { operationId: "appGetTeam", tags: TAGS } },
    async (request) => teamOf(ctx, sessionOf(request).account.id),
  );

  app.post(
    "/app/api/team/invites",
    { ...session, schema: { operationId: "appCreateInvite", tags: TAGS, body: InviteBody } },
    async (request, reply) => {
      const linkBase = requestLinkBase(ctx.config, request);
      const { invite, token } = await createInvite(ctx, sessionOf(request), request.body, linkBase);
      return reply.code(201).send({ invite: inviteView(invite), url: inviteLink(linkBase, token) });
    },
  );

  app.delete(
    "/app/api/team/invites/:inviteId",
    { ...session, schema: { operationId: "appRevokeInvite", tags: TAGS, params: InviteParams } },
    async (request, reply) => {
      await revokeInvite(ctx, sessionOf(request), request.params.inviteId);
      return reply.code(204).send();
    },
  );

  app.delete(
    "/app/api/team/members/:userId",
    { ...session, schema: { operationId: "appRemoveMember", tags: TAGS, params: MemberParams } },
    async (request, reply) => {
      const info = sessionOf(request);
      const { userId } = request.params;
      await removeMember(ctx, info, userId, (trx) => unassignUser(trx, info.account.id, userId));
      return reply.code(204).send();
    },
  );

  app.get(
    "/app/api/invites/:token",
    { ...open, schema: { operationId: "appGetInvite", tags: TAGS, params: InviteTokenParams } },
    async (request) => describeInvite(ctx, request.params.token),
  );

  app.post(
    "/app/api/invites/:token/accept",
    {
      ...open,
      schema: {
        operationId: "appAcceptInvite",
        tags: TAGS,
        params: InviteTokenParams,
        body: AcceptInviteBody,
      },
    },
    async (request, reply) => {
      const { token, info, joined } = await acceptInvite(ctx, request.params.token, {
        ...request.body,
        address: clientAddress(ctx, request),
      });
      setSessionCookie(reply, token, info.session.expires_at);
      // Not joined: the address signs in elsewhere and its password proved it is theirs (their own
      // session, with the reason); the inviter's side never learns it.
      if (!joined) return reply.code(200).send({ ...sessionView(info), notice: CLASH_NOTICE });
      return reply.code(201).send(sessionView(info));
    },
  );

  // ---- settings (owner and admins) -------------------------------------------------------------

  const manager = (request: FastifyRequest) => {
    const info = sessionOf(request);
    requireManager(info);
    return info;
  };

  app.get(
    "/app/api/settings",
    { ...session, schema: { operationId: "appGetSettings", tags: TAGS } },
    async (request) => settingsJson(manager(request).account.id),
  );

  app.patch(
    "/app/api/settings",
    { ...session, schema: { operationId: "appUpdateSettings", tags: TAGS, body: SettingsPatch } },
    async (request) => {
      const info = manager(request);
      const body = request.body;
      const patch: AccountUpdate = {};
      const cidrs = ctx.config.outboundAllowCidrs;
      if (body.webhookUrl !== undefined) {
        patch.webhook_url = body.webhookUrl?.trim()
          ? await validateWebhookUrl(body.webhookUrl, cidrs, "webhookUrl")
          : null;
      }
      if (body.eventsWebhookUrl !== undefined) {
        patch.events_webhook_url = body.eventsWebhookUrl?.trim()
          ? await validateWebhookUrl(body.eventsWebhookUrl, cidrs, "eventsWebhookUrl")
          : null;
      }
      if (body.botActive !== undefined) patch.bot_active = body.botActive ? 1 : 0;
      if (body.llm) {
        const { baseUrl, model, apiKey } = body.llm;
        if (baseUrl !== undefined) {
          // The outbound address rules of the CLI and the webhook URLs, checked when it is saved.
          patch.llm_base_url = baseUrl?.trim()
            ? await validateWebhookUrl(baseUrl, cidrs, "llm.baseUrl").catch((err: unknown) => {
                if (!(err instanceof AppError)) throw err;
                throw new AppError(
                  "VALIDATION_ERROR",
                  "The LLM address must be your provider's public https:// address, without a user name " +
                    "or password (for example https://api.openai.com/v1).",
                );
              })
            : null;
        }
        if (model !== undefined) patch.llm_model = model?.trim() || null;
        if (apiKey !== undefined) patch.llm_api_key = apiKey || null;
      }
      await updateSettings(ctx.db, info.account.id, patch);
      return settingsJson(info.account.id);
    },
  );

  app.post(
    "/app/api/settings/api-key",
    { ...session, schema: { operationId: "appGenerateApiKey", tags: TAGS } },
    async (request, reply) => {
      const info = manager(request);
      return reply.code(201).send({ apiKey: await rotateApiKey(ctx.db, info.account.id) });
    },
  );

  app.post(
    "/app/api/settings/webhook-secret/reveal",
    { ...session, schema: { operationId: "appRevealWebhookSecret", tags: TAGS } },
    async (request) => {
      const info = manager(request);
      const account = await findAccountById(ctx.db.kysely, info.account.id);
      return { webhookSecret: account?.webhook_secret ?? info.account.webhook_secret };
    },
  );

  app.post(
    "/app/api/settings/webhook-secret/rotate",
    { ...session, schema: { operationId: "appRotateWebhookSecret", tags: TAGS } },
    async (request) => ({
      webhookSecret: await rotateWebhookSecret(ctx.db, manager(request).account.id),
    }),
  );

  app.post(
    "/app/api/settings/test-event",
    { ...session, schema: { operationId: "appSendTestEvent", tags: TAGS } },
    async (request) => {
      const info = manager(request);
      const account = await findAccountById(ctx.db.kysely, info.account.id);
      if (!account?.webhook_url) {
        throw new AppError("WEBHOOK_NOT_CONFIGURED", "Save a webhook URL first");
      }
      const webhookId = `msg_test_${randomBytes(12).toString("hex")}`;
      const body = JSON.stringify({
        type: "test",
        timestamp: new Date().toISOString(),
        data: { accountId: account.id, message: "A test event from Parley's settings page" },
      });
      try {
        const res = await ctx.fetcher.request({
          url: account.webhook_url,
          method: "POST",
          headers: webhookHeaders(account.webhook_secret, webhookId, body),
          body,
          maxBodyBytes: 512,
          truncateBody: true,
          totalTimeoutMs: 10_000,
        });
        return {
          ok: res.status >= 200 && res.status < 300,
          statusCode: res.status,
          body: res.body.subarray(0, 512).toString("utf8"),
          error: null,
        };
      } catch (err) {
        if (!(err instanceof OutboundError)) throw err;
        return { ok: false, statusCode: null, body: "", error: err.message };
      }
    },
  );

  // ---- inbox -----------------------------------------------------------------------------------

  app.get(
    "/app/api/conversations",
    { ...session, schema: { operationId: "appListConversations", tags: TAGS, querystring: InboxQuery } },
    async (request) => {
      const info = sessionOf(request);
      const page = await pageInbox(ctx.db, info.account.id, info.user.id, request.query);
      return {
        data: await conversationsJson(ctx.db, info.account.id, page.rows),
        hasMore: page.hasMore,
        nextCursor: page.nextCursor,
      };
    },
  );

  app.get(
    "/app/api/conversations/:conversationId",
    {
      ...session,
      schema: { operationId: "appGetConversation", tags: TAGS, params: ConversationIdParams },
    },
    async (request) => {
      const accountId = sessionOf(request).account.id;
      const { conversationId } = request.params;
      await requireInboxRow(ctx.db, accountId, conversationId);
      await markConversationRead(ctx.db, accountId, conversationId);
      const row = await requireInboxRow(ctx.db, accountId, conversationId);
      const [conversation] = await conversationsJson(ctx.db, accountId, [row]);
      const [messages, functionCalls] = await Promise.all([
        threadJson(ctx.db, accountId, row),
        functionCallsOf(ctx, accountId, conversationId),
      ]);
      return { conversation, messages, functionCalls };
    },
  );

  app.post(
    "/app/api/conversations/:conversationId/messages",
    {
      ...session,
      schema: { operationId: "appReply", tags: TAGS, params: ConversationIdParams, body: ReplyBody },
    },
    async (request, reply) => {
      const info = sessionOf(request);
      const { conversationId } = request.params;
      const message = await sendHumanReply(
        ctx,
        info.account.id,
        conversationId,
        request.body.body,
        info.user.id,
      );
      // (The browsers hear of it from the conversation's touch in the reply's transaction.)
      const [json] = await messagesJson(ctx.db, info.account.id, [message]);
      return reply.code(201).send(json);
    },
  );

  app.patch(
    "/app/api/conversations/:conversationId",
    {
      ...session,
      schema: {
        operationId: "appUpdateConversation",
        tags: TAGS,
        params: ConversationIdParams,
        body: ConversationPatch,
      },
    },
    async (request) => {
      const { account, user } = sessionOf(request);
      const accountId = account.id;
      const { conversationId } = request.params;
      const assigneeId = request.body.assigneeId;
      // Assigned to someone else than before and than the person doing it: that someone is told.
      const before = assigneeId ? await requireInboxRow(ctx.db, accountId, conversationId) : null;
      const tellAssignee =
        before && assigneeId && assigneeId !== user.id && before.assignee_id !== assigneeId
          ? (trx: Parameters<typeof notify>[0]) =>
              notify(trx, {
                accountId,
                kind: "conversation.assigned",
                title: `${user.name ?? user.email} assigned you a conversation with ${contactLabel(before)}`,
                body: "It is in your inbox under Mine.",
                link: `/inbox/${conversationId}`,
                userIds: [assigneeId],
                webhook: {
                  conversation_id: conversationId,
                  assignee_id: assigneeId,
                  assigned_by: user.id,
                  created_at: new Date().toISOString(),
                },
                at: Date.now(),
              })
          : undefined;
      await changeInboxState(
        ctx.db,
        accountId,
        conversationId,
        request.body,
        async (userId) => Boolean(await findUser(ctx.db.kysely, accountId, userId)),
        tellAssignee,
      );
      const row = await requireInboxRow(ctx.db, accountId, conversationId);
      const [conversation] = await conversationsJson(ctx.db, accountId, [row]);
      return conversation;
    },
  );

  app.post(
    "/app/api/messages/:messageId/resend",
    { ...session, schema: { operationId: "appResendMessage", tags: TAGS, params: MessageIdParams } },
    async (request) => {
      const accountId = sessionOf(request).account.id;
      const { messageId } = request.params;
      await resendMessage(ctx, accountId, messageId);
      const message = await requireMessage(ctx, accountId, messageId);
      ctx.live.publish(accountId, { conversationId: message.conversation_id });
      return { success: true, messageId, status: "pending" };
    },
  );

  app.get(
    "/app/api/messages/:messageId/media",
    { ...session, schema: { operationId: "appGetMedia", tags: TAGS, params: MessageIdParams } },
    async (request, reply) => {
      const message = await requireMessage(ctx, sessionOf(request).account.id, request.params.messageId);
      if (message.media_state !== "stored" || !message.media_sha256) {
        const state = message.media_state ?? "none";
        throw new AppError("NOT_FOUND", `This message has no stored attachment (attachment state: ${state})`);
      }
      const file = await openBlob(ctx.storage, message.media_sha256);
      if (!file) throw new AppError("INTERNAL_ERROR", "The attachment could not be read");
      const type = message.media_content_type ?? "application/octet-stream";
      return reply
        .type(isTextType(type) ? `${type}; charset=utf-8` : type)
        .header("content-length", file.size)
        .header("etag", `"${message.media_sha256}"`)
        .header("cache-control", "private, max-age=31536000, immutable")
        .header("x-content-type-options", "nosniff")
        .header("content-security-policy", "default-src 'none'; sandbox")
        .send(file.body);
    },
  );

  // ---- live updates (SSE) ----------------------------------------------------------------------

  const streams = new Set<FastifyReply>();
  app.addHook("preClose", async () => {
    for (const r of streams) r.raw.end();
    streams.clear();
  });

  app.get(
    "/app/api/events",
    {
      ...session,
      config: { ...session.config, rateLimit: false },
      schema: { operationId: "appEvents", tags: TAGS },
    },
    async (request, reply) => {
      const accountId = sessionOf(request).account.id;
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
        "x-request-id": request.id,
      });
      raw.write(": connected\n\n");
      // The stream ends as soon as its session does: at once when sessions of the account end
      // (sign-out, removal, password change, on any node), and at each ping (expiry).
      const token = readCookie(request.headers.cookie, SESSION_COOKIE) ?? "";
      const recheck = () => {
        resolveSession(ctx.db, token).then(
          (still) => {
            if (!still) raw.end();
          },
          () => {},
        );
      };
      const stopRechecks = ctx.live.subscribeSessionsEnded(accountId, recheck);
      const unsubscribe = ctx.live.subscribe(accountId, (event) => {
        raw.write(
          `event: conversation\ndata: ${JSON.stringify({ conversationId: event.conversationId })}\n\n`,
        );
      });
      const ping = setInterval(() => {
        raw.write(": ping\n\n");
        recheck();
      }, SSE_PING_MS);
      ping.unref();
      streams.add(reply);
      const stop = () => {
        clearInterval(ping);
        unsubscribe();
        stopRechecks();
        streams.delete(reply);
      };
      raw.on("close", stop);
      request.raw.on("close", stop);
    },
  );

  // Web app part 2: contacts and lists, campaigns.
  directoryRoutes(app, ctx, session);
  campaignRoutes(app, ctx, session);
  agencyRoutes(app, ctx, session);
  importRoutes(app, ctx, session);
  // Settings → Channels.
  appChannelRoutes(app, ctx, session);
  // The chat widget: "a person is typing" to the conversation's visitor.
  typingRoutes(app, ctx, session);
  notificationRoutes(app, ctx, session);
  noteRoutes(app, ctx, session);
  // Settings → Business hours.
  businessHoursRoutes(app, ctx, session);
}

/** How a conversation's customer is named to a teammate. */
function contactLabel(row: {
  contact_first_name: string | null;
  contact_last_name: string | null;
  contact_phone: string | null;
  contact_email: string | null;
}): string {
  const name = [row.contact_first_name, row.contact_last_name].filter(Boolean).join(" ");
  return name || row.contact_phone || row.contact_email || "a customer";
}

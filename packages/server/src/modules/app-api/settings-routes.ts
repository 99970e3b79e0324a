// /app/api/settings (owners and admins): the account's settings, its API key, the webhook secret and a
// test event to the webhook URL.
import { randomBytes } from "node:crypto";
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../../context.ts";
import type { AccountUpdate } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import type { App } from "../../platform/http/types.ts";
import { OutboundError } from "../../platform/safe-fetch.ts";
import { findAccountById } from "../accounts/repo.ts";
import { rotateApiKey, rotateWebhookSecret, updateSettings } from "../accounts/service.ts";
import { requireManager } from "../accounts/team.ts";
import { findApiKeyInfo } from "../accounts/users-repo.ts";
import { validateWebhookUrl } from "../accounts/webhook-url.ts";
import { webhookHeaders } from "../delivery/signing.ts";
import { ApiKeyJson, SettingsJson, WebhookSecretJson, WebhookTestJson } from "./responses.ts";
import { SettingsPatch } from "./schemas.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

export function settingsRoutes(app: App, ctx: AppContext): void {
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

  const manager = (request: FastifyRequest) => {
    const info = sessionOf(request);
    requireManager(info);
    return info;
  };

  app.get(
    "/settings",
    { schema: { operationId: "appGetSettings", response: { 200: SettingsJson }, tags: TAGS } },
    async (request) => settingsJson(manager(request).account.id),
  );

  app.patch(
    "/settings",
    {
      schema: {
        operationId: "appUpdateSettings",
        response: { 200: SettingsJson },
        tags: TAGS,
        body: SettingsPatch,
      },
    },
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
    "/settings/api-key",
    { schema: { operationId: "appGenerateApiKey", response: { 201: ApiKeyJson }, tags: TAGS } },
    async (request, reply) => {
      const info = manager(request);
      return reply.code(201).send({ apiKey: await rotateApiKey(ctx.db, info.account.id) });
    },
  );

  app.post(
    "/settings/webhook-secret/reveal",
    { schema: { operationId: "appRevealWebhookSecret", response: { 200: WebhookSecretJson }, tags: TAGS } },
    async (request) => {
      const info = manager(request);
      const account = await findAccountById(ctx.db.kysely, info.account.id);
      return { webhookSecret: account?.webhook_secret ?? info.account.webhook_secret };
    },
  );

  app.post(
    "/settings/webhook-secret/rotate",
    { schema: { operationId: "appRotateWebhookSecret", response: { 200: WebhookSecretJson }, tags: TAGS } },
    async (request) => ({
      webhookSecret: await rotateWebhookSecret(ctx.db, manager(request).account.id),
    }),
  );

  app.post(
    "/settings/test-event",
    { schema: { operationId: "appSendTestEvent", response: { 200: WebhookTestJson }, tags: TAGS } },
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
}

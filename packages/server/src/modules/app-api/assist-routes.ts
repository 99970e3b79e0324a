// /app/api for agency assist: the header's client switcher, starting, moving and ending an assist
// (these serve the agency person even while assisting), the client's "Allow agency assist" switch and
// its audit log; and the hook that writes every state-changing assisted request into that log.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { PageQuery } from "../../platform/pagination.ts";
import { requireManager } from "../accounts/team.ts";
import {
  AssistClientsJson,
  AssistClientsQuery,
  AssistJson,
  AssistSettingsBody,
  AssistSettingsJson,
  AuditPage,
  StartAssistBody,
} from "../assist/schemas.ts";
import {
  type Assist,
  assistAllowed,
  endAssist,
  listClients,
  pageAudit,
  recordAudit,
  setAssistAllowed,
  startAssist,
} from "../assist/service.ts";
import { NoContent } from "./responses.ts";
import { assistOf, sessionOf } from "./session.ts";

const TAGS = ["app"];
const FOR_AGENCY = { assist: "agency" as const };
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function assistView(assist: Assist | undefined | null) {
  if (!assist) return null;
  return {
    agencyName: assist.agencyName,
    clientId: assist.clientId,
    clientName: assist.clientName,
    expiresAt: new Date(assist.expiresAt).toISOString(),
  };
}

/** The most specific id the request names: its last path parameter, else the created object's id. */
function objectIdOf(request: FastifyRequest, payload: unknown): string | null {
  const params = Object.values((request.params ?? {}) as Record<string, unknown>).filter(
    (v): v is string => typeof v === "string",
  );
  if (params.length > 0) return params[params.length - 1]!.slice(0, 200);
  if (typeof payload === "string" && payload.length < 100_000 && payload.startsWith("{")) {
    try {
      const id = (JSON.parse(payload) as { id?: unknown }).id;
      if (typeof id === "string") return id.slice(0, 200);
    } catch {
      // Not JSON: no id to name.
    }
  }
  return null;
}

/** onSend of /app/api: an assisted state-changing request that succeeded goes into the client's log. */
export function createAuditHook(ctx: AppContext) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const assist = assistOf(request);
    if (!assist || SAFE_METHODS.has(request.method) || reply.statusCode >= 400) return payload;
    await recordAudit(ctx, assist, {
      method: request.method,
      route: request.routeOptions.url ?? request.url.split("?")[0]!,
      objectId: objectIdOf(request, payload),
      status: reply.statusCode,
    });
    return payload;
  };
}

export function assistRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/assist/clients",
    {
      config: FOR_AGENCY,
      schema: {
        operationId: "appListAssistClients",
        response: { 200: AssistClientsJson },
        tags: TAGS,
        querystring: AssistClientsQuery,
      },
    },
    async (request) => ({ data: await listClients(ctx, sessionOf(request), request.query.search ?? "") }),
  );

  app.post(
    "/assist",
    {
      config: FOR_AGENCY,
      schema: {
        operationId: "appStartAssist",
        response: { 200: AssistJson },
        tags: TAGS,
        body: StartAssistBody,
      },
    },
    async (request) => assistView(await startAssist(ctx, sessionOf(request), request.body.accountId))!,
  );

  app.delete(
    "/assist",
    {
      config: FOR_AGENCY,
      schema: { operationId: "appEndAssist", response: { 204: NoContent }, tags: TAGS },
    },
    async (request, reply) => {
      await endAssist(ctx, sessionOf(request));
      return reply.code(204).send();
    },
  );

  app.get(
    "/settings/assist",
    { schema: { operationId: "appGetAssistSettings", response: { 200: AssistSettingsJson }, tags: TAGS } },
    async (request) => ({ allowed: await assistAllowed(ctx, sessionOf(request)) }),
  );

  // The agency cannot turn its own access back on from inside the client.
  app.put(
    "/settings/assist",
    {
      config: { assist: "refuse" },
      schema: {
        operationId: "appSetAssistSettings",
        response: { 200: AssistSettingsJson },
        tags: TAGS,
        body: AssistSettingsBody,
      },
    },
    async (request) => ({
      allowed: await setAssistAllowed(ctx, sessionOf(request), request.body.allowed),
    }),
  );

  app.get(
    "/audit-log",
    {
      schema: {
        operationId: "appListAuditLog",
        response: { 200: AuditPage },
        tags: TAGS,
        querystring: PageQuery,
      },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      return pageAudit(ctx, info.account.id, request.query);
    },
  );
}

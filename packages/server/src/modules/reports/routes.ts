// GET /v1/subaccounts/{id}/usage and /usage.csv (extension, issue 38): a client's usage per day for its
// agency. The web app's twin is app-api/usage-routes.ts (agency owners and admins).
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { SubaccountParams } from "../credits/schemas.ts";
import { requireAgency, requireSubaccount } from "../credits/service.ts";
import { UsageCsvFile, UsageJson, UsageQuery } from "./schemas.ts";
import { usage, usageCsv } from "./service.ts";

const agencyOnly = { auth: "header" as const };
const headerSecurity = [{ apiKeyHeader: [] }];
const DESCRIPTION =
  "Per UTC day, the last `days` days up to today (default 30), every day present (zeros when quiet): " +
  "messages in and out, bot replies, credits used, deliveries succeeded and failed. A message counts on " +
  "the day it was written; its delivery outcome is the one it has now. Authenticated only by the " +
  "`x-api-key` header. Errors: VALIDATION_ERROR (400, `days` outside 1–90), NOT_AGENCY (403), " +
  "SUBACCOUNT_NOT_FOUND (404, also for another agency's).";

/** Before validation, so a non-agency caller gets 403 whatever it sent. */
async function agencyGate(request: FastifyRequest): Promise<void> {
  requireAgency(accountOf(request));
}

/** The usage as a CSV download (the /v1 and /app/api doors). */
export function sendUsageCsv(reply: FastifyReply, subaccountId: string, csv: string): FastifyReply {
  const day = new Date().toISOString().slice(0, 10);
  return reply
    .header("content-type", "text/csv; charset=utf-8")
    .header("content-disposition", `attachment; filename="usage-${subaccountId}-${day}.csv"`)
    .header("cache-control", "no-store")
    .send(csv);
}

export function reportRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/v1/subaccounts/:id/usage",
    {
      config: agencyOnly,
      preValidation: agencyGate,
      schema: {
        operationId: "getSubaccountUsage",
        summary: "A sub-account's usage per day (extension, agency only)",
        description: DESCRIPTION,
        tags: ["subaccounts"],
        security: headerSecurity,
        params: SubaccountParams,
        querystring: UsageQuery,
        response: { 200: UsageJson, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const sub = await requireSubaccount(ctx.db, accountOf(request).id, request.params.id);
      return usage(ctx, sub.id, request.query.days ?? 30);
    },
  );

  app.get(
    "/v1/subaccounts/:id/usage.csv",
    {
      config: agencyOnly,
      preValidation: agencyGate,
      schema: {
        operationId: "getSubaccountUsageCsv",
        summary: "A sub-account's usage per day as CSV (extension, agency only)",
        description: `The same figures as GET /v1/subaccounts/{id}/usage, a row a day, as a download. ${DESCRIPTION}`,
        tags: ["subaccounts"],
        security: headerSecurity,
        params: SubaccountParams,
        querystring: UsageQuery,
        produces: ["text/csv"],
        response: { 200: UsageCsvFile, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const sub = await requireSubaccount(ctx.db, accountOf(request).id, request.params.id);
      const { days } = await usage(ctx, sub.id, request.query.days ?? 30);
      return sendUsageCsv(reply, sub.id, usageCsv(days));
    },
  );
}

// /app/api/subaccounts/{id}/usage(.csv): a client's usage per day on the agency's sub-account page, for
// agency owners and admins (the same figures as GET /v1/subaccounts/{id}/usage, reports/service.ts).
// Another account's (or another agency's) sub-account is 404.
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import type { App } from "../../platform/http/types.ts";
import { findAccountById } from "../accounts/repo.ts";
import { requireManager } from "../accounts/team.ts";
import { SubaccountParams } from "../credits/schemas.ts";
import { requireAgency, requireSubaccount } from "../credits/service.ts";
import { sendUsageCsv } from "../reports/routes.ts";
import { UsageCsvFile, UsageJson, UsageQuery } from "../reports/schemas.ts";
import { usage, usageCsv } from "../reports/service.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

export function usageAppRoutes(app: App, ctx: AppContext): void {
  /** The signed-in agency's sub-account `id`, or 403 / 404. */
  const subaccountOf = async (request: FastifyRequest, id: string) => {
    const info = sessionOf(request);
    requireManager(info);
    const account = await findAccountById(ctx.db.kysely, info.account.id);
    if (!account) throw new AppError("NOT_FOUND", "account not found");
    requireAgency(account);
    return requireSubaccount(ctx.db, account.id, id);
  };

  app.get(
    "/subaccounts/:id/usage",
    {
      schema: {
        operationId: "appSubaccountUsage",
        response: { 200: UsageJson },
        tags: TAGS,
        params: SubaccountParams,
        querystring: UsageQuery,
      },
    },
    async (request) =>
      usage(ctx, (await subaccountOf(request, request.params.id)).id, request.query.days ?? 30),
  );

  app.get(
    "/subaccounts/:id/usage.csv",
    {
      schema: {
        operationId: "appSubaccountUsageCsv",
        response: { 200: UsageCsvFile },
        tags: TAGS,
        params: SubaccountParams,
        querystring: UsageQuery,
      },
    },
    async (request, reply) => {
      const sub = await subaccountOf(request, request.params.id);
      const { days } = await usage(ctx, sub.id, request.query.days ?? 30);
      return sendUsageCsv(reply, sub.id, usageCsv(days));
    },
  );
}

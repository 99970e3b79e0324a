// /app/api/settings/business-hours: the settings page's Business hours section (owners and admins, as
// the rest of /app/api/settings), over the same service as /v1/account/business-hours.
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { getBusinessHours, saveBusinessHours } from "../accounts/business-hours.ts";
import { BusinessHoursBody, BusinessHoursJson } from "../accounts/schemas.ts";
import { requireManager } from "../accounts/team.ts";
import { sessionOf } from "./session.ts";

export function businessHoursRoutes(app: App, ctx: AppContext): void {
  const manager = (request: Parameters<typeof sessionOf>[0]) => {
    const info = sessionOf(request);
    requireManager(info);
    return info;
  };

  app.get(
    "/settings/business-hours",
    { schema: { operationId: "appGetBusinessHours", response: { 200: BusinessHoursJson }, tags: ["app"] } },
    async (request) => getBusinessHours(ctx.db, manager(request).account.id),
  );

  app.put(
    "/settings/business-hours",
    {
      schema: {
        operationId: "appSetBusinessHours",
        response: { 200: BusinessHoursJson },
        tags: ["app"],
        body: BusinessHoursBody,
      },
    },
    async (request) => saveBusinessHours(ctx.db, manager(request).account.id, request.body.businessHours),
  );
}

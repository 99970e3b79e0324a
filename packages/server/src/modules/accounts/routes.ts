import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { getBusinessHours, saveBusinessHours } from "./business-hours.ts";
import { AccountSettings, BusinessHoursBody, BusinessHoursJson } from "./schemas.ts";
import { settingsView } from "./service.ts";

const HOURS_RULES =
  "timezone an IANA zone (Europe/Berlin); days monday…sunday, each up to 4 ranges {open, close} " +
  "HH:MM with open before close (close may be 24:00), not overlapping, a missing or empty day closed, " +
  "at least one day open; holidays up to 100 dates YYYY-MM-DD, closed all day.";

export function accountRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/v1/account",
    {
      schema: {
        operationId: "getAccount",
        summary: "The calling account's settings (extension)",
        tags: ["account"],
        response: { 200: AccountSettings, ...errorResponses(401, 429) },
      },
    },
    async (request) => settingsView(accountOf(request)),
  );

  app.get(
    "/v1/account/business-hours",
    {
      schema: {
        operationId: "getBusinessHours",
        summary: "The account's business hours, and whether it is open now (extension)",
        description:
          "businessHours null: not set (always open). openingTime is what {{openingTime}} writes in " +
          "messages: the next opening in the account's zone, or now.",
        tags: ["account"],
        response: { 200: BusinessHoursJson, ...errorResponses(401, 429) },
      },
    },
    async (request) => getBusinessHours(ctx.db, accountOf(request).id),
  );

  app.put(
    "/v1/account/business-hours",
    {
      schema: {
        operationId: "setBusinessHours",
        summary: "Set or clear the account's business hours (extension)",
        description:
          `Replaces them as a whole; {"businessHours": null} clears them. ${HOURS_RULES} Outside them ` +
          "campaigns may send an away message instead of answering, hold follow-ups and outgoing " +
          "messages (docs/automation.md). Errors: VALIDATION_ERROR (400, naming the field; nothing changes).",
        tags: ["account"],
        body: BusinessHoursBody,
        response: { 200: BusinessHoursJson, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => saveBusinessHours(ctx.db, accountOf(request).id, request.body.businessHours),
  );
}

import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { AccountSettings } from "./schemas.ts";
import { settingsView } from "./service.ts";

export function accountRoutes(app: App, _ctx: AppContext): void {
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
}

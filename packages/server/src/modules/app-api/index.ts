// The web app's API (/app/api): a door, not a domain. Routes only; the rules live in the domains.
import type { Module } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { APP_API_PREFIX, appApiRoutes } from "./routes.ts";

export const appApiModule: Module = {
  name: "app-api",
  async routes(app, ctx) {
    await app.register(async (api) => appApiRoutes(api as unknown as App, ctx), { prefix: APP_API_PREFIX });
  },
};

// The web app's API (/app/api): a door, not a domain. Routes only; the rules live in the domains.
import type { Module } from "../../context.ts";
import { appApiRoutes } from "./routes.ts";

export const appApiModule: Module = {
  name: "app-api",
  routes: appApiRoutes,
};

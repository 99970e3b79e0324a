// Reports: the dashboard's figures (read from the domains' tables through their repositories) and
// its cache of finished days (dashboard_days); a sub-account's usage for its agency (/v1 routes.ts,
// the web app's door for the dashboard).
import type { Module } from "../../context.ts";
import { reportRoutes } from "./routes.ts";

export const reportsModule: Module = {
  name: "reports",
  routes: reportRoutes,
};

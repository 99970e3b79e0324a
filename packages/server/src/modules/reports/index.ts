// Reports: the dashboard's figures (read from the domains' tables through their repositories) and
// its cache of finished days (dashboard_days). No /v1 routes: the web app's door serves it.
import type { Module } from "../../context.ts";

export const reportsModule: Module = {
  name: "reports",
};

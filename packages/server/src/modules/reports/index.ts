// Reports: the dashboard's figures (read from the domains' tables through their repositories) and
// its days counted ahead by a recurring job (the finished days in dashboard_days, the live days as they
// were at the run in dashboard_live); a sub-account's usage for its agency (/v1 routes.ts, the web
// app's door for the dashboard).
import type { Module } from "../../context.ts";
import { reportRoutes } from "./routes.ts";
import { recountsDone } from "./service.ts";
import { SETTLE_FIRST_RUN_MS, settleDaysHandler, settleDaysJob } from "./settle.ts";

export const reportsModule: Module = {
  name: "reports",
  routes: reportRoutes,
  jobs(worker, ctx) {
    worker.register(settleDaysJob, settleDaysHandler(ctx));
    worker.recur(settleDaysJob, {}, { firstRunInMs: SETTLE_FIRST_RUN_MS });
  },
  // A dashboard's recount started behind its answer finishes before the database closes.
  close: recountsDone,
};

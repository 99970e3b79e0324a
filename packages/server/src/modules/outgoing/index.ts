// Outgoing campaigns: start, pause and stats, and the job that sends a campaign's first messages.
import type { Module } from "../../context.ts";
import { outgoingRoutes } from "./routes.ts";
import { outgoingHandler, outgoingJob } from "./service.ts";

export const outgoingModule: Module = {
  name: "outgoing",
  routes: outgoingRoutes,
  jobs(worker, ctx) {
    worker.register(outgoingJob, outgoingHandler(ctx));
  },
};

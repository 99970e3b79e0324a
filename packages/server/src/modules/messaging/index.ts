import type { Module } from "../../context.ts";
import { MEDIA_FETCH_JOB, mediaFetchHandler } from "./media/fetch-job.ts";
import { messagingRoutes } from "./routes.ts";

export { BOT_REPLY_JOB, MEDIA_FETCH_JOB } from "./service.ts";

export const messagingModule: Module = {
  name: "messaging",
  routes: messagingRoutes,
  jobs(worker, ctx) {
    worker.register(MEDIA_FETCH_JOB, mediaFetchHandler(ctx));
  },
};

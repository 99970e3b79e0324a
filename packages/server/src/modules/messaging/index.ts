import type { Module } from "../../context.ts";
import { mediaFetchJob } from "./jobs.ts";
import { mediaFetchHandler } from "./media/fetch-job.ts";
import { messagingRoutes } from "./routes.ts";

export { BOT_REPLY_JOB, botReplyJob, MEDIA_FETCH_JOB } from "./jobs.ts";

export const messagingModule: Module = {
  name: "messaging",
  routes: messagingRoutes,
  jobs(worker, ctx) {
    worker.register(mediaFetchJob, mediaFetchHandler(ctx));
  },
};

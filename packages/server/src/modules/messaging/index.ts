import type { Module } from "../../context.ts";
import { type OrphanSweep, registerSweep } from "../../platform/storage-sweep.ts";
import { mediaFetchJob } from "./jobs.ts";
import { mediaFetchHandler } from "./media/fetch-job.ts";
import { MEDIA_PREFIX, shaOfKey } from "./media/store.ts";
import { blobsInUse } from "./repo.ts";
import { messagingRoutes } from "./routes.ts";

export { BOT_REPLY_JOB, botReplyJob, MEDIA_FETCH_JOB } from "./jobs.ts";

/**
 * Attachments no message names (a crash between the file's write and the message's commit) are
 * removed, one fan-out directory (media/00/ … media/ff/) at a time so that a run may stop between two.
 */
export const mediaSweep: OrphanSweep = {
  type: "media.sweep",
  prefixes: Array.from({ length: 256 }, (_, i) => `${MEDIA_PREFIX}${i.toString(16).padStart(2, "0")}/`),
  nameOf: shaOfKey,
  named: blobsInUse,
};

export const messagingModule: Module = {
  name: "messaging",
  routes: messagingRoutes,
  jobs(worker, ctx) {
    worker.register(mediaFetchJob, mediaFetchHandler(ctx));
    registerSweep(worker, ctx, mediaSweep);
  },
};

import type { Module } from "../../context.ts";
import { cancelQueuedJobsOfSubjects } from "../../platform/jobs.ts";
import { type OrphanSweep, registerSweep } from "../../platform/storage-sweep.ts";
import { mediaFetchJob } from "./jobs.ts";
import { mediaFetchHandler } from "./media/fetch-job.ts";
import { deleteBlob, MEDIA_PREFIX, shaOfKey } from "./media/store.ts";
import { blobInUse, blobsInUse, deleteMessagesOfContact } from "./repo.ts";
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
  async onContactErased(trx, erasure) {
    const { accountId, contactId } = erasure;
    const { messageIds, blobs } = await deleteMessagesOfContact(trx, accountId, contactId);
    // A queued delivery or attachment fetch of an erased message has nothing left to do.
    await cancelQueuedJobsOfSubjects(trx, accountId, messageIds);
    // Stored files are shared by content: only those no message uses any more go, after the commit.
    erasure.afterCommit(async (ctx) => {
      for (const sha256 of blobs) {
        if (await blobInUse(ctx.db.kysely, sha256)) continue;
        await deleteBlob(ctx.storage, sha256);
      }
    });
    erasure.counts.messages += messageIds.length;
  },
};

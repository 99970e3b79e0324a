// Knowledge sources (issue 34): files, web pages and sitemaps a campaign's bot answers from. Owns
// knowledge_sources and knowledge_passages; its /v1 routes are here, the web app's in
// app-api/knowledge-routes.ts; the bot reads the passages (bot/engine-cache.ts). Not contact data: a
// contact's erasure leaves them.
import type { Module } from "../../context.ts";
import { type OrphanSweep, registerSweep } from "../../platform/storage-sweep.ts";
import { existingSourceIds } from "./repo.ts";
import { knowledgeRoutes } from "./routes.ts";
import {
  dailyResyncHandler,
  dailyResyncJob,
  KNOWLEDGE_PREFIX,
  RESYNC_CHECK_MS,
  sourceIdOfKey,
  syncHandler,
  syncJob,
} from "./service.ts";

/** Stored files whose source never committed (a crash between the two) or failed to delete. */
export const knowledgeSweep: OrphanSweep = {
  type: "knowledge.sweep",
  prefixes: [KNOWLEDGE_PREFIX],
  nameOf: sourceIdOfKey,
  named: existingSourceIds,
};

export const knowledgeModule: Module = {
  name: "knowledge",
  routes: knowledgeRoutes,
  jobs(worker, ctx) {
    worker.register(syncJob, syncHandler(ctx));
    worker.register(dailyResyncJob, dailyResyncHandler(ctx));
    worker.recur(dailyResyncJob, {}, { firstRunInMs: RESYNC_CHECK_MS });
    registerSweep(worker, ctx, knowledgeSweep);
  },
};

// What every module gets from the composition root (app.ts): config, storage, the job queue, the
// outbound HTTP client, and a logger. Modules never build these themselves.
import type { FastifyBaseLogger } from "fastify";
import type { Config } from "./config.ts";
import type { Db } from "./platform/db/index.ts";
import type { App } from "./platform/http/types.ts";
import type { JobWorker } from "./platform/jobs.ts";
import type { SafeFetcher } from "./platform/safe-fetch.ts";

export interface AppContext {
  config: Config;
  db: Db;
  worker: JobWorker;
  log: FastifyBaseLogger;
  /** Outbound HTTP through the SSRF guard (attachments, webhooks), one keep-alive pool. */
  fetcher: SafeFetcher;
}

export type CliValues = Record<string, string | boolean | undefined>;

/** An operator command (`parley <noun> <verb>`): its result is printed as one JSON line. */
export interface CliCommand {
  summary: string;
  options: Record<string, { type: "string" | "boolean"; short?: string }>;
  run(values: CliValues, ctx: AppContext): Promise<unknown>;
}

/** A domain module: its HTTP routes, job handlers and CLI commands. */
export interface Module {
  name: string;
  routes?(app: App, ctx: AppContext): void | Promise<void>;
  jobs?(worker: JobWorker, ctx: AppContext): void;
  /** Keyed by "noun verb", e.g. "account create". */
  commands?: Record<string, CliCommand>;
  /** Called on shutdown after the worker stopped (close pools, timers). */
  close?(): Promise<void>;
}

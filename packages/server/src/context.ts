// What every module gets from the composition root (app.ts): config, storage, the job queue, the
// outbound HTTP client, and a logger. Modules never build these themselves.
import type { FastifyBaseLogger } from "fastify";
import type { Transaction } from "kysely";
import type { Config } from "./config.ts";
import type { Db } from "./platform/db/index.ts";
import type { Database, MessageRow } from "./platform/db/schema.ts";
import type { App } from "./platform/http/types.ts";
import type { JobWorker } from "./platform/jobs.ts";
import type { Live } from "./platform/live.ts";
import type { SafeFetcher } from "./platform/safe-fetch.ts";
import type { ObjectStorage } from "./platform/storage.ts";

export interface AppContext {
  config: Config;
  db: Db;
  worker: JobWorker;
  log: FastifyBaseLogger;
  /** Outbound HTTP through the SSRF guard (attachments, webhooks), one keep-alive pool. */
  fetcher: SafeFetcher;
  /** Files (attachments, uploaded imports): DATA_DIR or an S3-compatible bucket (STORAGE_URL). */
  storage: ObjectStorage;
  /** What the modules do, in the new account's transaction, when an account is created. */
  onAccountCreated: AccountCreatedHook[];
  /** What the modules do in the transaction of a person's reply (the bot's follow-up clock). */
  onHumanReply: HumanReplyHook[];
  /** What the modules do, in the erasure's transaction, when a contact is erased (each deletes its rows). */
  onContactErased: ContactErasedHook[];
  /** Caches owned by this app instance (cleared when it closes), never by a module's top level. */
  caches: AppCaches;
  /** "A conversation changed" for the web app's live updates (publish after the commit). */
  live: Live;
  /**
   * The one-time onboarding token of a fresh install (no account yet): printed at start, needed to
   * onboard from anywhere but the server itself; null once an account exists.
   */
  setup: { token: string | null };
}

export interface NewAccountInfo {
  accountId: string;
  kind: "standard" | "agency" | "subaccount";
  /** Hundredths of a credit given at creation (operator's --credits). */
  initialCredits: number;
  at: number;
}

/** A module's part of creating an account (its default campaign, its opening ledger entry). */
export type AccountCreatedHook = (trx: Transaction<Database>, account: NewAccountInfo) => Promise<void>;

/**
 * A module's part of a person's reply, in its transaction, after the message is written: lets a module
 * above the delivery module (the bot) act on it without the delivery module importing it.
 */
export type HumanReplyHook = (trx: Transaction<Database>, reply: MessageRow) => Promise<void>;

/** A contact being erased: each module deletes its own rows of it in the erasure's transaction. */
export interface ContactErasure {
  accountId: string;
  contactId: string;
  /** The contact's conversations, found before any row goes. */
  conversationIds: string[];
  /** What the erase answer reports: the messaging module counts the messages it deletes. */
  counts: { messages: number };
  /** Work for after the commit (a stored file nothing uses any more); nothing runs on a rollback. */
  afterCommit(task: (ctx: AppContext) => Promise<void>): void;
}

/**
 * A module's part of erasing a contact. The hooks run in reverse registration order (the modules
 * above first), so rows that name a message or a conversation go before it.
 */
export type ContactErasedHook = (trx: Transaction<Database>, erasure: ContactErasure) => Promise<void>;

/** Named caches of one app instance: `get` creates on first use; `clear` empties all (on close). */
export class AppCaches {
  private readonly byName = new Map<string, { clear(): void }>();

  get<T extends { clear(): void }>(name: string, create: () => T): T {
    let cache = this.byName.get(name);
    if (!cache) {
      cache = create();
      this.byName.set(name, cache);
    }
    return cache as T;
  }

  clear(): void {
    for (const cache of this.byName.values()) cache.clear();
    this.byName.clear();
  }
}

/** The hooks of every module, in registration order. */
export function accountCreatedHooks(modules: Module[]): AccountCreatedHook[] {
  return modules.flatMap((m) => (m.onAccountCreated ? [m.onAccountCreated] : []));
}

export function humanReplyHooks(modules: Module[]): HumanReplyHook[] {
  return modules.flatMap((m) => (m.onHumanReply ? [m.onHumanReply] : []));
}

/** In reverse registration order: a module above deletes its rows before the rows they name go. */
export function contactErasedHooks(modules: Module[]): ContactErasedHook[] {
  return modules.flatMap((m) => (m.onContactErased ? [m.onContactErased] : [])).reverse();
}

export type CliValues = Record<string, string | boolean | undefined>;

/** An operator command (`parley <noun> <verb>`): its result is printed as one JSON line. */
export interface CliCommand {
  summary: string;
  options: Record<string, { type: "string" | "boolean"; short?: string }>;
  /** Runs before any database is opened or migrated (backup, restore): only ctx.config is set. */
  withoutDatabase?: boolean;
  /** The name under which the command's one positional argument reaches `run` (`contacts import FILE`). */
  positional?: string;
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
  /** Runs inside the transaction that creates an account. */
  onAccountCreated?: AccountCreatedHook;
  /** Runs inside the transaction of a person's reply (inbox or API), after the message is written. */
  onHumanReply?: HumanReplyHook;
  /** Runs inside the transaction that erases a contact: deletes this module's rows of it. */
  onContactErased?: ContactErasedHook;
}

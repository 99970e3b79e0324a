// Storage: Kysely over better-sqlite3 (embedded default) or pg (DATABASE_URL), one migration set for both.
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";
import pg from "pg";
import { AccountWriteTracker } from "./change-tracker.ts";
import {
  type CommitListener,
  type CommitSignal,
  CommitSignals,
  collectSignals,
  stopCollecting,
} from "./commit-signals.ts";
import { GroupCommitter } from "./group-commit.ts";
import * as m001 from "./migrations/001_initial.ts";
import * as m002 from "./migrations/002_account_change_notify.ts";
import * as m003 from "./migrations/003_drop_job_lease_index.ts";
import * as m004 from "./migrations/004_drop_message_conversation_index.ts";
import * as m005 from "./migrations/005_delivery_attempt_details.ts";
import * as m006 from "./migrations/006_web_app.ts";
import * as m009 from "./migrations/009_contact_labels.ts";
import * as m010 from "./migrations/010_dashboard.ts";
import * as m011 from "./migrations/011_imports.ts";
import * as m012 from "./migrations/012_outgoing.ts";
import * as m015 from "./migrations/015_outgoing_skip_reason.ts";
import * as m020 from "./migrations/020_channels.ts";
import * as m021 from "./migrations/021_tenant_emails.ts";
import * as m024 from "./migrations/024_import_modes.ts";
import * as m025 from "./migrations/025_contact_seen.ts";
import * as m026 from "./migrations/026_channel_providers.ts";
import * as m027 from "./migrations/027_message_media_index.ts";
import * as m028 from "./migrations/028_bot_functions.ts";
import * as m029 from "./migrations/029_follow_ups.ts";
import * as m030 from "./migrations/030_notifications.ts";
import * as m031 from "./migrations/031_business_hours.ts";
import * as m032 from "./migrations/032_password_resets.ts";
import * as m033 from "./migrations/033_conversation_notes.ts";
import * as m034search from "./migrations/034_message_search.ts";
import * as m035 from "./migrations/035_canned_replies.ts";
import * as m036events from "./migrations/036_conversation_events.ts";
import * as m037reads from "./migrations/037_conversation_reads.ts";
import * as m038 from "./migrations/038_export_order_indexes.ts";
import * as m039suspension from "./migrations/039_account_suspension.ts";
import * as m040assist from "./migrations/040_assist_and_audit.ts";
import * as m041brand from "./migrations/041_agency_brand.ts";
import * as m043usage from "./migrations/043_usage_indexes.ts";
import * as m044trigram from "./migrations/044_search_trigram.ts";
import * as m045knowledge from "./migrations/045_knowledge_sources.ts";
import * as m046suggestions from "./migrations/046_message_suggestions.ts";
import * as m047dashboardLive from "./migrations/047_dashboard_live.ts";
import { nameStatements, StatementNames } from "./named-statements.ts";
import type { Database } from "./schema.ts";

export type Dialect = "sqlite" | "postgres";

export interface Db {
  /** For reads. Every write goes through write(), never through this handle. */
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  /**
   * The one way to write: runs `work` in a transaction and resolves once it is committed. On SQLite
   * concurrent writes share one transaction and one fsync (group commit); on PostgreSQL each runs in
   * its own transaction on the pool and the server's synchronous commit does the grouping. Signals
   * raised inside (signalAfterCommit: jobs enqueued, conversations changed) are delivered after the
   * commit to listeners registered with onCommit.
   */
  write<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /** Listens for a signal raised inside this Db's committed writes; returns the unsubscribe. */
  onCommit(topic: string, listener: CommitListener): () => void;
  /** Delivers signals of a write committed outside write() (a batched statement in autocommit). */
  deliver(signals: CommitSignal[]): void;
  /**
   * PostgreSQL only: runs one statement in autocommit as a named prepared statement (parsed and
   * planned once per connection, not per call), then delivers `signals` as after a committed write.
   */
  runNamed?<R>(
    statement: { name: string; text: string },
    values: unknown[],
    signals?: string[],
  ): Promise<R[]>;
  /** SQLite only: PRAGMA data_version, which changes when another connection commits. */
  dataVersion?(): number;
  /** Group-commit counters (SQLite): transactions committed and writes they held. */
  groupStats(): { batches: number; writes: number };
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const MIGRATIONS: Record<string, Migration> = {
  "001_initial": m001,
  "002_account_change_notify": m002,
  "003_drop_job_lease_index": m003,
  "004_drop_message_conversation_index": m004,
  "005_delivery_attempt_details": m005,
  "006_web_app": m006,
  "009_contact_labels": m009,
  "010_dashboard": m010,
  "011_imports": m011,
  "012_outgoing": m012,
  "015_outgoing_skip_reason": m015,
  "020_channels": m020,
  "021_tenant_emails": m021,
  "024_import_modes": m024,
  "025_contact_seen": m025,
  "026_channel_providers": m026,
  "027_message_media_index": m027,
  "028_bot_functions": m028,
  "029_follow_ups": m029,
  "030_notifications": m030,
  "031_business_hours": m031,
  "032_password_resets": m032,
  "033_conversation_notes": m033,
  "034_message_search": m034search,
  "035_canned_replies": m035,
  "036_conversation_events": m036events,
  "037_conversation_reads": m037reads,
  "038_export_order_indexes": m038,
  "039_account_suspension": m039suspension,
  "040_assist_and_audit": m040assist,
  "041_agency_brand": m041brand,
  "043_usage_indexes": m043usage,
  "044_search_trigram": m044trigram,
  "045_knowledge_sources": m045knowledge,
  "046_message_suggestions": m046suggestions,
  "047_dashboard_live": m047dashboardLive,
};

class StaticMigrations implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

// pg returns int8 as strings by default; every bigint here (times in ms, hundredths) fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface DbOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** Pool size on PostgreSQL. */
  poolSize?: number;
}

export function openDatabase(options: DbOptions): Db {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    // A client's error (the server restarting, a network cut) must never crash the process: idle
    // clients report through the pool, clients checked out for a query through their own listener.
    // The query in flight fails (503 to its caller) and the pool replaces the broken client.
    pool.on("error", () => {});
    const names = new StatementNames();
    pool.on("connect", (client) => {
      client.on("error", () => {});
      // No JIT compilation: Parley's queries are short, and a skewed table (one contact with millions
      // of messages) lifts the planner's cost estimates over the JIT thresholds, so a 2 ms inbox page
      // spent 200 ms compiling. Queued before any other query of this connection.
      client.query("set jit = off").catch(() => {});
      nameStatements(client, names);
    });
    const db = wrap(
      new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [new AccountWriteTracker()] }),
      "postgres",
    );
    return {
      ...db,
      async runNamed<R>(
        statement: { name: string; text: string },
        values: unknown[],
        signals: string[] = [],
      ) {
        const result = await pool.query({ name: statement.name, text: statement.text, values });
        db.deliver(signals.map((topic) => ({ topic })));
        return result.rows as R[];
      },
    };
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, "parley.sqlite");
  const sqlite = new SQLite(file);
  // WAL lets readers run beside the writer; synchronous=FULL fsyncs every commit, so an
  // acknowledged write survives power loss. busy_timeout covers a second process (CLI, worker).
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = FULL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  // A 16 MB page cache keeps the hot index pages of a few million rows in memory (default: 2 MB).
  sqlite.pragma("cache_size = -16000");
  // Reads beyond that cache come straight from the OS page cache through a memory map instead of a
  // read() per page: at 1 M contacts the look-up p50 went from 1.08-1.22× to 0.96-0.98× of the
  // 10 k figure. File-backed mapped pages are reclaimable; under ingestion peak RSS stayed the same.
  sqlite.pragma("mmap_size = 268435456");
  cachePreparedStatements(sqlite);
  const db = wrap(
    new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqlite }),
      plugins: [new AccountWriteTracker()],
    }),
    "sqlite",
    sqlite,
  );
  const dataVersion = sqlite.prepare("pragma data_version").pluck();
  return { ...db, dataVersion: () => dataVersion.get() as number };
}

/**
 * Kysely prepares every query it runs; re-preparing the same SQL costs more than running it on the
 * hot path. Statements are reused by their SQL text (queries are run to completion, never streamed,
 * so one statement is never in use twice at once).
 */
function cachePreparedStatements(sqlite: SQLite.Database): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const cache = new Map<string, SQLite.Statement>();
  sqlite.prepare = ((source: string) => {
    let stmt = cache.get(source);
    if (!stmt) {
      stmt = prepare(source);
      if (cache.size >= 2000) cache.clear();
      cache.set(source, stmt);
    }
    return stmt;
  }) as typeof sqlite.prepare;
}

function wrap(kysely: Kysely<Database>, dialect: Dialect, sqlite?: SQLite.Database): Db {
  const signals = new CommitSignals();
  const group = sqlite ? new GroupCommitter(kysely, sqlite, signals) : null;
  return {
    kysely,
    dialect,
    write: async (work) => {
      if (group) return group.write(work);
      let raised: Parameters<CommitSignals["deliver"]>[0] = [];
      const result = await kysely.transaction().execute(async (trx) => {
        raised = collectSignals(trx);
        try {
          return await work(trx);
        } finally {
          stopCollecting(trx);
        }
      });
      signals.deliver(raised);
      return result;
    },
    onCommit: (topic, listener) => signals.on(topic, listener),
    deliver: (raised) => signals.deliver(raised),
    groupStats: () => ({ ...(group?.stats ?? { batches: 0, writes: 0 }) }),
    async migrate() {
      // Unordered: a migration numbered below one a database already ran (work merged from parallel
      // branches) still runs, instead of stopping the start.
      const migrator = new Migrator({
        db: kysely,
        provider: new StaticMigrations(),
        allowUnorderedMigrations: true,
      });
      const { error, results } = await migrator.migrateToLatest();
      if (error) throw error instanceof Error ? error : new Error(String(error));
      return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
    },
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    async close() {
      signals.clear();
      await kysely.destroy();
    },
  };
}

/**
 * True when an error means the database cannot be reached right now (PostgreSQL shutting down or
 * restarting, a refused or broken connection, SQLite's file locked past the busy timeout), so the
 * request may be retried: answered 503, never 500.
 */
/**
 * The one place the SQLite-or-PostgreSQL path is chosen, for delivery and incoming alike: on
 * PostgreSQL (named statements) items are batched into shared statements; on SQLite each is its own
 * transaction, and group commit batches them.
 */
export function takesBatchedPath(db: Pick<Db, "runNamed">): boolean {
  return db.runNamed !== undefined;
}

export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  const code = e?.code ?? "";
  if (/^(57P0[1-3]|08\d\d\d|53300)$/.test(code)) return true;
  if (["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "SQLITE_BUSY"].includes(code)) return true;
  const message = e?.message ?? "";
  return /Connection terminated|connection timeout|Client has encountered a connection error|not currently accepting connections/i.test(
    message,
  );
}

/** True when the disk (SQLite's file, a stored attachment) or PostgreSQL's storage is full. */
export function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code ?? "";
  return code === "SQLITE_FULL" || code === "ENOSPC" || code === "53100";
}

/** True when an error is a unique-constraint violation on either database. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return (
    e?.code === "23505" ||
    e?.code === "SQLITE_CONSTRAINT_UNIQUE" ||
    e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY"
  );
}

// Storage: Kysely over better-sqlite3 (embedded default) or pg (DATABASE_URL), one migration set for both.
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";
import pg from "pg";
import * as m001 from "./migrations/001_initial.ts";
import type { Database } from "./schema.ts";

export type Dialect = "sqlite" | "postgres";

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const MIGRATIONS: Record<string, Migration> = {
  "001_initial": m001,
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
    // An idle client's error (server restart) must not crash the process; the pool replaces it.
    pool.on("error", () => {});
    return wrap(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), "postgres");
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
  return wrap(new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) }), "sqlite");
}

function wrap(kysely: Kysely<Database>, dialect: Dialect): Db {
  return {
    kysely,
    dialect,
    async migrate() {
      const migrator = new Migrator({ db: kysely, provider: new StaticMigrations() });
      const { error, results } = await migrator.migrateToLatest();
      if (error) throw error instanceof Error ? error : new Error(String(error));
      return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
    },
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    async close() {
      await kysely.destroy();
    },
  };
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

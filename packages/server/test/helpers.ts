// Test harness: a real Parley app (real Fastify, real database) per test file. With DATABASE_URL set
// (CI's PostgreSQL pass) each app gets a fresh PostgreSQL database; otherwise a fresh SQLite file.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import pg from "pg";
import { type BuildOptions, buildApp, type Parley } from "../src/app.ts";
import { type Config, loadConfig } from "../src/config.ts";
import {
  type CreateAccountInput,
  type CreatedAccount,
  createAccount,
} from "../src/modules/accounts/service.ts";

export const PG_URL = process.env.DATABASE_URL ?? null;
export const REDIS_URL = process.env.TEST_REDIS_URL ?? null;
export const DIALECT = PG_URL ? "postgres" : "sqlite";

export interface TestDatabase {
  databaseUrl: string | null;
  dataDir: string;
  drop(): Promise<void>;
}

/** A fresh, empty database (PostgreSQL database or SQLite data directory) for one app. */
export async function freshDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-test-"));
  if (!PG_URL) {
    return {
      databaseUrl: null,
      dataDir,
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `parley_t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir,
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function testConfig(db: TestDatabase, env: Record<string, string> = {}): Config {
  return loadConfig({
    DATA_DIR: db.dataDir,
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    LOG_LEVEL: "silent",
    RATE_LIMIT_PER_MINUTE: "100000",
    // Tests send invalid keys on purpose, many from one address.
    AUTH_FAILURES_PER_MINUTE: "100000",
    OUTBOUND_ALLOW_CIDRS: "127.0.0.0/8,::1/128",
    ...env,
  });
}

/** Collects log lines written by the app (pino JSON). */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join("\n");
  }
}

export interface TestApp {
  parley: Parley;
  config: Config;
  database: TestDatabase;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** A new account; its API key is returned, shown once as in production. */
  account(overrides?: Partial<CreateAccountInput>): Promise<CreatedAccount>;
  close(): Promise<void>;
}

let accountCounter = 0;

export async function startTestApp(
  env: Record<string, string> = {},
  options: BuildOptions = {},
): Promise<TestApp> {
  const database = await freshDatabase();
  const config = testConfig(database, env);
  const parley = await buildApp(config, { worker: { pollIntervalMs: 20, leaseMs: 5_000 }, ...options });
  return {
    parley,
    config,
    database,
    inject: (opts) => parley.app.inject(opts),
    account: (overrides = {}) =>
      createAccount(parley.ctx, {
        email: `user${++accountCounter}-${randomBytes(3).toString("hex")}@example.com`,
        password: "correct horse battery",
        kind: "standard",
        ...overrides,
      }),
    async close() {
      await parley.close();
      await database.drop();
    },
  };
}

export function json<T = Record<string, unknown>>(res: LightMyRequestResponse): T {
  return JSON.parse(res.body) as T;
}

/** A cursor page, as every list endpoint answers it. */
export type Page<T> = { data: T[]; hasMore: boolean; nextCursor: string | null };

/** An e-mail address no other test uses. */
export const uniqueEmail = (tag: string) => `${tag}-${randomBytes(4).toString("hex")}@example.com`;

/** A new agency account, with its e-mail. */
export async function newAgency(t: TestApp) {
  const email = uniqueEmail("agency");
  return { email, ...(await t.account({ email, kind: "agency" })) };
}

/** An account's balance in hundredths of a credit, read from the database. */
export async function balanceOf(t: TestApp, accountId: string): Promise<number> {
  const row = await t.parley.db.kysely
    .selectFrom("accounts")
    .select("credits")
    .where("id", "=", accountId)
    .executeTakeFirstOrThrow();
  return row.credits;
}

/** The error form every route answers with. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** The error code of an error answer. */
export const errorCode = (res: LightMyRequestResponse) => json<ErrorBody>(res).error.code;

/** A request with an API key in the query (as the custom-channel callers send it), optional JSON body. */
export const callWithKey = (
  t: TestApp,
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  url: string,
  key: string,
  body?: unknown,
): Promise<LightMyRequestResponse> =>
  t.inject({
    method,
    url: `${url}${url.includes("?") ? "&" : "?"}apiKey=${key}`,
    ...(body === undefined ? {} : { payload: body as object }),
  });

/** Runs the app's queued jobs (bot replies, deliveries, inbound webhooks) until `check` holds. */
export async function drainUntil(
  t: TestApp,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 8_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    await t.parley.worker.drain();
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

// The transactional outbox: jobs are rows written in the same transaction as the data they act on,
// then claimed by workers with a lease. At-least-once: a worker that dies leaves its jobs to be
// claimed again once the lease expires, so handlers must be idempotent.
import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { type Insertable, type Kysely, sql, type Transaction } from "kysely";
import type { Static, TSchema } from "typebox";
import { Compile } from "typebox/compile";
import { Batcher } from "./db/batcher.ts";
import { signalAfterCommit } from "./db/commit-signals.ts";
import type { Db } from "./db/index.ts";
import { param, prepared } from "./db/prepared.ts";
import type { Database, JobRow, JobsTable } from "./db/schema.ts";
import { newId } from "./ids.ts";

export interface JobInput {
  type: string;
  accountId?: string | null;
  payload: unknown;
  /** The id of the row the job acts on (a message, an event): lets the jobs API find it by id. */
  subjectId?: string | null;
  /** Epoch ms; default now. */
  runAt?: number;
  maxAttempts?: number;
}

/** The commit signal raised by enqueueJobs: the Db's worker wakes after the commit. */
export const JOBS_ENQUEUED = "jobs.enqueued";

/**
 * A job type with its payload schema: `create` builds a JobInput from a typed payload, the worker
 * checks every stored payload against the schema before the handler sees it (a payload that does not
 * match ends the job as dead, with the reason).
 */
export interface JobType<P> {
  readonly type: string;
  create(payload: P, options: { accountId: string | null; runAt?: number }): JobInput;
  parse(raw: unknown): { ok: true; payload: P } | { ok: false; error: string };
}

export function defineJob<S extends TSchema>(
  type: string,
  schema: S,
  options: { maxAttempts?: number; subject?: (payload: Static<S>) => string | null } = {},
): JobType<Static<S>> {
  const check = Compile(schema);
  return {
    type,
    create: (payload, { accountId, runAt }) => ({
      type,
      accountId,
      payload,
      subjectId: options.subject?.(payload) ?? null,
      ...(runAt === undefined ? {} : { runAt }),
      ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    }),
    parse: (raw) =>
      check.Check(raw)
        ? { ok: true, payload: raw as Static<S> }
        : { ok: false, error: `${type} payload does not match its schema: ${JSON.stringify(raw)}` },
  };
}

export interface JobContext {
  id: string;
  type: string;
  accountId: string | null;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
  log: FastifyBaseLogger;
  /**
   * Deletes this job inside the handler's own final write, so the outcome and the job's completion
   * share one commit (the worker then writes nothing more). Only for handlers that then return
   * undefined.
   */
  finishIn(trx: Transaction<Database>): Promise<void>;
  /**
   * For a handler that ends its job in a statement of its own (PostgreSQL, autocommit: see
   * pgDeleteClaimedJobsFrom): the job's id and lock token, and `finished()` to call once that
   * statement succeeded, so the worker writes nothing more.
   */
  readonly claim: { id: string; lockedBy: string | null };
  finished(): void;
  /**
   * Enqueues jobs that this worker runs as soon as the caller's write commits, without a claim: they
   * are written already claimed by it (running, a lease, attempt 1). A crash before they finish leaves
   * them to the lease's expiry, as any claimed job: at-least-once holds. For a job that directly
   * follows this one (a bot reply's delivery).
   */
  enqueueHere(trx: Transaction<Database>, jobs: JobInput[]): Promise<void>;
}

/** The commit signal carrying jobs written already claimed by a worker (JobContext.enqueueHere). */
const JOBS_CLAIMED = "jobs.claimed";

/**
 * PostgreSQL SQL deleting the claimed jobs listed by `source` (columns id, locked_by): for handlers
 * that end their jobs in the same statement as their outcomes (see JobContext.claim).
 */
export function pgDeleteClaimedJobsFrom(source: string): string {
  return `delete from jobs j using ${source} where j.id = x.id and j.locked_by = x.locked_by`;
}

const FINISH_JOBS = {
  name: "parley_jobs_finish_v1",
  text: pgDeleteClaimedJobsFrom("unnest($1::text[], $2::text[]) as x(id, locked_by)"),
};

/** A handler returns nothing when done, or asks to run again at a given time (its own schedule). */
export type JobResult = undefined | { retryAt: number; error?: string } | { dead: true; error: string };
export type JobHandler<P = unknown> = (payload: P, ctx: JobContext) => Promise<JobResult | undefined>;

/**
 * A handler for many jobs of one type at once (jobs claimed together): one outcome per job, in order
 * (a rejected one fails that job alone). It may end jobs in its own final write (finishJobsIn).
 */
export type BatchJobHandler<P = unknown> = (
  jobs: Array<{ payload: P; ctx: JobContext }>,
) => Promise<Array<PromiseSettledResult<JobResult | undefined>>>;

/**
 * Deletes jobs claimed together inside the handler's own final write, in one statement: call each
 * job's `finished()` after that write committed, so the worker writes nothing more for them.
 */
export async function finishJobsIn(trx: Transaction<Database>, jobs: JobContext[]): Promise<void> {
  for (const [token, claimed] of Map.groupBy(jobs, (j) => j.claim.lockedBy)) {
    if (token === null) continue;
    const ids = claimed.map((j) => j.id);
    await trx.deleteFrom("jobs").where("locked_by", "=", token).where("id", "in", ids).execute();
  }
}

export const DEFAULT_MAX_ATTEMPTS = 10;

/** How often a started worker checks that its recurring jobs are queued. */
const RECURRING_CHECK_MS = 600_000;

const JOB_COLUMNS = [
  "id",
  "type",
  "account_id",
  "subject_id",
  "payload",
  "status",
  "run_at",
  "attempts",
  "max_attempts",
  "lease_until",
  "locked_by",
  "last_error",
  "created_at",
  "updated_at",
] as const satisfies ReadonlyArray<keyof JobsTable>;

const insertJob = prepared<Insertable<JobsTable>, never>((db) =>
  db
    .insertInto("jobs")
    .values(Object.fromEntries(JOB_COLUMNS.map((c) => [c, param(c)])) as unknown as Insertable<JobsTable>),
);

const deleteClaimedJob = prepared<{ id: string; lockedBy: string | null }, never>((db) =>
  db
    .deleteFrom("jobs")
    .where("id", "=", param<string>("id"))
    .where("locked_by", "=", param<string>("lockedBy")),
);

function jobRow(j: JobInput, id: string, now: number): Insertable<JobsTable> {
  return {
    id,
    type: j.type,
    account_id: j.accountId ?? null,
    subject_id: j.subjectId ?? null,
    payload: JSON.stringify(j.payload ?? null),
    status: "queued" as const,
    run_at: j.runAt ?? now,
    attempts: 0,
    max_attempts: j.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    lease_until: null,
    locked_by: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}

export async function enqueueJobs(
  db: Kysely<Database> | Transaction<Database>,
  jobs: JobInput[],
  claimedBy?: { token: string; leaseUntil: number },
): Promise<string[]> {
  if (jobs.length === 0) return [];
  const now = Date.now();
  const rows = jobs.map((j) => {
    const row = jobRow(j, newId("job"), now);
    return claimedBy
      ? {
          ...row,
          status: "running" as const,
          attempts: 1,
          locked_by: claimedBy.token,
          lease_until: claimedBy.leaseUntil,
        }
      : row;
  });
  // One job (the usual case) through its prepared statement; many (replies written together) in one.
  if (rows.length === 1) await insertJob.run(db, rows[0] as Insertable<JobsTable>);
  else {
    // Chunks keep each statement under both databases' limits on bound parameters.
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto("jobs")
        .values(rows.slice(i, i + 500))
        .execute();
  }
  if (claimedBy) signalAfterCommit(db, JOBS_CLAIMED, rows);
  else signalAfterCommit(db, JOBS_ENQUEUED);
  return rows.map((r) => r.id);
}

/** The ids of a subject's jobs of one type that are still queued or running (e.g. a message's delivery). */
export async function activeJobsOf(
  db: Kysely<Database> | Transaction<Database>,
  accountId: string,
  type: string,
  subjectId: string,
): Promise<Array<{ id: string; status: "queued" | "running" | "dead" }>> {
  return (
    db
      .selectFrom("jobs")
      .select(["id", "status"])
      // Found through jobs_due_idx (status, run_at): active jobs are few.
      .where("status", "in", ["queued", "running"])
      .where("type", "=", type)
      .where("account_id", "=", accountId)
      .where("subject_id", "=", subjectId)
      .execute()
  );
}

/**
 * A recurring job (the storage sweeps) is one row with a fixed id, so that every process may queue it
 * (JobWorker.recur) and still only one is ever pending; its handler queues its next run itself
 * (queueNextRun). Ids of ordinary jobs never start with this.
 */
export const RECURRING_JOB_ID_PREFIX = "job_recurring_";

export function recurringJobId(type: string): string {
  return `${RECURRING_JOB_ID_PREFIX}${type}`;
}

/** Queues a recurring job's row unless it is there (queued or running); a dead one is queued again. */
export async function queueRecurringJob(db: Transaction<Database>, job: JobInput): Promise<void> {
  const now = Date.now();
  const row = jobRow(job, recurringJobId(job.type), now);
  await db
    .insertInto("jobs")
    .values(row)
    .onConflict((oc) =>
      oc
        .column("id")
        .doUpdateSet({
          status: "queued",
          payload: row.payload,
          run_at: row.run_at,
          attempts: 0,
          lease_until: null,
          locked_by: null,
          last_error: null,
          updated_at: now,
        })
        .where("jobs.status", "=", "dead"),
    )
    .execute();
  signalAfterCommit(db, JOBS_ENQUEUED);
}

/**
 * A recurring job's handler, in its final write: ends this run and queues the next one (same id, its
 * own payload and time, attempts from zero). Should another worker have taken the job over (this
 * run's lease expired), its row is that run's and is left alone.
 */
export async function queueNextRun(
  trx: Transaction<Database>,
  job: JobContext,
  next: JobInput,
): Promise<void> {
  await job.finishIn(trx);
  await trx
    .insertInto("jobs")
    .values(jobRow(next, recurringJobId(next.type), Date.now()))
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
  signalAfterCommit(trx, JOBS_ENQUEUED);
}

/** Cancels queued jobs by id (running ones are left to finish). */
export async function cancelQueuedJobs(db: Transaction<Database>, jobIds: string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await db.deleteFrom("jobs").where("id", "in", jobIds).where("status", "=", "queued").execute();
}

/**
 * PostgreSQL SQL that queues one job per row of `source` (columns id, type, account_id, subject_id,
 * payload, run_at), for statements that write several tables in one round trip (a data-modifying
 * CTE). The jobs table's columns are written here, next to enqueueJobs, and nowhere else.
 */
export function pgInsertJobsFrom(source: string): string {
  return `insert into jobs (id, type, account_id, subject_id, payload, status, run_at, attempts,
      max_attempts, lease_until, locked_by, last_error, created_at, updated_at)
    select id, type, account_id, subject_id, payload, 'queued', run_at, 0, ${DEFAULT_MAX_ATTEMPTS},
      null, null, null, run_at, run_at
    from ${source}`;
}

/** Exponential backoff for handlers that throw: 1 s, 2 s, 4 s … capped at 10 min, ±20 % jitter. */
export function backoffMs(attempt: number): number {
  const base = Math.min(1000 * 2 ** Math.max(0, attempt - 1), 600_000);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

export interface WorkerOptions {
  db: Db;
  log: FastifyBaseLogger;
  /** Jobs running at once in this worker. */
  concurrency?: number;
  /** Jobs of one account running at once, so one busy tenant cannot take every slot. */
  perAccountConcurrency?: number;
  pollIntervalMs?: number;
  leaseMs?: number;
}

export class JobWorker {
  private readonly handlers = new Map<
    string,
    { parse: JobType<unknown>["parse"]; run: JobHandler; batch?: BatchJobHandler }
  >();
  private readonly db: Db;
  private readonly log: FastifyBaseLogger;
  private readonly concurrency: number;
  private readonly perAccount: number;
  /** Free slots (the worker's, an account's) worth a claim while jobs are running. */
  private readonly minClaim: number;
  private readonly runningByAccount = new Map<string, number>();
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  /** Jobs running (a batch is one promise in inFlight but counts each of its jobs here). */
  private runningJobs = 0;
  /**
   * PostgreSQL: the jobs that finished while one delete was in flight end together in the next, in
   * autocommit (a transaction per job would cost three round trips and a WAL flush each).
   */
  private readonly finisher: Batcher<{ id: string; lockedBy: string | null }, undefined> | null;
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private pollAgain = false;
  private lastRecovery = 0;
  private readonly recurring: Array<{ type: string; payload: unknown; firstRunInMs: number }> = [];
  private recurringDueAt = 0;
  private readonly stopWaking: () => void;
  private readonly stopRunningClaimed: () => void;
  /** Prefixes the lock tokens of jobs this worker writes already claimed (enqueueHere). */
  private readonly id = randomUUID();

  constructor(options: WorkerOptions) {
    this.db = options.db;
    this.log = options.log;
    // 128/64 drained 10,000 webhooks about 30 % faster than 64/32 (more outcomes share each commit);
    // 64 per account matches the outbound client's 64 connections per receiving origin.
    this.concurrency = options.concurrency ?? 128;
    this.perAccount = Math.min(options.perAccountConcurrency ?? 64, this.concurrency);
    this.minClaim = Math.max(1, Math.floor(this.perAccount / 4));
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.leaseMs = options.leaseMs ?? 60_000;
    const runNamed = this.db.runNamed;
    this.finisher = runNamed
      ? new Batcher(async (jobs) => {
          await runNamed(FINISH_JOBS, [jobs.map((j) => j.id), jobs.map((j) => j.lockedBy)]);
          return jobs.map(() => undefined);
        })
      : null;
    // Jobs enqueued by a committed write of this process are picked up at once, not at the next poll.
    this.stopWaking = this.db.onCommit(JOBS_ENQUEUED, () => this.wake());
    this.stopRunningClaimed = this.db.onCommit(JOBS_CLAIMED, (rows) => this.runClaimed(rows as JobRow[]));
  }

  register<P>(jobType: JobType<P>, handler: JobHandler<P>): void {
    this.handlers.set(jobType.type, { parse: jobType.parse, run: handler as JobHandler });
  }

  /**
   * A job type whose jobs claimed together run as one batch (`handler` alone runs a single one: the
   * handler of record for tests that call it, and of a batch of one).
   */
  registerBatch<P>(jobType: JobType<P>, handler: JobHandler<P>, batch: BatchJobHandler<P>): void {
    this.handlers.set(jobType.type, {
      parse: jobType.parse,
      run: handler as JobHandler,
      batch: batch as BatchJobHandler,
    });
  }

  /**
   * A job that runs again and again (its handler queues its next run with queueNextRun, its type is
   * registered as usual): a started worker queues its row when missing (first run `firstRunInMs`
   * later), at start and then every 10 minutes, so a job that died is queued again.
   */
  recur<P>(jobType: JobType<P>, payload: P, options: { firstRunInMs: number }): void {
    this.recurring.push({ type: jobType.type, payload, firstRunInMs: options.firstRunInMs });
  }

  /** Queues the recurring jobs' rows that are missing (or dead). A started worker does it itself. */
  async queueRecurring(): Promise<void> {
    if (this.recurring.length === 0) return;
    const now = Date.now();
    await this.db.write(async (trx) => {
      for (const r of this.recurring) {
        await queueRecurringJob(trx, { type: r.type, payload: r.payload, runAt: now + r.firstRunInMs });
      }
    });
  }

  get types(): string[] {
    return [...this.handlers.keys()];
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Ask for a poll now (called after a commit that enqueued jobs). */
  wake(): void {
    if (this.running) this.schedule(0);
  }

  /** Stop claiming, then wait for jobs in flight to finish. */
  async stop(): Promise<void> {
    this.running = false;
    this.stopWaking();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // Jobs in flight may still write jobs for this worker to run (enqueueHere): they run before it
    // stops, instead of waiting out their lease.
    while (this.inFlight.size > 0 || this.polling) {
      await Promise.allSettled([...this.inFlight]);
      if (this.polling) await new Promise((r) => setTimeout(r, 5));
    }
    this.stopRunningClaimed();
  }

  /**
   * Claim and run due jobs until none is left (tests and `parley worker --once` use this).
   * Jobs scheduled in the future are left alone.
   */
  async drain(maxRounds = 1000): Promise<number> {
    let total = 0;
    for (let round = 0; round < maxRounds; round++) {
      await this.recoverExpiredLeases(true);
      const claimed = await this.claim(this.concurrency);
      if (claimed.length === 0 && this.inFlight.size === 0) return total;
      total += claimed.length;
      this.dispatch(claimed);
      await Promise.allSettled([...this.inFlight]);
    }
    return total;
  }

  private schedule(delay: number): void {
    if (!this.running) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), delay);
  }

  private async poll(): Promise<void> {
    this.timer = null;
    if (!this.running) return;
    this.polling = true;
    let claimedCount = 0;
    if (this.recurring.length > 0 && Date.now() >= this.recurringDueAt) {
      try {
        await this.queueRecurring();
        this.recurringDueAt = Date.now() + RECURRING_CHECK_MS;
      } catch (err) {
        this.recurringDueAt = Date.now() + 10_000;
        this.log.warn({ err }, "could not queue the recurring jobs; trying again soon");
      }
    }
    try {
      await this.recoverExpiredLeases(false);
      const free = this.concurrency - this.runningJobs;
      // With jobs running, wait until a handful of slots are free: a claim per finished job would claim
      // one job at a time (no batches) and cost a write each.
      if (free >= Math.min(this.minClaim, this.concurrency) || this.runningJobs === 0) {
        // At most one account's share per claim: more would mostly go straight back to the queue.
        const claimed = await this.claim(Math.min(free, this.perAccount));
        claimedCount = claimed.length;
        this.dispatch(claimed);
      }
    } catch (err) {
      this.log.error({ err }, "job poll failed");
    } finally {
      this.polling = false;
    }
    const full = this.runningJobs >= this.concurrency;
    const again = this.pollAgain || (claimedCount > 0 && !full);
    this.pollAgain = false;
    // With free slots and work found, look again at once; when full, a finishing job wakes us.
    if (!full) this.schedule(again ? 0 : this.pollIntervalMs);
  }

  /** Jobs written already claimed by this worker (JobContext.enqueueHere), run once their write committed. */
  private runClaimed(rows: JobRow[]): void {
    const mine = rows.filter((r) => r.locked_by?.startsWith(`${this.id}:`));
    for (const job of mine) {
      if (job.account_id)
        this.runningByAccount.set(job.account_id, (this.runningByAccount.get(job.account_id) ?? 0) + 1);
    }
    this.dispatch(mine);
  }

  /** Runs claimed jobs: those of a batch type together (one batch per type), the others one by one. */
  private dispatch(claimed: JobRow[]): void {
    const batched = (job: JobRow) => claimed.length > 1 && this.handlers.get(job.type)?.batch !== undefined;
    for (const job of claimed) if (!batched(job)) this.track(this.execute(job), 1);
    for (const jobs of Map.groupBy(claimed.filter(batched), (job) => job.type).values()) {
      if (jobs.length === 1) this.track(this.execute(jobs[0] as JobRow), 1);
      else this.track(this.executeBatch(jobs), jobs.length);
    }
  }

  private track(p: Promise<void>, jobs: number): void {
    this.inFlight.add(p);
    this.runningJobs += jobs;
    void p.finally(() => {
      this.inFlight.delete(p);
      this.runningJobs -= jobs;
      if (this.running) this.schedule(0);
    });
  }

  private async recoverExpiredLeases(force: boolean): Promise<void> {
    const now = Date.now();
    if (!force && now - this.lastRecovery < 1000) return;
    this.lastRecovery = now;
    const recovered = await this.db.kysely
      .updateTable("jobs")
      .set({ status: "queued", locked_by: null, lease_until: null, updated_at: now })
      // Found through jobs_due_idx (status, run_at): running jobs are few (the workers' concurrency).
      .where("status", "=", "running")
      .where("lease_until", "<", now)
      .executeTakeFirst();
    if (Number(recovered.numUpdatedRows) > 0) {
      this.log.warn({ count: Number(recovered.numUpdatedRows) }, "recovered jobs whose lease expired");
    }
  }

  private async claim(limit: number): Promise<JobRow[]> {
    const types = this.types;
    if (types.length === 0 || limit <= 0) return [];
    const now = Date.now();
    const token = randomUUID();
    // An account takes part once a handful of its share is free (else the claim would mostly put its
    // jobs straight back, one kept per claim).
    const saturated = [...this.runningByAccount]
      .filter(([, n]) => n > this.perAccount - Math.min(this.minClaim, this.perAccount))
      .map(([id]) => id);
    const notSaturated =
      saturated.length > 0
        ? sql`and (account_id is null or account_id not in (${sql.join(saturated)}))`
        : sql``;
    const lock = this.db.dialect === "postgres" ? sql`for update skip locked` : sql``;
    // Claim and put-back in one write: on SQLite it joins the group commit of job outcomes.
    const claimed = await this.db.write(async (trx) => {
      const result = await sql<JobRow>`
        update jobs set status = 'running', attempts = attempts + 1, locked_by = ${token},
          lease_until = ${now + this.leaseMs}, updated_at = ${now}
        where id in (
          select id from jobs
          where status = 'queued' and run_at <= ${now} and type in (${sql.join(types)}) ${notSaturated}
          order by run_at
          limit ${limit}
          ${lock}
        )
        returning *`.execute(trx);
      // Jobs past an account's share go straight back to the queue, untouched.
      const kept: JobRow[] = [];
      const excess: string[] = [];
      const taken = new Map<string, number>();
      for (const job of result.rows) {
        const key = job.account_id;
        const running = key ? (this.runningByAccount.get(key) ?? 0) + (taken.get(key) ?? 0) : 0;
        if (key && running >= this.perAccount) {
          excess.push(job.id);
          continue;
        }
        if (key) taken.set(key, (taken.get(key) ?? 0) + 1);
        kept.push(job);
      }
      if (excess.length > 0) {
        await trx
          .updateTable("jobs")
          .set({ status: "queued", attempts: sql`attempts - 1`, locked_by: null, lease_until: null })
          .where("id", "in", excess)
          .where("locked_by", "=", token)
          .execute();
      }
      return kept;
    });
    // Counted only once the claim is committed, so a failed claim cannot leak a slot.
    for (const job of claimed) {
      if (job.account_id)
        this.runningByAccount.set(job.account_id, (this.runningByAccount.get(job.account_id) ?? 0) + 1);
    }
    return claimed;
  }

  private release(job: JobRow): void {
    const key = job.account_id;
    if (!key) return;
    const n = (this.runningByAccount.get(key) ?? 1) - 1;
    if (n <= 0) this.runningByAccount.delete(key);
    else this.runningByAccount.set(key, n);
  }

  private contextOf(job: JobRow): { ctx: JobContext; isFinished: () => boolean } {
    const log = this.log.child({ jobId: job.id, jobType: job.type, attempt: job.attempts });
    let finished = false;
    const ctx: JobContext = {
      id: job.id,
      type: job.type,
      accountId: job.account_id,
      attempt: job.attempts,
      maxAttempts: job.max_attempts,
      log,
      finishIn: async (trx) => {
        await deleteClaimedJob.all(trx, { id: job.id, lockedBy: job.locked_by });
        finished = true;
      },
      claim: { id: job.id, lockedBy: job.locked_by },
      finished: () => {
        finished = true;
      },
      enqueueHere: async (trx, jobs) => {
        await enqueueJobs(trx, jobs, {
          token: `${this.id}:${randomUUID()}`,
          leaseUntil: Date.now() + this.leaseMs,
        });
      },
    };
    return { ctx, isFinished: () => finished };
  }

  private async execute(job: JobRow): Promise<void> {
    const handler = this.handlers.get(job.type);
    const { ctx, isFinished } = this.contextOf(job);
    let outcome: JobResult | undefined;
    let failure: string | null = null;
    try {
      if (!handler) throw new Error(`no handler for job type ${job.type}`);
      const parsed = handler.parse(JSON.parse(job.payload));
      outcome = parsed.ok ? await handler.run(parsed.payload, ctx) : { dead: true, error: parsed.error };
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
      ctx.log.warn({ err }, "job failed");
    }
    this.release(job);
    await this.record(job, ctx.log, isFinished(), outcome, failure);
  }

  /** Jobs of one batch type claimed together: one call of its batch handler, then each job's outcome. */
  private async executeBatch(jobs: JobRow[]): Promise<void> {
    const handler = this.handlers.get(jobs[0]?.type ?? "");
    const runs = jobs.map((job) => ({ job, ...this.contextOf(job) }));
    const valid: Array<{ payload: unknown; ctx: JobContext; at: number }> = [];
    const results: Array<{ outcome: JobResult | undefined; failure: string | null }> = runs.map(
      ({ job, ctx }, at) => {
        try {
          const parsed = handler?.parse(JSON.parse(job.payload));
          if (!parsed) return { outcome: undefined, failure: `no handler for job type ${job.type}` };
          if (!parsed.ok) return { outcome: { dead: true, error: parsed.error }, failure: null };
          valid.push({ payload: parsed.payload, ctx, at });
          return { outcome: undefined, failure: null };
        } catch (err) {
          return { outcome: undefined, failure: err instanceof Error ? err.message : String(err) };
        }
      },
    );
    if (valid.length > 0 && handler?.batch) {
      let settled: Array<PromiseSettledResult<JobResult | undefined>>;
      try {
        settled = await handler.batch(valid.map(({ payload, ctx }) => ({ payload, ctx })));
      } catch (err) {
        settled = valid.map(() => ({ status: "rejected", reason: err }));
      }
      valid.forEach(({ at, ctx }, i) => {
        const s = settled[i];
        if (s?.status === "fulfilled") results[at] = { outcome: s.value, failure: null };
        else {
          const reason = s ? s.reason : new Error("the batch handler gave no outcome for this job");
          ctx.log.warn({ err: reason }, "job failed");
          results[at] = {
            outcome: undefined,
            failure: reason instanceof Error ? reason.message : String(reason),
          };
        }
      });
    }
    for (const { job } of runs) this.release(job);
    await Promise.all(
      runs.map(({ job, ctx, isFinished }, i) => {
        const r = results[i] as { outcome: JobResult | undefined; failure: string | null };
        return this.record(job, ctx.log, isFinished(), r.outcome, r.failure);
      }),
    );
  }

  /** Writes a job's outcome: deleted when done, queued again for a retry, or dead. */
  private async record(
    job: JobRow,
    log: FastifyBaseLogger,
    finished: boolean,
    outcome: JobResult | undefined,
    failure: string | null,
  ): Promise<void> {
    if (finished && failure === null && outcome === undefined) return;
    const now = Date.now();
    const cleared = { lease_until: null, locked_by: null, updated_at: now };
    if (this.finisher && failure === null && outcome === undefined) {
      try {
        await this.finisher.submit({ id: job.id, lockedBy: job.locked_by });
      } catch (err) {
        // The lease will expire and the job will run again: at-least-once.
        log.error({ err }, "could not record job outcome");
      }
      return;
    }
    try {
      // Outcomes go through db.write: on SQLite, concurrent jobs' outcomes share one commit.
      await this.db.write(async (trx) => {
        const mine = () =>
          trx.updateTable("jobs").where("id", "=", job.id).where("locked_by", "=", job.locked_by);
        if (failure === null && outcome === undefined) {
          await trx
            .deleteFrom("jobs")
            .where("id", "=", job.id)
            .where("locked_by", "=", job.locked_by)
            .execute();
        } else if (outcome && "dead" in outcome) {
          await mine()
            .set({ status: "dead", last_error: outcome.error, ...cleared })
            .execute();
        } else if (outcome && "retryAt" in outcome) {
          await mine()
            .set({ status: "queued", run_at: outcome.retryAt, last_error: outcome.error ?? null, ...cleared })
            .execute();
        } else if (job.attempts >= job.max_attempts) {
          log.error({ error: failure }, "job gave up after its last attempt");
          await mine()
            .set({ status: "dead", last_error: failure, ...cleared })
            .execute();
        } else {
          await mine()
            .set({ status: "queued", run_at: now + backoffMs(job.attempts), last_error: failure, ...cleared })
            .execute();
        }
      });
    } catch (err) {
      // The lease will expire and the job will run again: at-least-once.
      log.error({ err }, "could not record job outcome");
    }
  }
}

/** Cancels the queued jobs that act on these rows (erasure); running ones find their row gone. */
export async function cancelQueuedJobsOfSubjects(
  db: Transaction<Database>,
  accountId: string,
  subjectIds: string[],
): Promise<void> {
  for (let i = 0; i < subjectIds.length; i += 500) {
    await db
      .deleteFrom("jobs")
      .where("account_id", "=", accountId)
      .where("subject_id", "in", subjectIds.slice(i, i + 500))
      .where("status", "=", "queued")
      .execute();
  }
}

// Group commit: concurrent writers' work is gathered into one transaction with one fsync. Each
// caller's work runs inside its own savepoint, so a failing write fails only its own caller, and
// every caller is answered only after the COMMIT that holds its write.
import type SQLite from "better-sqlite3";
import type { Kysely, Transaction } from "kysely";
import { type CommitSignals, collectSignals, stopCollecting } from "./commit-signals.ts";
import { runRawInside } from "./prepared.ts";
import type { Database } from "./schema.ts";

export type WriteWork<T> = (trx: Transaction<Database>) => Promise<T>;

interface Pending {
  work: WriteWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** A batch large enough to amortise the fsync, small enough to keep latency flat. */
const MAX_BATCH = 256;

export class GroupCommitter {
  private readonly kysely: Kysely<Database>;
  private readonly sqlite: SQLite.Database;
  private readonly signals: CommitSignals;
  private queue: Pending[] = [];
  private flushing = false;
  /** Batches committed and writes they held (benchmarks read these). */
  readonly stats = { batches: 0, writes: 0 };

  constructor(kysely: Kysely<Database>, sqlite: SQLite.Database, signals: CommitSignals) {
    this.kysely = kysely;
    this.sqlite = sqlite;
    this.signals = signals;
  }

  write<T>(work: WriteWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work: work as WriteWork<unknown>, resolve: resolve as (v: unknown) => void, reject });
      if (!this.flushing) {
        this.flushing = true;
        // Let requests that arrived in the same I/O turn join the first batch.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
      let raised: ReturnType<typeof collectSignals> = [];
      try {
        const savepoint = this.sqlite.prepare("savepoint group_write");
        const release = this.sqlite.prepare("release savepoint group_write");
        const rollback = this.sqlite.prepare("rollback to savepoint group_write");
        // A transaction we commit and roll back ourselves: when SQLite rolls a transaction back on
        // its own (a full disk, an I/O error), the error that did it is what every caller gets, not
        // a later "cannot rollback - no transaction is active".
        const trx = await this.kysely.startTransaction().execute();
        raised = collectSignals(trx);
        try {
          // While this batch holds the connection, prepared hot-path queries may use it directly.
          await runRawInside(trx, this.sqlite, async () => {
            for (const item of batch) {
              if (batch.length === 1) {
                outcomes.push({ ok: true, value: await item.work(trx) });
                continue;
              }
              savepoint.run();
              try {
                const value = await item.work(trx);
                release.run();
                outcomes.push({ ok: true, value });
              } catch (error) {
                // SQLite gave up the whole transaction: the batch fails with this error.
                if (!this.sqlite.inTransaction) throw error;
                rollback.run();
                release.run();
                outcomes.push({ ok: false, error });
              }
            }
          });
          await trx.commit().execute();
        } catch (error) {
          await trx
            .rollback()
            .execute()
            .catch(() => undefined);
          throw error;
        } finally {
          stopCollecting(trx);
        }
        this.stats.batches++;
        this.stats.writes += batch.length;
        this.signals.deliver(raised);
        batch.forEach((item, i) => {
          const o = outcomes[i]!;
          if (o.ok) item.resolve(o.value);
          else item.reject(o.error);
        });
      } catch (error) {
        // The commit itself failed (or a lone write threw): nothing of this batch is durable.
        for (const item of batch) item.reject(error);
      }
    }
    this.flushing = false;
  }
}

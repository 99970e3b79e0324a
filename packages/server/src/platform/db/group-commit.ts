// Group commit: concurrent writers' work is gathered into one transaction with one fsync. Each
// caller's work runs inside its own savepoint, so a failing write fails only its own caller, and
// every caller is answered only after the COMMIT that holds its write.
import { type Kysely, sql, type Transaction } from "kysely";
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
  private queue: Pending[] = [];
  private flushing = false;
  /** Batches committed and writes they held (benchmarks read these). */
  readonly stats = { batches: 0, writes: 0 };

  constructor(kysely: Kysely<Database>) {
    this.kysely = kysely;
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
      try {
        await this.kysely.transaction().execute(async (trx) => {
          for (const item of batch) {
            if (batch.length === 1) {
              outcomes.push({ ok: true, value: await item.work(trx) });
              continue;
            }
            await sql`savepoint group_write`.execute(trx);
            try {
              const value = await item.work(trx);
              await sql`release savepoint group_write`.execute(trx);
              outcomes.push({ ok: true, value });
            } catch (error) {
              await sql`rollback to savepoint group_write`.execute(trx);
              await sql`release savepoint group_write`.execute(trx);
              outcomes.push({ ok: false, error });
            }
          }
        });
        this.stats.batches++;
        this.stats.writes += batch.length;
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

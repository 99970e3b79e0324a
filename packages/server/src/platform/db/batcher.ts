// Gathers concurrent callers' items into batches for one statement: callers that arrive while a
// batch is in flight share the next one, so N requests cost one round trip and one commit instead
// of N. Each caller is answered with its own result, only after the statement that holds its write
// returned (committed, in autocommit). If the batch fails as a whole, every caller gets the error and
// may take its slower, individual path.
interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

export class Batcher<I, O> {
  private readonly run: (items: I[]) => Promise<O[]>;
  private readonly maxBatch: number;
  private readonly lanes: number;
  private queue: Waiting<I, O>[] = [];
  private active = 0;
  private scheduled = false;
  /** Batches run, items they held, and batches that failed as a whole (tests and benchmarks read these). */
  readonly stats = { batches: 0, items: 0, failed: 0 };

  constructor(run: (items: I[]) => Promise<O[]>, options: { maxBatch?: number; lanes?: number } = {}) {
    this.run = run;
    this.maxBatch = options.maxBatch ?? 256;
    this.lanes = options.lanes ?? 2;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.scheduled || this.active >= this.lanes || this.queue.length === 0) return;
    this.scheduled = true;
    // Let the requests of this I/O turn join the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.active >= this.lanes || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.active++;
    this.stats.batches++;
    this.stats.items += batch.length;
    try {
      const results = await this.run(batch.map((w) => w.item));
      batch.forEach((w, i) => {
        w.resolve(results[i] as O);
      });
    } catch (error) {
      this.stats.failed++;
      for (const w of batch) w.reject(error);
    } finally {
      this.active--;
      this.kick();
    }
  }
}

// Signals that fire once a write has committed: a job was enqueued (wake the worker), a conversation
// changed (tell the browsers). Code inside a db.write() transaction raises them with
// `signalAfterCommit(trx, …)`; the Db that ran the transaction delivers them after its COMMIT, and
// never for a transaction that rolled back. A statement run outside db.write() raises nothing (the
// worker still finds its jobs by polling).

export type CommitSignal = { topic: string; payload?: unknown };

const pendingByTransaction = new WeakMap<object, CommitSignal[]>();

/** Called by the Db around each transaction it runs. */
export function collectSignals(trx: object): CommitSignal[] {
  const list: CommitSignal[] = [];
  pendingByTransaction.set(trx, list);
  return list;
}

export function stopCollecting(trx: object): void {
  pendingByTransaction.delete(trx);
}

/**
 * Raises `topic` for after the commit of the transaction `q` belongs to. A savepoint of a group
 * commit that rolls back may leave its signal behind: listeners must treat a signal as "look again",
 * never as proof of a row.
 */
export function signalAfterCommit(q: object, topic: string, payload?: unknown): void {
  pendingByTransaction.get(q)?.push(payload === undefined ? { topic } : { topic, payload });
}

export type CommitListener = (payload: unknown) => void;

/** One Db's listeners by topic (owned by that Db, so two apps in one process never cross). */
export class CommitSignals {
  private readonly listeners = new Map<string, Set<CommitListener>>();

  on(topic: string, listener: CommitListener): () => void {
    let set = this.listeners.get(topic);
    if (!set) {
      set = new Set();
      this.listeners.set(topic, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  deliver(signals: CommitSignal[]): void {
    // A topic without payload is delivered once per commit, however many writes raised it.
    const seen = new Set<string>();
    for (const s of signals) {
      if (s.payload === undefined) {
        if (seen.has(s.topic)) continue;
        seen.add(s.topic);
      }
      for (const listener of this.listeners.get(s.topic) ?? []) {
        try {
          listener(s.payload);
        } catch {
          // A listener's failure must not turn a committed write into an error for its caller.
        }
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

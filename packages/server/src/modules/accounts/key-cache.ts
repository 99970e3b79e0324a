// Caches API key → account for the hot path, without ever outliving a rotation or a settings change:
// an entry is valid only while the "accounts generation" it was read under is current. The generation
// moves when
//   - this process writes the accounts or api_keys tables (seen by a Kysely plugin, so no caller can
//     forget to invalidate),
//   - another connection commits to the SQLite file (PRAGMA data_version: the CLI, a second process),
//   - another PostgreSQL session commits such a change (triggers NOTIFY parley_accounts; every node
//     LISTENs). While the LISTEN connection is down the cache is bypassed.
import pg from "pg";
import { accountsGeneration } from "../../platform/db/change-tracker.ts";
import type { AccountRow } from "../../platform/db/schema.ts";

export const ACCOUNTS_CHANNEL = "parley_accounts";
const MAX_ENTRIES = 10_000;
/** A safety net only: correctness comes from the generation, not from expiry. */
const TTL_MS = 5 * 60_000;

/** Something that tells whether other writers changed the data since last asked. */
export interface ExternalChangeSignal {
  /** A value that changes whenever another connection committed a relevant change; null = unknown. */
  current(): string | null;
  close(): Promise<void>;
}

/**
 * SQLite: PRAGMA data_version changes when another connection commits to the file. Read once per
 * event-loop turn, not once per request: the requests of one turn share the answer, and another
 * process's commit is seen from the next turn on.
 */
export function sqliteChangeSignal(readDataVersion: () => number): ExternalChangeSignal {
  let thisTurn: string | null = null;
  return {
    current: () => {
      if (thisTurn === null) {
        thisTurn = String(readDataVersion());
        setImmediate(() => {
          thisTurn = null;
        });
      }
      return thisTurn;
    },
    close: async () => {},
  };
}

/** PostgreSQL: LISTEN to the triggers' NOTIFY; unknown (cache off) while not listening. */
export function postgresChangeSignal(
  databaseUrl: string,
  onError: (err: unknown) => void,
): ExternalChangeSignal {
  let counter = 0;
  let listening = false;
  let closed = false;
  let client: pg.Client | null = null;
  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: databaseUrl });
    c.on("notification", () => {
      counter++;
    });
    c.on("error", (err) => {
      listening = false;
      onError(err);
      void c.end().catch(() => {});
      if (!closed) setTimeout(() => void connect(), 1000);
    });
    try {
      await c.connect();
      await c.query(`listen ${ACCOUNTS_CHANNEL}`);
      client = c;
      counter++; // anything may have changed while we were not listening
      listening = true;
    } catch (err) {
      onError(err);
      void c.end().catch(() => {});
      if (!closed) setTimeout(() => void connect(), 1000);
    }
  };
  void connect();
  return {
    current: () => (listening ? String(counter) : null),
    async close() {
      closed = true;
      listening = false;
      await client?.end().catch(() => {});
    },
  };
}

export interface CachedKey {
  keyId: string;
  keyHash: string;
  account: AccountRow;
}

interface Entry extends CachedKey {
  generation: string;
  expires: number;
}

export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly signal: ExternalChangeSignal;

  constructor(signal: ExternalChangeSignal) {
    this.signal = signal;
  }

  /** The current generation, or null when the cache must not be used. */
  generation(): string | null {
    const external = this.signal.current();
    return external === null ? null : `${accountsGeneration()}:${external}`;
  }

  get(keyHash: string, generation: string): Entry | undefined {
    const e = this.entries.get(keyHash);
    if (!e) return undefined;
    if (e.generation !== generation || e.expires < Date.now()) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return e;
  }

  set(keyHash: string, value: CachedKey, generation: string): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(keyHash, { ...value, generation, expires: Date.now() + TTL_MS });
  }

  close(): Promise<void> {
    return this.signal.close();
  }
}

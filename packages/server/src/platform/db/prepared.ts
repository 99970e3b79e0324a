// Hot-path queries, written once with Kysely's builder and compiled once per dialect. Inside a
// group-commit transaction on SQLite they run as cached better-sqlite3 statements, synchronously:
// Kysely's per-query overhead (building, compiling, its async connection hand-off: about 25 µs)
// is several times the cost of the statement itself. Everywhere else they run through Kysely.
import type SQLite from "better-sqlite3";
import { type Compilable, CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { Database } from "./schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

const SENTINEL = "\u0000param:";

/** A named placeholder for `prepared()` builders; typed as the column's type so builders type-check. */
export function param<T>(name: string): T {
  return `${SENTINEL}${name}` as unknown as T;
}

/** Transactions whose connection may be used directly (set by the SQLite group committer). */
const rawTransactions = new WeakMap<object, SQLite.Database>();

export function runRawInside<T>(
  trx: Transaction<Database>,
  sqlite: SQLite.Database,
  work: () => Promise<T>,
): Promise<T> {
  rawTransactions.set(trx, sqlite);
  return work().finally(() => rawTransactions.delete(trx));
}

interface Compiled {
  sql: string;
  /** Per parameter: the name to take from the call's params, or a constant from the builder. */
  slots: Array<{ name: string } | { value: unknown }>;
  query: CompiledQuery["query"];
}

export interface PreparedQuery<P, R> {
  /** Rows (for selects and RETURNING); [] for other statements. */
  all(db: Q, params: P): Promise<R[]>;
  first(db: Q, params: P): Promise<R | undefined>;
  /** For statements without RETURNING: the number of rows changed (no result row is built). */
  run(db: Q, params: P): Promise<number>;
}

export function prepared<P extends Record<string, unknown>, R>(
  build: (db: Kysely<Database>) => Compilable<R>,
): PreparedQuery<P, R> {
  const byAdapter = new Map<unknown, Compiled>();
  const compile = (db: Q): Compiled => {
    const adapter = db.getExecutor().adapter.constructor;
    let c = byAdapter.get(adapter);
    if (!c) {
      const q = build(db as Kysely<Database>).compile();
      c = {
        sql: q.sql,
        query: q.query,
        slots: q.parameters.map((v) =>
          typeof v === "string" && v.startsWith(SENTINEL) ? { name: v.slice(SENTINEL.length) } : { value: v },
        ),
      };
      byAdapter.set(adapter, c);
    }
    return c;
  };
  /** Runs the statement: directly on a group-commit connection, else through Kysely. */
  const execute = async (db: Q, params: P): Promise<{ rows: R[]; changes: number }> => {
    const c = compile(db);
    const values = c.slots.map((s) => ("name" in s ? (params[s.name] ?? null) : s.value));
    const raw = rawTransactions.get(db);
    if (raw) {
      const stmt = raw.prepare(c.sql);
      if (stmt.reader) return { rows: stmt.all(...values) as R[], changes: 0 };
      return { rows: [], changes: stmt.run(...values).changes };
    }
    const result = await db.executeQuery<R>({ ...CompiledQuery.raw(c.sql, values), query: c.query });
    return { rows: [...result.rows], changes: Number(result.numAffectedRows ?? 0n) };
  };
  const all = async (db: Q, params: P) => (await execute(db, params)).rows;
  return {
    all,
    first: async (db, params) => (await all(db, params))[0],
    run: async (db, params) => (await execute(db, params)).changes,
  };
}

// PostgreSQL: every parameterised statement Kysely sends runs as a named prepared statement, so the
// server parses and plans it once per connection instead of on every call. Kysely sends unnamed
// statements; on the bot-reply path (about sixteen short statements per reply) parsing and planning
// cost PostgreSQL more CPU than executing them (docs/experiments.md).
import type pg from "pg";

/** Distinct statement texts named per process; texts beyond it run unnamed, as before. */
const MAX_NAMED_TEXTS = 500;
/**
 * Statements with more parameters than this are bulk inserts or long `in (…)` lists whose text
 * changes with their length: naming them would fill the cache with texts used once.
 */
const MAX_NAMED_PARAMETERS = 32;

/**
 * In a statement's text, runs it unnamed: planned on each call with its values. For a search, whose
 * best plan depends on the text searched: after five runs of a named statement PostgreSQL may keep a
 * generic plan, which for a search's pattern scans every contact or message (~200 ms at 100,000).
 */
export const PLAN_EACH_CALL = "/* plan each call */";

type PlainQuery = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/** The names given to statement texts, shared by the connections of one pool. */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private issued = 0;

  /** The name to prepare `text` under, or undefined to send it unnamed. */
  nameFor(text: string, parameterCount: number): string | undefined {
    if (parameterCount === 0 || parameterCount > MAX_NAMED_PARAMETERS || text.includes(PLAN_EACH_CALL)) {
      return undefined;
    }
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= MAX_NAMED_TEXTS) return known;
    return this.issue(text);
  }

  /**
   * The statement's result shape changed under it (another process migrated the schema): its text
   * gets a fresh name, so every connection prepares it again. The old name stays on the connections
   * that prepared it, unused, until they close.
   */
  renew(text: string): void {
    this.issue(text);
  }

  get size(): number {
    return this.names.size;
  }

  private issue(text: string): string {
    const name = `parley_auto_${this.issued++}`;
    this.names.set(text, name);
    return name;
  }
}

/** "cached plan must not change result type": a `select *` prepared before a column was added. */
function isResultTypeChanged(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === "0A000" && typeof e.message === "string" && e.message.includes("result type");
}

/**
 * Makes `client` send Kysely's parameterised statements named. Called once per new pooled client.
 * Only the promise form Kysely uses (text and values, no callback) is changed.
 */
export function nameStatements(client: pg.PoolClient, names: StatementNames): void {
  const plain = client.query.bind(client) as PlainQuery;
  const named: PlainQuery = (config, values, callback) => {
    if (typeof config !== "string" || !Array.isArray(values) || callback !== undefined) {
      return plain(config, values, callback);
    }
    const name = names.nameFor(config, values.length);
    if (name === undefined) return plain(config, values);
    // Outside a transaction a failed statement changed nothing, so it can simply be sent again.
    const autocommit = client.getTransactionStatus() === "I";
    return (plain({ name, text: config, values }) as Promise<unknown>).catch((err: unknown) => {
      if (!isResultTypeChanged(err)) throw err;
      names.renew(config);
      // Inside a transaction the error has aborted it: the caller's write fails once, as on any
      // conflict, and its retry prepares the statement again under the fresh name.
      if (!autocommit) throw err;
      return plain(config, values);
    });
  };
  (client as unknown as { query: PlainQuery }).query = named;
}

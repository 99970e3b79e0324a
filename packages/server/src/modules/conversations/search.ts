// The inbox's message search (issue 33): the words of `q` found through the databases' full-text
// indexes (migration 034_message_search), and a short snippet of the matching message with the words
// marked. Account id first; another account's messages never match.
import { type Kysely, sql } from "kysely";
import type { Db } from "../../platform/db/index.ts";
import { PLAN_EACH_CALL } from "../../platform/db/named-statements.ts";
import type { Database } from "../../platform/db/schema.ts";

/** The newest matching messages a search looks at (their conversations make the result). */
export const SEARCH_HITS = 1000;
const MAX_TERMS = 8;
const MAX_TERM_LENGTH = 64;

export interface MessageHit {
  id: string;
  conversation_id: string;
  body: string;
}

export interface SearchMatch {
  messageId: string;
  snippet: string;
  /** [start, end) offsets into snippet of each matched word, in order. */
  highlights: Array<[number, number]>;
}

/**
 * The words of the user's text: runs of letters and digits (any script), lower-cased. Everything
 * else (quotes, operators, `*`, punctuation, emoji) separates words and never reaches the query
 * language, so no input can make a malformed query.
 */
export function searchTerms(q: string): string[] {
  const words =
    q
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.map((w) => w.slice(0, MAX_TERM_LENGTH)))].slice(0, MAX_TERMS);
}

/**
 * The account's newest messages holding every term as a whole word, newest first, at most `limit`.
 * Whole words: a prefix query merges every word it starts (millions of postings for "s"), which
 * cost a second at 5 M messages; a word's postings are read newest first and stop at `limit`.
 */
export async function newestMatches(
  db: Db,
  accountId: string,
  terms: string[],
  limit = SEARCH_HITS,
): Promise<MessageHit[]> {
  if (terms.length === 0) return [];
  const k: Kysely<Database> = db.kysely;
  if (db.dialect === "postgres") {
    // Terms are letters and digits only; quoted as lexemes all the same.
    const tsquery = (words: string[]) => words.map((t) => `'${t}'`).join(" & ");
    const common = await commonWords(db, terms);
    const rare = terms.filter((t) => !common.has(t));
    if (common.size > 0 && rare.length > 0) {
      // A rare word with a common one ("asked topic999"): the index intersecting them reads the common
      // word's whole posting tree. Instead the rare words' hits, newest first, are checked for the
      // common words one by one until `limit` pass.
      const { rows } = await sql<MessageHit>`
        select id, conversation_id, body from (
          select id, conversation_id, body from messages
          where account_id = ${accountId} and to_tsvector('simple', body) @@ to_tsquery('simple', ${tsquery(rare)})
          order by id desc offset 0) h
        where to_tsvector('simple', body) @@ to_tsquery('simple', ${tsquery([...common])})
        order by id desc limit ${limit} ${sql.raw(PLAN_EACH_CALL)}`.execute(k);
      return rows;
    }
    const { rows } = await sql<MessageHit>`
      select id, conversation_id, body from messages
      where account_id = ${accountId} and to_tsvector('simple', body) @@ to_tsquery('simple', ${tsquery(terms)})
      order by id desc limit ${limit} ${sql.raw(PLAN_EACH_CALL)}`.execute(k);
    return rows;
  }
  // FTS5: each term a quoted string (no operator can get in). Most installs hold one account, or one
  // that dominates: the words alone read far fewer postings than the words and the account column
  // (a token in every message of the account). Their newest hits are this account's exactly when all
  // of them are its own or they are every hit there is; otherwise the account column keeps the scan
  // to this account's postings, newest rowid first.
  const words = terms.map((t) => `"${t}"`).join(" AND ");
  const unscoped = await ftsHits(k, `body : (${words})`, limit);
  if (unscoped.length < limit || unscoped.every((m) => m.account_id === accountId)) {
    return unscoped.filter((m) => m.account_id === accountId);
  }
  return ftsHits(k, `account : "${accountId.replace(/_/g, "")}" AND body : (${words})`, limit, accountId);
}

/** A word in at least this share of messages is common: checked on rarer words' hits, not intersected. */
const COMMON_WORD_SHARE = 0.05;
/** ANALYZE refreshes the statistics now and then; reading them again after this long is plenty. */
const WORD_STATS_TTL_MS = 10 * 60_000;
const wordStats = new WeakMap<Db, { at: number; shares: Promise<Map<string, number>> }>();

/**
 * The terms that are common among the messages, from PostgreSQL's own statistics of the search
 * index (its most common lexemes and their shares, kept by ANALYZE), read once per TTL per database.
 */
async function commonWords(db: Db, terms: string[]): Promise<Set<string>> {
  if (terms.length < 2) return new Set();
  let cached = wordStats.get(db);
  if (!cached || Date.now() - cached.at > WORD_STATS_TTL_MS) {
    const shares = sql<{ e: string; f: number }>`
      select x.e, x.f from pg_stats s,
        unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as x(e, f)
      where s.schemaname = current_schema() and s.tablename = 'messages_search_idx'
        and s.attname = 'to_tsvector'`
      .execute(db.kysely)
      .then(({ rows }) => new Map(rows.map((r) => [r.e, Number(r.f)])))
      .catch(() => new Map<string, number>());
    cached = { at: Date.now(), shares };
    wordStats.set(db, cached);
  }
  const shares = await cached.shares;
  return new Set(terms.filter((t) => (shares.get(t) ?? 0) >= COMMON_WORD_SHARE));
}

async function ftsHits(
  k: Kysely<Database>,
  match: string,
  limit: number,
  accountId?: string,
): Promise<Array<MessageHit & { account_id: string }>> {
  const { rows } = await sql<MessageHit & { account_id: string }>`
    select m.id, m.conversation_id, m.body, m.account_id from messages m
    where m.rowid in (select rowid from message_search where message_search match ${match}
                      order by rowid desc limit ${limit})
      ${accountId === undefined ? sql`` : sql`and m.account_id = ${accountId}`}
    order by m.id desc`.execute(k);
  return rows;
}

const SNIPPET_BEFORE = 40;
const SNIPPET_LENGTH = 140;

/** A window of the message around its first matched word, each word found in it marked. */
export function snippetOf(body: string, terms: string[]): Omit<SearchMatch, "messageId"> {
  const escaped = [...terms]
    .sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const hits: Array<[number, number]> = [];
  if (escaped.length > 0) {
    // Whole words, case aside (as the indexes match them).
    const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join("|")})(?![\\p{L}\\p{N}])`, "giu");
    for (const m of body.matchAll(re)) hits.push([m.index, m.index + m[0].length]);
  }
  const first = hits[0]?.[0] ?? 0;
  let start = Math.max(0, first - SNIPPET_BEFORE);
  // Start at a word boundary when cutting.
  if (start > 0) {
    const space = body.indexOf(" ", start);
    if (space !== -1 && space < first) start = space + 1;
  }
  let end = Math.min(body.length, start + SNIPPET_LENGTH);
  if (end < body.length) {
    const space = body.lastIndexOf(" ", end);
    if (space > first) end = space;
  }
  const prefix = start > 0 ? "…" : "";
  const snippet = `${prefix}${body.slice(start, end)}${end < body.length ? "…" : ""}`;
  const shift = prefix.length - start;
  const highlights = hits
    .filter(([s, e]) => s >= start && e <= end)
    .map(([s, e]) => [s + shift, e + shift] as [number, number]);
  return { snippet, highlights };
}

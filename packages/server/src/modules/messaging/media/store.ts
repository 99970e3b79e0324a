// Content-addressed attachments in the file storage (DATA_DIR or a bucket, platform/storage.ts): a
// blob's key is `media/ab/cd/<SHA-256 of its bytes>`, so writing the same file twice is a no-op and a
// blob written for a request that then failed is simply reused later (or swept as an orphan).
import { createHash } from "node:crypto";
import type { ObjectStorage, StoredObject } from "../../../platform/storage.ts";

export interface StoredBlob {
  sha256: string;
  size: number;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The prefix every attachment's key starts with (the orphan sweep lists it). */
export const MEDIA_PREFIX = "media/";

/** media/ab/cd/abcd… : two fan-out levels keep directories (and listings) small. */
export function blobKey(sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error("not a sha256 hex digest");
  return `${MEDIA_PREFIX}${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
}

/** The SHA-256 an attachment's key names, or null for a key that is not one. */
export function shaOfKey(key: string): string | null {
  const m = /^media\/[0-9a-f]{2}\/[0-9a-f]{2}\/([0-9a-f]{64})$/.exec(key);
  return m ? m[1]! : null;
}

/**
 * Writes the blob durably (returns once stored). The same bytes land on the same key; they are written
 * again even when a copy exists, which makes the object young: the orphan sweep only takes objects
 * older than its grace, so an old orphan whose bytes arrive again is not deleted under the new row.
 */
export async function storeBlob(
  storage: ObjectStorage,
  bytes: Uint8Array,
  contentType?: string,
): Promise<StoredBlob> {
  const sha256 = sha256Hex(bytes);
  await storage.put(blobKey(sha256), bytes, contentType);
  return { sha256, size: bytes.length };
}

export function openBlob(storage: ObjectStorage, sha256: string): Promise<StoredObject | null> {
  return storage.get(blobKey(sha256));
}

export function deleteBlob(storage: ObjectStorage, sha256: string): Promise<void> {
  return storage.delete(blobKey(sha256));
}

// Where Parley keeps files (attachments, uploaded imports): the local DATA_DIR by default, or an
// S3-compatible bucket (STORAGE_URL=s3://BUCKET?region=…[&endpoint=…][&forcePathStyle=true]) so that
// API and worker processes on several machines share no volume. Keys are paths like
// `media/ab/cd/<sha256>`; a put returns once the object is durable, before the row that names it
// commits, and a storage that cannot take a write answers 503 (nothing is acknowledged without it).

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import type { S3Location } from "../config.ts";
import { AppError } from "./errors.ts";

export interface StoredObject {
  body: Readable;
  size: number;
}

export interface ObjectInfo {
  key: string;
  size: number;
  /** Epoch ms. */
  modifiedAt: number;
}

export interface ObjectStorage {
  readonly kind: "local" | "s3";
  /** Writes the object durably (returns once stored); the same key is overwritten. */
  put(key: string, bytes: Uint8Array, contentType?: string): Promise<void>;
  /** The object's stream (from byte `start`, default 0) and its whole size, or null when there is none. */
  get(key: string, start?: number): Promise<StoredObject | null>;
  /** The whole object (for files Parley reads back itself, within their size limits). */
  getBytes(key: string): Promise<Buffer | null>;
  /** Its size, or null when there is none. */
  size(key: string): Promise<number | null>;
  /** Removes it (no error when it is already gone). */
  delete(key: string): Promise<void>;
  /** Every object under a prefix, for the orphan sweep and the migration. */
  list(prefix: string): AsyncIterable<ObjectInfo>;
  close(): Promise<void>;
}

function unavailable(err: unknown): AppError {
  // The operator's storage said no: the request is refused whole, and the cause goes to the log only.
  const e = new AppError("SERVICE_UNAVAILABLE", "File storage is unavailable; nothing was stored, try again");
  (e as Error & { cause?: unknown }).cause = err;
  return e;
}

function checkKey(key: string): void {
  if (!/^[a-z]+\/[A-Za-z0-9._/-]+$/.test(key) || key.includes(".."))
    throw new Error(`bad storage key ${key}`);
}

// ---- local directory ----------------------------------------------------------------------------

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function localStorage(dataDir: string): ObjectStorage {
  const file = (key: string) => {
    checkKey(key);
    return path.join(dataDir, key);
  };
  return {
    kind: "local",
    async put(key, bytes) {
      const final = file(key);
      const dir = path.dirname(final);
      const tmpDir = path.join(dataDir, "tmp");
      try {
        await fs.promises.mkdir(dir, { recursive: true });
        await fs.promises.mkdir(tmpDir, { recursive: true });
        const tmp = path.join(tmpDir, `${path.basename(final)}.${randomBytes(6).toString("hex")}`);
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
        // rename is atomic: readers see either no object or the complete one.
        await fs.promises.rename(tmp, final);
        await fsyncDir(dir);
      } catch (err) {
        throw unavailable(err);
      }
    },
    async get(key, start = 0) {
      const f = file(key);
      const stat = await fs.promises.stat(f).catch(() => null);
      if (!stat?.isFile()) return null;
      return { body: fs.createReadStream(f, { start }), size: stat.size };
    },
    async getBytes(key) {
      return fs.promises.readFile(file(key)).catch((err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") return null;
        throw err;
      });
    },
    async size(key) {
      const stat = await fs.promises.stat(file(key)).catch(() => null);
      return stat?.isFile() ? stat.size : null;
    },
    async delete(key) {
      await fs.promises.rm(file(key), { force: true });
    },
    async *list(prefix) {
      const root = path.join(dataDir, prefix);
      const walk = async function* (dir: string): AsyncGenerator<ObjectInfo> {
        const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => []);
        for (const e of entries) {
          const full = path.join(dir, e.name);
          if (e.isDirectory()) yield* walk(full);
          else if (e.isFile()) {
            const stat = await fs.promises.stat(full).catch(() => null);
            if (stat) {
              yield {
                key: path.relative(dataDir, full).split(path.sep).join("/"),
                size: stat.size,
                modifiedAt: stat.mtimeMs,
              };
            }
          }
        }
      };
      yield* walk(root);
    },
    async close() {},
  };
}

// ---- S3-compatible bucket -----------------------------------------------------------------------

export async function s3Storage(location: S3Location): Promise<ObjectStorage> {
  // Loaded only when configured: most installs never need the AWS SDK in memory.
  const s3 = await import("@aws-sdk/client-s3");
  const client = new s3.S3Client({
    region: location.region,
    ...(location.endpoint ? { endpoint: location.endpoint } : {}),
    forcePathStyle: location.forcePathStyle,
    // A bucket that does not answer must not hold a request for long.
    maxAttempts: 2,
  });
  const Bucket = location.bucket;
  const missing = (err: unknown) => {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404;
  };
  const storage: ObjectStorage = {
    kind: "s3",
    async put(key, bytes, contentType) {
      checkKey(key);
      try {
        await client.send(
          new s3.PutObjectCommand({
            Bucket,
            Key: key,
            Body: bytes,
            ContentLength: bytes.length,
            ContentType: contentType ?? "application/octet-stream",
          }),
        );
      } catch (err) {
        throw unavailable(err);
      }
    },
    async get(key, start = 0) {
      checkKey(key);
      try {
        const res = await client.send(
          new s3.GetObjectCommand({ Bucket, Key: key, ...(start > 0 ? { Range: `bytes=${start}-` } : {}) }),
        );
        if (!res.Body) return null;
        return { body: res.Body as Readable, size: Number(res.ContentLength ?? 0) + start };
      } catch (err) {
        if (missing(err)) return null;
        // A start at or past the end is 416 for S3; like a local file, it is an empty stream.
        if ((err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 416) {
          const size = await storage.size(key);
          return size === null ? null : { body: Readable.from([]), size };
        }
        throw unavailable(err);
      }
    },
    async getBytes(key) {
      const found = await storage.get(key);
      if (!found) return null;
      const chunks: Buffer[] = [];
      for await (const chunk of found.body) chunks.push(Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks);
    },
    async size(key) {
      checkKey(key);
      try {
        const res = await client.send(new s3.HeadObjectCommand({ Bucket, Key: key }));
        return Number(res.ContentLength ?? 0);
      } catch (err) {
        if (missing(err)) return null;
        throw unavailable(err);
      }
    },
    async delete(key) {
      checkKey(key);
      try {
        await client.send(new s3.DeleteObjectCommand({ Bucket, Key: key }));
      } catch (err) {
        if (!missing(err)) throw unavailable(err);
      }
    },
    async *list(prefix) {
      let token: string | undefined;
      do {
        const page = await client.send(
          new s3.ListObjectsV2Command({
            Bucket,
            Prefix: prefix,
            ...(token ? { ContinuationToken: token } : {}),
          }),
        );
        for (const o of page.Contents ?? []) {
          if (o.Key) {
            yield { key: o.Key, size: Number(o.Size ?? 0), modifiedAt: o.LastModified?.getTime() ?? 0 };
          }
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
    async close() {
      client.destroy();
    },
  };
  return storage;
}

export async function openStorage(config: {
  dataDir: string;
  storage: S3Location | null;
}): Promise<ObjectStorage> {
  return config.storage ? s3Storage(config.storage) : localStorage(config.dataDir);
}

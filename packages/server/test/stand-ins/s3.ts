// A local S3-compatible bucket for tests: s3rver (the bucket `parley`, kept in a temporary directory)
// behind an HTTP server of our own, so a test can make the bucket refuse writes (403 AccessDenied,
// as a bucket policy would) or stop answering altogether (connections reset), and turn it back on.
// Objects are listed and read through the AWS SDK, as a second client of the bucket would see them.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";

export const S3_BUCKET = "parley";
/** s3rver accepts any signature made with these. */
export const S3_CREDENTIALS = { AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" } as const;

/** "writes": object writes answer 403 AccessDenied; "all": every connection is reset unanswered. */
export type S3Refusal = "none" | "writes" | "all";

export interface S3StandIn {
  /** STORAGE_URL for the bucket (or for another bucket name on the same server, e.g. a missing one). */
  storageUrl(bucket?: string): string;
  endpoint: string;
  /** The credentials the SDK reads from the environment (for a child process's env or process.env). */
  env: Record<string, string>;
  refuse(mode: S3Refusal): void;
  /** Every key under a prefix, sorted. */
  list(prefix?: string): Promise<string[]>;
  /** An object's bytes, or null when there is none. */
  read(key: string): Promise<Buffer | null>;
  /** Writes an object directly (as another writer of the bucket would). */
  write(key: string, bytes: Uint8Array): Promise<void>;
  /** Requests seen, by method (PUT counts object writes). */
  requests: Map<string, number>;
  stop(): Promise<void>;
}

const ACCESS_DENIED =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  "<Error><Code>AccessDenied</Code><Message>Access Denied</Message><RequestId>stand-in</RequestId></Error>";

export async function startS3(): Promise<S3StandIn> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "parley-s3-"));
  const s3rver = new S3rver({
    directory,
    silent: true,
    configureBuckets: [{ name: S3_BUCKET, configs: [] }],
  });
  await s3rver.configureBuckets();
  const handle = s3rver.callback();
  let refusal: S3Refusal = "none";
  const requests = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const method = req.method ?? "?";
    requests.set(method, (requests.get(method) ?? 0) + 1);
    if (refusal === "all") {
      req.socket.destroy();
      return;
    }
    if (refusal === "writes" && (method === "PUT" || method === "POST")) {
      req.resume();
      res.writeHead(403, { "content-type": "application/xml" });
      res.end(ACCESS_DENIED);
      return;
    }
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new S3Client({
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: S3_CREDENTIALS.AWS_ACCESS_KEY_ID, secretAccessKey: "S3RVER" },
  });

  return {
    endpoint,
    storageUrl: (bucket = S3_BUCKET) =>
      `s3://${bucket}?region=us-east-1&endpoint=${endpoint}&forcePathStyle=true`,
    env: { ...S3_CREDENTIALS },
    requests,
    refuse(mode) {
      refusal = mode;
      if (mode === "all") server.closeIdleConnections();
    },
    async list(prefix = "") {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({
            Bucket: S3_BUCKET,
            Prefix: prefix,
            ...(token ? { ContinuationToken: token } : {}),
          }),
        );
        for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    async read(key) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: S3_BUCKET, Key: key }));
        return Buffer.from((await res.Body?.transformToByteArray()) ?? []);
      } catch (err) {
        if ((err as { name?: string }).name === "NoSuchKey") return null;
        throw err;
      }
    },
    async write(key, bytes) {
      await client.send(new PutObjectCommand({ Bucket: S3_BUCKET, Key: key, Body: bytes }));
    },
    async stop() {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Sets the stand-in's credentials in this process's environment (the SDK in an app built by the test
 * reads them from there); the returned function puts the previous values back.
 */
export function useS3Credentials(s3: S3StandIn): () => void {
  const before = Object.fromEntries(Object.keys(s3.env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, s3.env);
  return () => {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

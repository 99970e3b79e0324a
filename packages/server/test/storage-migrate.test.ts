// `parley storage migrate`, run as an operator would: a DATA_DIR's attachments and uploaded imports
// copied into an S3-compatible bucket (s3rver), verified, and a second run copying nothing. The command
// reads files and writes the bucket, the database plays no part: it runs in the SQLite pass only.
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseStorageUrl } from "../src/config.ts";
import { importKey } from "../src/modules/imports/service.ts";
import { blobKey } from "../src/modules/messaging/media/store.ts";
import { newId } from "../src/platform/ids.ts";
import { type ObjectStorage, s3Storage } from "../src/platform/storage.ts";
import { freshDatabase, type TestDatabase } from "./helpers.ts";
import { cliEnv, oneJsonLine, runCli } from "./process-helpers.ts";
import { type S3StandIn, startS3, useS3Credentials } from "./stand-ins/s3.ts";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe.skipIf(Boolean(process.env.DATABASE_URL))("parley storage migrate", () => {
  let database: TestDatabase;
  let s3: S3StandIn;
  let restoreCredentials = () => {};
  let storageUrl: string;
  let bucket: ObjectStorage;
  /** Every file written into DATA_DIR: its key and bytes. */
  const files = new Map<string, Buffer>();

  const write = (key: string, bytes: Buffer) => {
    const file = path.join(database.dataDir, key);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, bytes);
  };
  const migrate = (env: Record<string, string> = { STORAGE_URL: storageUrl, ...s3.env }) =>
    runCli(["storage", "migrate"], cliEnv(database, env));

  beforeAll(async () => {
    database = await freshDatabase();
    s3 = await startS3();
    storageUrl = s3.storageUrl();
    restoreCredentials = useS3Credentials(s3);
    bucket = await s3Storage(parseStorageUrl(storageUrl)!);
    // 1,000 files as a single-node install leaves them: 895 attachments, 100 uploaded imports and 5
    // agency logos.
    for (let i = 0; i < 895; i++) {
      const bytes = randomBytes(64 + (i % 700));
      files.set(blobKey(sha(bytes)), bytes);
    }
    for (let i = 0; i < 100; i++) {
      files.set(
        importKey(newId("import")),
        Buffer.from(`phone,name\n+1415555${String(i).padStart(4, "0")},P${i}\n`),
      );
    }
    for (let i = 0; i < 5; i++)
      files.set(`brands/${randomBytes(18).toString("base64url")}`, randomBytes(300));
    for (const [key, bytes] of files) write(key, bytes);
  });
  afterAll(async () => {
    await bucket?.close();
    await s3?.stop();
    await database?.drop();
    restoreCredentials();
  });

  it("refuses without STORAGE_URL, saying what to set", async () => {
    const res = await migrate({});
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe("");
    expect(res.stderr).toMatch(/STORAGE_URL is not set.*s3:\/\/BUCKET\?region=/);
  });

  it("copies 1,000 files into the bucket, each verified; a second run copies nothing", async () => {
    const first = oneJsonLine(await migrate());
    expect(first).toEqual({ copied: 1000, skipped: 0, verified: 1000 });
    // The bucket holds exactly those objects, byte for byte.
    const listed: string[] = [];
    for (const prefix of ["media/", "imports/", "brands/"])
      for await (const o of bucket.list(prefix)) listed.push(o.key);
    expect(listed.sort()).toEqual([...files.keys()].sort());
    for (const [key, bytes] of files) expect((await bucket.getBytes(key))?.equals(bytes), key).toBe(true);

    const second = oneJsonLine(await migrate());
    expect(second).toEqual({ copied: 0, skipped: 1000, verified: 1000 });
  }, 180_000);

  it("resumes: copies again what is missing or differs in the bucket (same size, other bytes)", async () => {
    const [gone, changed, changedImport] = [
      [...files.keys()][10]!,
      [...files.keys()][20]!,
      [...files.keys()].find((k) => k.startsWith("imports/"))!,
    ];
    await bucket.delete(gone);
    for (const key of [changed, changedImport]) {
      const bytes = Buffer.from(files.get(key)!);
      bytes[0] = bytes[0]! ^ 0xff;
      await bucket.put(key, bytes);
    }
    expect(oneJsonLine(await migrate())).toEqual({ copied: 3, skipped: 997, verified: 1000 });
    for (const key of [gone, changed, changedImport])
      expect((await bucket.getBytes(key))?.equals(files.get(key)!)).toBe(true);
  }, 180_000);

  it("does not copy an attachment whose bytes do not hash to its name, and says so", async () => {
    const damaged = blobKey(sha(Buffer.from("what the file should hold")));
    write(damaged, Buffer.from("something else entirely"));
    // A file Parley never wrote under media/ is left where it is.
    write("media/notes/readme.txt", Buffer.from("not an attachment"));
    try {
      const res = await migrate();
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain("1 attachment(s) in DATA_DIR do not hash to their names");
      expect(res.stderr).toContain(damaged);
      expect(res.stderr).toContain('{"copied":0,"skipped":1000,"verified":1000}');
      expect(res.stderr).toContain("not Parley's, not copied: media/notes/readme.txt");
      expect(await bucket.size(damaged)).toBeNull();
      expect(await bucket.size("media/notes/readme.txt")).toBeNull();
    } finally {
      fs.rmSync(path.join(database.dataDir, damaged));
    }
    expect(oneJsonLine(await migrate())).toEqual({ copied: 0, skipped: 1000, verified: 1000, ignored: 1 });
  }, 180_000);
});

// File storage (platform/storage.ts): STORAGE_URL parsing, the local DATA_DIR implementation and the
// S3 one (against s3rver, test/stand-ins/s3.ts), then the app on a bucket: attachments (embedded and
// fetched by URL), served back with their headers; imports read from the bucket in slices; erasure
// removing the objects; and a bucket that refuses writes answering 503 with nothing stored.
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, parseStorageUrl } from "../src/config.ts";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { SLICE_ROWS } from "../src/modules/imports/service.ts";
import { blobKey } from "../src/modules/messaging/media/store.ts";
import { AppError } from "../src/platform/errors.ts";
import { localStorage, type ObjectStorage, s3Storage } from "../src/platform/storage.ts";
import { countRows, customData, postIncoming } from "./fixtures/incoming.ts";
import { dataUri, makePng } from "./fixtures/png.ts";
import { callWithKey, errorCode, json, startTestApp, type TestApp } from "./helpers.ts";
import { type S3StandIn, startS3, useS3Credentials } from "./stand-ins/s3.ts";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

/** The code of the AppError a promise rejects with (or the error itself when it is not one). */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("parseStorageUrl", () => {
  it("reads the bucket, region, endpoint and path style; nothing set means DATA_DIR", () => {
    expect(parseStorageUrl(null)).toBeNull();
    expect(parseStorageUrl("")).toBeNull();
    expect(parseStorageUrl("   ")).toBeNull();
    expect(parseStorageUrl("s3://parley-files?region=eu-west-1")).toEqual({
      bucket: "parley-files",
      region: "eu-west-1",
      endpoint: null,
      forcePathStyle: false,
    });
    expect(
      parseStorageUrl("s3://files/?region=auto&endpoint=https://minio.internal:9000&forcePathStyle=true"),
    ).toEqual({
      bucket: "files",
      region: "auto",
      endpoint: "https://minio.internal:9000",
      forcePathStyle: true,
    });
    expect(parseStorageUrl("s3://b?region=r&forcePathStyle=false")?.forcePathStyle).toBe(false);
  });

  it("refuses what is not an s3:// URL with a bucket and a region, with the exact message", () => {
    const shape = (raw: string) => `STORAGE_URL must look like s3://BUCKET?region=REGION, got "${raw}"`;
    const cases: Array<[string, string]> = [
      ["not a url", shape("not a url")],
      ["https://bucket.s3.amazonaws.com?region=x", shape("https://bucket.s3.amazonaws.com?region=x")],
      ["s3://bucket/folder?region=x", shape("s3://bucket/folder?region=x")],
      ["s3://?region=x", shape("s3://?region=x")],
      ["s3://bucket", "STORAGE_URL needs ?region=… (e.g. s3://parley-files?region=eu-west-1)"],
      ["s3://bucket?region=", "STORAGE_URL needs ?region=… (e.g. s3://parley-files?region=eu-west-1)"],
      [
        "s3://bucket?region=x&endpoint=minio:9000",
        `STORAGE_URL's endpoint must be an http(s) URL, got "minio:9000"`,
      ],
      [
        "s3://bucket?region=x&endpoint=ftp://minio",
        `STORAGE_URL's endpoint must be an http(s) URL, got "ftp://minio"`,
      ],
      [
        "s3://bucket?region=x&endpoint=not%20a%20url",
        `STORAGE_URL's endpoint must be an http(s) URL, got "not a url"`,
      ],
      ["s3://bucket?region=x&forcePathStyle=yes", "STORAGE_URL's forcePathStyle must be true or false"],
    ];
    for (const [raw, message] of cases) expect(() => parseStorageUrl(raw), raw).toThrow(message);
    // The configuration refuses to start with the same message.
    expect(() => loadConfig({ STORAGE_URL: "s3://bucket" })).toThrow(
      "STORAGE_URL needs ?region=… (e.g. s3://parley-files?region=eu-west-1)",
    );
  });
});

/** The same contract, for DATA_DIR and for a bucket. */
async function checkContract(storage: ObjectStorage) {
  const bytes = Buffer.from("0123456789abcdef");
  const key = "media/ab/cd/contract-object";
  expect(await storage.size(key)).toBeNull();
  expect(await storage.get(key)).toBeNull();
  expect(await storage.getBytes(key)).toBeNull();

  await storage.put(key, bytes, "text/plain");
  expect(await storage.size(key)).toBe(16);
  expect((await storage.getBytes(key))?.equals(bytes)).toBe(true);
  const whole = await storage.get(key);
  expect(whole?.size).toBe(16);
  expect((await readAll(whole!.body)).equals(bytes)).toBe(true);
  // From an offset: the rest of the bytes, and still the whole object's size.
  const rest = await storage.get(key, 10);
  expect(rest?.size).toBe(16);
  expect((await readAll(rest!.body)).toString()).toBe("abcdef");
  // From the end (or past it): nothing more, still the whole size.
  for (const start of [16, 20]) {
    const end = await storage.get(key, start);
    expect(end?.size, `from ${start}`).toBe(16);
    expect((await readAll(end!.body)).length, `from ${start}`).toBe(0);
  }

  // Overwritten in place.
  await storage.put(key, Buffer.from("new"));
  expect((await storage.getBytes(key))?.toString()).toBe("new");

  await storage.put("media/ab/ef/second", Buffer.from("22"));
  await storage.put("imports/imp_1.csv", Buffer.from("a,b\n"));
  const listed = [];
  for await (const o of storage.list("media/")) listed.push(o);
  expect(listed.map((o) => [o.key, o.size]).sort()).toEqual([
    ["media/ab/cd/contract-object", 3],
    ["media/ab/ef/second", 2],
  ]);
  for (const o of listed) expect(Math.abs(o.modifiedAt - Date.now())).toBeLessThan(60_000);
  const none = [];
  for await (const o of storage.list("nothing-here/")) none.push(o);
  expect(none).toEqual([]);

  await storage.delete(key);
  await storage.delete(key); // already gone: no error
  expect(await storage.size(key)).toBeNull();
  expect(await storage.get(key)).toBeNull();
  expect(await storage.getBytes(key)).toBeNull();

  // Keys are checked before anything is touched.
  for (const bad of ["../etc/passwd", "media/../../x", "Media/x", "/media/x", "media", "media/a b"]) {
    await expect(storage.put(bad, bytes), bad).rejects.toThrow(/bad storage key/);
  }
}

describe("local storage (DATA_DIR)", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-storage-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("puts, gets (from an offset too), sizes, lists and deletes; leaves no temporary file", async () => {
    const storage = localStorage(dir);
    expect(storage.kind).toBe("local");
    await checkContract(storage);
    expect(fs.readFileSync(path.join(dir, "imports/imp_1.csv"), "utf8")).toBe("a,b\n");
    expect(fs.readdirSync(path.join(dir, "tmp"))).toEqual([]);
  });

  it("a write the disk refuses is SERVICE_UNAVAILABLE", async () => {
    const blocked = fs.mkdtempSync(path.join(os.tmpdir(), "parley-storage-blocked-"));
    fs.writeFileSync(path.join(blocked, "media"), "a file where the directory should be");
    const storage = localStorage(blocked);
    expect(await refusal(storage.put("media/ab/cd/x", Buffer.from("x")))).toBe("SERVICE_UNAVAILABLE");
    fs.rmSync(blocked, { recursive: true, force: true });
  });
});

describe("S3 storage (s3rver)", () => {
  let s3: S3StandIn;
  let restore: () => void;
  beforeAll(async () => {
    s3 = await startS3();
    restore = useS3Credentials(s3);
  });
  afterAll(async () => {
    restore();
    await s3.stop();
  });

  it("puts, gets (from an offset too), sizes, lists and deletes", async () => {
    const storage = await s3Storage(parseStorageUrl(s3.storageUrl())!);
    expect(storage.kind).toBe("s3");
    try {
      await checkContract(storage);
      expect((await s3.read("imports/imp_1.csv"))?.toString()).toBe("a,b\n");
    } finally {
      await storage.close();
    }
  });

  it("a missing bucket, a bucket refusing writes and a server that does not answer are SERVICE_UNAVAILABLE", async () => {
    const missing = await s3Storage(parseStorageUrl(s3.storageUrl("no-such-bucket"))!);
    expect(await refusal(missing.put("media/ab/cd/x", Buffer.from("x")))).toBe("SERVICE_UNAVAILABLE");
    await missing.close();

    const storage = await s3Storage(parseStorageUrl(s3.storageUrl())!);
    try {
      await storage.put("media/ab/cd/kept", Buffer.from("kept"));
      s3.refuse("writes");
      expect(await refusal(storage.put("media/ab/cd/y", Buffer.from("y")))).toBe("SERVICE_UNAVAILABLE");
      // Reads still work while writes are refused.
      expect((await storage.getBytes("media/ab/cd/kept"))?.toString()).toBe("kept");
      s3.refuse("all");
      expect(await refusal(storage.put("media/ab/cd/y", Buffer.from("y")))).toBe("SERVICE_UNAVAILABLE");
      expect(await refusal(storage.get("media/ab/cd/kept"))).toBe("SERVICE_UNAVAILABLE");
      expect(await refusal(storage.size("media/ab/cd/kept"))).toBe("SERVICE_UNAVAILABLE");
      s3.refuse("none");
      await storage.put("media/ab/cd/y", Buffer.from("y"));
      expect((await s3.read("media/ab/cd/y"))?.toString()).toBe("y");
    } finally {
      s3.refuse("none");
      await storage.close();
    }
  });
});

// ---------------------------------------------------------------------------
// The app on a bucket
// ---------------------------------------------------------------------------

describe("the app with STORAGE_URL on a bucket", () => {
  let s3: S3StandIn;
  let restore: () => void;
  let t: TestApp;
  let acc: CreatedAccount;
  let origin: http.Server;
  let originUrl: string;
  /** A message whose attachment is in the bucket (the first test's). */
  let storedId: string;
  const FETCHED = makePng(9, 4);

  beforeAll(async () => {
    s3 = await startS3();
    restore = useS3Credentials(s3);
    origin = http.createServer((req, res) => {
      if (req.url === "/photo.png") {
        res.writeHead(200, { "content-type": "image/png" });
        res.end(FETCHED);
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    t = await startTestApp({ STORAGE_URL: s3.storageUrl() }); // OUTBOUND_ALLOW_CIDRS allows loopback
    acc = await t.account();
  });
  afterAll(async () => {
    await t?.close();
    restore?.();
    origin?.closeAllConnections();
    await new Promise<void>((r) => (origin ? origin.close(() => r()) : r()));
    await s3?.stop();
  });

  const noLocalFiles = () => {
    expect(fs.existsSync(path.join(t.config.dataDir, "media"))).toBe(false);
    expect(fs.existsSync(path.join(t.config.dataDir, "imports"))).toBe(false);
  };
  const media = (id: string, key = acc.apiKey) =>
    t.inject({ method: "GET", url: `/v1/messages/${id}/media?apiKey=${key}` });

  it("an embedded attachment is stored in the bucket before the answer, not under DATA_DIR, and served back", async () => {
    expect(t.parley.ctx.storage.kind).toBe("s3");
    const png = makePng(6, 3);
    const res = await postIncoming(t, acc.apiKey, {
      customData: customData({ mediaUrl: dataUri("image/png", png), mediaContentType: "image/png" }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = json<{ messageId: string }>(res).messageId;
    storedId = id;
    expect(await s3.list("media/")).toEqual([blobKey(sha(png))]);
    expect(blobKey(sha(png))).toMatch(/^media\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}$/);
    expect((await s3.read(blobKey(sha(png))))?.equals(png)).toBe(true);
    noLocalFiles();

    const served = await media(id);
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(png)).toBe(true);
    expect(served.headers["content-type"]).toBe("image/png");
    expect(served.headers["content-length"]).toBe(String(png.length));
    expect(served.headers["content-security-policy"]).toBe("default-src 'none'; sandbox");
    expect(served.headers["x-content-type-options"]).toBe("nosniff");
    expect(served.headers.etag).toBe(`"${sha(png)}"`);
    // Another account cannot read it.
    const other = await t.account();
    expect((await media(id, other.apiKey)).statusCode).toBe(404);

    // The same bytes again: still one object (written again, which makes it young for the sweep).
    const puts = s3.requests.get("PUT") ?? 0;
    const again = await postIncoming(t, acc.apiKey, {
      customData: customData({ mediaUrl: dataUri("image/png", png), mediaContentType: "image/png" }),
    });
    expect(again.statusCode).toBe(200);
    expect(s3.requests.get("PUT") ?? 0).toBe(puts + 1);
    expect(await s3.list("media/")).toEqual([blobKey(sha(png))]);
  });

  it("an attachment by URL is fetched by the job into the bucket", async () => {
    const res = await postIncoming(t, acc.apiKey, {
      customData: customData({ mediaUrl: `${originUrl}/photo.png`, mediaContentType: "image/png" }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = json<{ messageId: string }>(res).messageId;
    expect(await s3.read(blobKey(sha(FETCHED)))).toBeNull();
    await t.parley.worker.drain();
    const view = json<{ media: { state: string; sha256: string } }>(
      await callWithKey(t, "GET", `/v1/messages/${id}`, acc.apiKey),
    );
    expect(view.media).toMatchObject({ state: "stored", sha256: sha(FETCHED) });
    expect((await s3.read(blobKey(sha(FETCHED))))?.equals(FETCHED)).toBe(true);
    const served = await media(id);
    expect(served.rawPayload.equals(FETCHED)).toBe(true);
    expect(served.headers["content-security-policy"]).toBe("default-src 'none'; sandbox");
    noLocalFiles();
  });

  it("an import is kept in the bucket, worked in slices from it, and its rejected rows are reported", async () => {
    // More than two slices, so later slices read the object from an offset.
    const rows = SLICE_ROWS * 2 + 50;
    const lines = ["Name,Phone"];
    const bad: number[] = [];
    for (let i = 0; i < rows; i++) {
      if (i % 100 === 7) bad.push(i);
      lines.push(i % 100 === 7 ? `Bad ${i},12` : `Person ${i},+1415${String(5000000 + i).padStart(7, "0")}`);
    }
    const csv = `${lines.join("\n")}\n`;
    const res = await t.inject({
      method: "POST",
      url: `/v1/contacts/imports?apiKey=${acc.apiKey}`,
      headers: { "content-type": "text/csv" },
      payload: csv,
    });
    expect(res.statusCode, res.body).toBe(202);
    const importId = json<{ importId: string }>(res).importId;
    expect(await s3.list("imports/")).toEqual([`imports/${importId}.csv`]);
    expect((await s3.read(`imports/${importId}.csv`))?.toString()).toBe(csv);
    noLocalFiles();

    await t.parley.worker.drain();
    const done = json(await callWithKey(t, "GET", `/v1/contacts/imports/${importId}`, acc.apiKey));
    const rejected = bad.length;
    expect(done).toMatchObject({
      status: "done",
      total: rows,
      done: rows,
      created: rows - rejected,
      rejected,
    });
    const report = await callWithKey(t, "GET", `/v1/contacts/imports/${importId}/rejected`, acc.apiKey);
    expect(report.statusCode).toBe(200);
    const reportLines = report.body.trim().split("\n");
    expect(reportLines[0]).toBe("Name,Phone,row,reason");
    expect(reportLines).toHaveLength(rejected + 1);
    expect(reportLines[1]).toMatch(/^Bad 7,12,8,/);
    // The last one is in the third slice, read from the bucket from an offset.
    expect(bad.at(-1)).toBeGreaterThan(SLICE_ROWS * 2);
    expect(reportLines.at(-1)).toMatch(new RegExp(`^Bad ${bad.at(-1)},12,${(bad.at(-1) ?? 0) + 1},`));
  });

  it("erasing a contact removes its attachments from the bucket", async () => {
    const png = makePng(4, 7);
    const fromId = "erase-from-bucket";
    const res = await postIncoming(t, acc.apiKey, {
      customData: customData({ fromId, mediaUrl: dataUri("image/png", png), mediaContentType: "image/png" }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const message = json<{ contactId: string }>(
      await callWithKey(t, "GET", `/v1/messages/${json(res).messageId}`, acc.apiKey),
    );
    expect(await s3.list("media/")).toContain(blobKey(sha(png)));

    const erased = await callWithKey(t, "DELETE", `/v1/contacts/${message.contactId}`, acc.apiKey);
    expect(erased.statusCode, erased.body).toBe(200);
    expect(json(erased)).toMatchObject({ deleted: { messages: 1 } });
    expect(await s3.list("media/")).not.toContain(blobKey(sha(png)));
    expect(await s3.read(blobKey(sha(png)))).toBeNull();
    // Other contacts' attachments stay.
    expect(await s3.read(blobKey(sha(FETCHED)))).not.toBeNull();
  });

  it("a bucket that refuses writes: an attachment or an import is 503 SERVICE_UNAVAILABLE and nothing is stored", async () => {
    const png = makePng(8, 8);
    const post = () =>
      postIncoming(t, acc.apiKey, {
        customData: customData({
          fromId: "while-refused",
          mediaUrl: dataUri("image/png", png),
          mediaContentType: "image/png",
        }),
      });
    const upload = () =>
      t.inject({
        method: "POST",
        url: `/v1/contacts/imports?apiKey=${acc.apiKey}`,
        headers: { "content-type": "text/csv" },
        payload: "Name,Phone\nAda,+14155550100\n",
      });
    const importRows = async () =>
      (
        await t.parley.db.kysely
          .selectFrom("imports")
          .select("id")
          .where("account_id", "=", acc.accountId)
          .execute()
      ).length;
    const messagesBefore = await countRows(t, "messages", acc.accountId);
    const contactsBefore = await countRows(t, "contacts", acc.accountId);
    const importsBefore = await importRows();
    try {
      for (const mode of ["writes", "all"] as const) {
        s3.refuse(mode);
        const res = await post();
        expect(res.statusCode, `${mode}: ${res.body}`).toBe(503);
        // The incoming endpoint answers its errors in the simple form.
        expect(json(res)).toEqual({ error: "File storage is unavailable; nothing was stored, try again" });
        const up = await upload();
        expect(up.statusCode, `${mode}: ${up.body}`).toBe(503);
        expect(errorCode(up)).toBe("SERVICE_UNAVAILABLE");
        expect(await countRows(t, "messages", acc.accountId)).toBe(messagesBefore);
        expect(await countRows(t, "contacts", acc.accountId)).toBe(contactsBefore);
        expect(await importRows()).toBe(importsBefore);
        // Stored attachments are still served while only writes are refused; not when nothing answers.
        const served = await media(storedId);
        if (mode === "writes") expect(served.statusCode).toBe(200);
        else {
          expect(served.statusCode).toBe(503);
          expect(errorCode(served)).toBe("SERVICE_UNAVAILABLE");
        }
      }
      // A message without an attachment does not need the storage.
      const text = await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "text-only" }) });
      expect(text.statusCode, text.body).toBe(200);
    } finally {
      s3.refuse("none");
    }
    expect(await s3.read(blobKey(sha(png)))).toBeNull();
    // Once the bucket takes writes again, the same message is accepted and stored.
    const res = await post();
    expect(res.statusCode, res.body).toBe(200);
    expect((await s3.read(blobKey(sha(png))))?.equals(png)).toBe(true);
    noLocalFiles();
  });
});

// Several nodes sharing files through a bucket, not a volume: two API processes (`parley serve
// --no-worker`) and a worker (`parley worker`) on one PostgreSQL database, each with a DATA_DIR of its
// own and the same STORAGE_URL (s3rver, test/stand-ins/s3.ts). An attachment written by one API node
// is served by the other; one fetched by URL on the worker is served by an API node; an import
// uploaded to one node is worked by the worker and its rejected rows are read from the other.
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blobKey } from "../src/modules/messaging/media/store.ts";
import { dataUri, makePng } from "../test/fixtures/png.ts";
import { freshDatabase, type TestDatabase } from "../test/helpers.ts";
import { type S3StandIn, startS3 } from "../test/stand-ins/s3.ts";
import { callApi, cli, envFor, kill, type ServerProcess, start, waitFor } from "./harness.ts";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** A GET on a node (self-signed TLS), answered as raw bytes with its headers. */
function getRaw(port: number, key: string, urlPath: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      const req = https.request(
        { host: "127.0.0.1", port, path: urlPath, rejectUnauthorized: false, headers: { "x-api-key": key } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        },
      );
      req.on("error", reject);
      req.end();
    },
  );
}

describe.skipIf(!process.env.DATABASE_URL)("nodes sharing files through a bucket (PostgreSQL)", () => {
  let database: TestDatabase;
  let s3: S3StandIn;
  let origin: http.Server;
  let originUrl: string;
  const dirs: string[] = [];
  const processes: ServerProcess[] = [];
  const PHOTO = makePng(11, 5);

  beforeAll(async () => {
    database = await freshDatabase();
    s3 = await startS3();
    origin = http.createServer((req, res) => {
      if (req.url === "/photo.png") res.writeHead(200, { "content-type": "image/png" }).end(PHOTO);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const p of processes) await kill(p, "SIGKILL");
    origin?.closeAllConnections();
    await new Promise<void>((r) => (origin ? origin.close(() => r()) : r()));
    await s3?.stop();
    await database?.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it("an attachment and an import written through one node are read through the others", async () => {
    // The same database, bucket and secret key everywhere; a DATA_DIR of its own for each process.
    const shared = {
      STORAGE_URL: s3.storageUrl(),
      ...s3.env,
      PARLEY_SECRET_KEY: randomBytes(32).toString("hex"),
    };
    const own = (name: string) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `parley-${name}-`));
      dirs.push(dir);
      return envFor(database, { ...shared, DATA_DIR: dir });
    };
    const envA = own("api-a");
    const envB = own("api-b");
    const envW = own("worker");
    const acc = await cli<{ apiKey: string }>(
      ["account", "create", "--email", "bucket@example.com", "--password", "long password"],
      envA,
    );
    const apiA = await start(["serve", "--no-worker"], envA);
    const apiB = await start(["serve", "--no-worker"], envB);
    const worker = await start(["worker"], envW);
    processes.push(apiA, apiB, worker);
    const key = acc.apiKey;

    // An embedded attachment posted to A, served by B.
    const png = makePng(10, 6);
    const posted = await callApi<{ messageId: string }>(
      apiA.port,
      key,
      "POST",
      "/v1/incoming_custom_channel_message",
      {
        customData: {
          messageSid: "bucket-1",
          fromId: "visitor-1",
          toId: "biz",
          body: "see attached",
          mediaUrl: dataUri("image/png", png),
          mediaContentType: "image/png",
        },
      },
    );
    expect(posted.status, JSON.stringify(posted.json)).toBe(200);
    expect((await s3.read(blobKey(sha(png))))?.equals(png)).toBe(true);
    const fromB = await getRaw(apiB.port, key, `/v1/messages/${posted.json.messageId}/media`);
    expect(fromB.status).toBe(200);
    expect(fromB.body.equals(png)).toBe(true);
    expect(fromB.headers["content-type"]).toBe("image/png");
    expect(fromB.headers["content-security-policy"]).toBe("default-src 'none'; sandbox");
    expect(fromB.headers["x-content-type-options"]).toBe("nosniff");

    // An attachment by URL posted to B, fetched by the worker, served by A.
    const byUrl = await callApi<{ messageId: string }>(
      apiB.port,
      key,
      "POST",
      "/v1/incoming_custom_channel_message",
      {
        customData: {
          messageSid: "bucket-2",
          fromId: "visitor-2",
          toId: "biz",
          body: "a link",
          mediaUrl: `${originUrl}/photo.png`,
          mediaContentType: "image/png",
        },
      },
    );
    expect(byUrl.status, JSON.stringify(byUrl.json)).toBe(200);
    await waitFor(
      async () =>
        (
          await callApi<{ media: { state: string } }>(
            apiA.port,
            key,
            "GET",
            `/v1/messages/${byUrl.json.messageId}`,
          )
        ).json.media.state === "stored",
      30_000,
      "the worker to fetch the attachment",
    );
    const photo = await getRaw(apiA.port, key, `/v1/messages/${byUrl.json.messageId}/media`);
    expect(photo.status).toBe(200);
    expect(photo.body.equals(PHOTO)).toBe(true);
    expect((await s3.read(blobKey(sha(PHOTO))))?.equals(PHOTO)).toBe(true);

    // An import uploaded to A, worked by the worker, its rejected rows read from B.
    const lines = ["Name,Phone"];
    for (let i = 0; i < 2500; i++) lines.push(i % 500 === 9 ? `Bad ${i},12` : `P ${i},+1415${5000000 + i}`);
    const uploaded = await callApi<{ importId: string }>(apiA.port, key, "POST", "/v1/contacts/imports", {
      type: "text/csv",
      data: `${lines.join("\n")}\n`,
    });
    expect(uploaded.status, JSON.stringify(uploaded.json)).toBe(202);
    const importId = uploaded.json.importId;
    expect(await s3.list("imports/")).toEqual([`imports/${importId}.csv`]);
    await waitFor(
      async () =>
        (await callApi<{ status: string }>(apiB.port, key, "GET", `/v1/contacts/imports/${importId}`)).json
          .status !== "running",
      60_000,
      "the worker to finish the import",
    );
    const done = await callApi(apiB.port, key, "GET", `/v1/contacts/imports/${importId}`);
    expect(done.json).toMatchObject({ status: "done", total: 2500, created: 2495, rejected: 5, error: null });
    const rejected = await getRaw(apiB.port, key, `/v1/contacts/imports/${importId}/rejected`);
    expect(rejected.status).toBe(200);
    expect(rejected.headers["content-type"]).toMatch(/^text\/csv/);
    const rows = rejected.body.toString("utf8").trim().split("\n");
    expect(rows[0]).toBe("Name,Phone,row,reason");
    expect(rows.slice(1).map((r) => r.split(",").slice(0, 3).join(","))).toEqual(
      [9, 509, 1009, 1509, 2009].map((i) => `Bad ${i},12,${i + 1}`),
    );

    // No node kept a file of its own: everything is in the bucket.
    for (const env of [envA, envB, envW]) {
      for (const sub of ["media", "imports"]) {
        expect(fs.existsSync(path.join(String(env.DATA_DIR), sub)), `${env.DATA_DIR}/${sub}`).toBe(false);
      }
    }
  });
});

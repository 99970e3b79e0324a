// Attachments of incoming messages: embedded data URIs (sniffed before the answer) and URLs fetched by
// the media.fetch job through the outbound guard from a real HTTP server on 127.0.0.1.

import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { MEDIA_FETCH_JOB } from "../src/modules/messaging/index.ts";
import { blobKey } from "../src/modules/messaging/media/store.ts";
import { countRows, customData, jobsFor, postIncoming } from "./fixtures/incoming.ts";
import { dataUri, makePng } from "./fixtures/png.ts";

/** Where the local file storage keeps an attachment (DATA_DIR/<its key>). */
const localBlob = (t: TestApp, sha256: string) => path.join(t.config.dataDir, blobKey(sha256));

import { errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

const MiB = 1024 * 1024;
const PNG = makePng(3, 2);
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

interface MediaView {
  state: string;
  contentType: string | null;
  size: number | null;
  sha256: string | null;
  reason: string | null;
  url: string | null;
}

async function messageOf(t: TestApp, apiKey: string, id: string) {
  const res = await t.inject({ method: "GET", url: `/v1/messages/${id}?apiKey=${apiKey}` });
  expect(res.statusCode).toBe(200);
  return json<{ id: string; media: MediaView | null; body: string }>(res);
}

describe("embedded attachments (data URIs)", () => {
  let t: TestApp;
  let acc: CreatedAccount;
  beforeAll(async () => {
    t = await startTestApp();
    acc = await t.account();
  });
  afterAll(() => t.close());

  const post = (data: Record<string, unknown>) =>
    postIncoming(t, acc.apiKey, { customData: customData(data) });

  it("a real PNG declared image/png is stored before the answer, content-addressed, and served back", async () => {
    const res = await post({ mediaUrl: dataUri("image/png", PNG), mediaContentType: "image/png" });
    expect(res.statusCode).toBe(200);
    const id = json(res).messageId as string;
    const view = await messageOf(t, acc.apiKey, id);
    expect(view.media).toEqual({
      state: "stored",
      contentType: "image/png",
      size: PNG.length,
      sha256: sha(PNG),
      reason: null,
      url: null,
    });
    // The blob is on disk under DATA_DIR/media, named by its hash, with the exact bytes.
    const file = localBlob(t, sha(PNG));
    expect(file.startsWith(t.config.dataDir)).toBe(true);
    expect(fs.readFileSync(file).equals(PNG)).toBe(true);
    // No download job for an embedded file, and the data URI itself is not kept in the database.
    expect(await jobsFor(t, MEDIA_FETCH_JOB, id)).toBe(0);
    const row = await t.parley.db.kysely
      .selectFrom("messages")
      .select(["media_url"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.media_url).toBeNull();

    const blob = await t.inject({ method: "GET", url: `/v1/messages/${id}/media?apiKey=${acc.apiKey}` });
    expect(blob.statusCode).toBe(200);
    expect(blob.headers["content-type"]).toBe("image/png");
    expect(blob.headers["x-content-type-options"]).toBe("nosniff");
    expect(blob.rawPayload.equals(PNG)).toBe(true);
  });

  it("the same bytes uploaded twice are one blob", async () => {
    const png = makePng(5, 5);
    const a = await post({ mediaUrl: dataUri("image/png", png), mediaContentType: "image/png" });
    const b = await post({ mediaUrl: dataUri("image/png", png), mediaContentType: "image/png" });
    const va = await messageOf(t, acc.apiKey, json(a).messageId as string);
    const vb = await messageOf(t, acc.apiKey, json(b).messageId as string);
    expect(va.media?.sha256).toBe(vb.media?.sha256);
    const dir = localBlob(t, sha(png)).replace(/\/[0-9a-f]{64}$/, "");
    expect(fs.readdirSync(dir).filter((f) => f === sha(png))).toHaveLength(1);
  });

  it("the same PNG bytes declared image/jpeg are refused with 400 and nothing is stored", async () => {
    const before = await countRows(t, "messages", acc.accountId);
    const res = await post({ mediaUrl: dataUri("image/jpeg", PNG), mediaContentType: "image/jpeg" });
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toMatch(/mediaContentType.*image\/png.*image\/jpeg/);
    expect(await countRows(t, "messages", acc.accountId)).toBe(before);
  });

  it("a 17 MiB file is refused (413, simple form); exactly 16 MiB is accepted", async () => {
    const big = Buffer.concat([PNG, Buffer.alloc(17 * MiB - PNG.length)]);
    const res = await post({ mediaUrl: dataUri("image/png", big), mediaContentType: "image/png" });
    expect(res.statusCode).toBe(413);
    expect(Object.keys(json(res))).toEqual(["error"]);
    expect(json(res).error).toMatch(/16 MiB/);

    const limit = Buffer.concat([PNG, Buffer.alloc(16 * MiB - PNG.length, 1)]);
    const ok = await post({ mediaUrl: dataUri("image/png", limit), mediaContentType: "image/png" });
    expect(ok.statusCode).toBe(200);
    const view = await messageOf(t, acc.apiKey, json(ok).messageId as string);
    expect(view.media?.size).toBe(16 * MiB);
  });

  it("an alias of the detected type is accepted (image/jpg for a JPEG) and stored under the usual name", async () => {
    const jpeg = Buffer.concat([
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
      Buffer.from("JFIF\0"),
      Buffer.alloc(64),
    ]);
    const res = await post({ mediaUrl: dataUri("image/jpg", jpeg), mediaContentType: "image/jpg" });
    expect(res.statusCode).toBe(200);
    const view = await messageOf(t, acc.apiKey, json(res).messageId as string);
    expect(view.media?.contentType).toBe("image/jpeg");
  });

  it("text that file-type cannot sniff is accepted under text/* only when it is valid UTF-8", async () => {
    const text = Buffer.from("name,city\nZoë,Zürich\n", "utf8");
    const ok = await post({
      mediaUrl: dataUri("text/csv", text),
      mediaContentType: "text/csv; charset=utf-8",
    });
    expect(ok.statusCode).toBe(200);
    const id = json(ok).messageId as string;
    expect((await messageOf(t, acc.apiKey, id)).media?.contentType).toBe("text/csv");
    const served = await t.inject({ method: "GET", url: `/v1/messages/${id}/media?apiKey=${acc.apiKey}` });
    expect(served.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(served.body).toBe("name,city\nZoë,Zürich\n");

    const latin1 = Buffer.from([0x5a, 0x6f, 0xeb, 0x0a, 0xc3, 0x28]);
    const bad = await post({ mediaUrl: dataUri("text/plain", latin1), mediaContentType: "text/plain" });
    expect(bad.statusCode).toBe(400);
    expect(json(bad).error).toMatch(/UTF-8/);
  });

  it("a PNG declared text/plain is refused, and unknown binary under a binary type is refused", async () => {
    const asText = await post({ mediaUrl: dataUri("text/plain", PNG), mediaContentType: "text/plain" });
    expect(asText.statusCode).toBe(400);
    const unknown = await post({
      mediaUrl: dataUri("application/pdf", Buffer.from("just some words")),
      mediaContentType: "application/pdf",
    });
    expect(unknown.statusCode).toBe(400);
    expect(json(unknown).error).toMatch(/could not be identified as application\/pdf/);
  });

  it("a malformed data URI is refused with 400", async () => {
    for (const mediaUrl of [
      "data:image/png;base64,@@@###",
      "data:image/png,notbase64",
      "data:image/png;base64",
      "data:image/png;base64,",
    ]) {
      const res = await post({ mediaUrl, mediaContentType: "image/png" });
      expect(res.statusCode, mediaUrl).toBe(400);
      expect(json(res).error).toMatch(/customData\.media/);
    }
  });

  it("base64 with line breaks (MIME style) is accepted", async () => {
    const b64 = PNG.toString("base64").replace(/(.{16})/g, "$1\r\n");
    const res = await post({ mediaUrl: `data:image/png;base64,${b64}`, mediaContentType: "image/png" });
    expect(res.statusCode).toBe(200);
  });

  it("another account cannot read the attachment (404)", async () => {
    const res = await post({ mediaUrl: dataUri("image/png", PNG), mediaContentType: "image/png" });
    const id = json(res).messageId as string;
    const other = await t.account();
    const blob = await t.inject({ method: "GET", url: `/v1/messages/${id}/media?apiKey=${other.apiKey}` });
    expect(blob.statusCode).toBe(404);
    expect(errorCode(blob)).toBe("MESSAGE_NOT_FOUND");
  });

  it("a message without an attachment has no media to serve (404)", async () => {
    const res = await post({});
    const blob = await t.inject({
      method: "GET",
      url: `/v1/messages/${json(res).messageId}/media?apiKey=${acc.apiKey}`,
    });
    expect(blob.statusCode).toBe(404);
    expect(json<{ error: { message: string } }>(blob).error.message).toMatch(/no stored attachment/);
  });
});

// ---------------------------------------------------------------------------
// URL attachments
// ---------------------------------------------------------------------------

interface Origin {
  url: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

async function startOrigin(): Promise<Origin> {
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    switch (path) {
      case "/cat.png":
        res.writeHead(200, { "content-type": "image/png" });
        res.end(PNG);
        return;
      case "/not-an-image":
        res.writeHead(200, { "content-type": "image/png" });
        res.end("this is text pretending to be an image");
        return;
      case "/hop":
        res.writeHead(302, { location: "/cat.png" });
        res.end();
        return;
      case "/to-private":
        res.writeHead(302, { location: "http://10.0.0.1/x.png" });
        res.end();
        return;
      case "/missing":
        res.writeHead(404);
        res.end("nope");
        return;
      case "/flaky":
        res.writeHead(503);
        res.end("try later");
        return;
      case "/huge": {
        res.writeHead(200, { "content-type": "image/png" });
        // 17 MiB streamed without a content-length: the cap must hold while streaming.
        const chunk = Buffer.alloc(MiB, 7);
        let sent = 0;
        const pump = () => {
          while (sent < 17) {
            sent++;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          res.end();
        };
        res.on("error", () => {});
        pump();
        return;
      }
      default:
        res.writeHead(404);
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("URL attachments (media.fetch job)", () => {
  let t: TestApp;
  let acc: CreatedAccount;
  let origin: Origin;
  beforeAll(async () => {
    origin = await startOrigin();
    t = await startTestApp(); // OUTBOUND_ALLOW_CIDRS allows 127.0.0.0/8
    acc = await t.account();
  });
  afterAll(async () => {
    await t.close();
    await origin.close();
  });

  async function postUrl(path: string, contentType = "image/png") {
    const res = await postIncoming(t, acc.apiKey, {
      customData: customData({ mediaUrl: `${origin.url}${path}`, mediaContentType: contentType }),
    });
    expect(res.statusCode).toBe(200);
    return json(res).messageId as string;
  }

  it("is pending at the answer, then downloaded, sniffed and stored by the job", async () => {
    const id = await postUrl("/cat.png");
    const pending = await messageOf(t, acc.apiKey, id);
    expect(pending.media).toMatchObject({
      state: "pending",
      contentType: "image/png",
      url: `${origin.url}/cat.png`,
    });
    expect(await jobsFor(t, MEDIA_FETCH_JOB, id)).toBe(1);

    await t.parley.worker.drain();
    const stored = await messageOf(t, acc.apiKey, id);
    expect(stored.media).toMatchObject({ state: "stored", size: PNG.length, sha256: sha(PNG), reason: null });
    expect(fs.readFileSync(localBlob(t, sha(PNG))).equals(PNG)).toBe(true);
    const blob = await t.inject({ method: "GET", url: `/v1/messages/${id}/media?apiKey=${acc.apiKey}` });
    expect(blob.headers["content-type"]).toBe("image/png");
    expect(blob.rawPayload.equals(PNG)).toBe(true);
    expect(await jobsFor(t, MEDIA_FETCH_JOB, id)).toBe(0);
  });

  it("follows a redirect within the allowed addresses", async () => {
    const id = await postUrl("/hop");
    await t.parley.worker.drain();
    expect((await messageOf(t, acc.apiKey, id)).media?.state).toBe("stored");
  });

  it("a wrong declared type is rejected with the reason", async () => {
    const id = await postUrl("/not-an-image");
    await t.parley.worker.drain();
    const media = (await messageOf(t, acc.apiKey, id)).media;
    expect(media?.state).toBe("rejected");
    expect(media?.reason).toMatch(/could not be identified as image\/png/);
    const asJpeg = await postUrl("/cat.png", "image/jpeg");
    await t.parley.worker.drain();
    const jm = (await messageOf(t, acc.apiKey, asJpeg)).media;
    expect(jm?.state).toBe("rejected");
    expect(jm?.reason).toMatch(/image\/png, not image\/jpeg/);
  });

  it("a redirect to a private address is rejected without being followed", async () => {
    const id = await postUrl("/to-private");
    await t.parley.worker.drain();
    const media = (await messageOf(t, acc.apiKey, id)).media;
    expect(media?.state).toBe("rejected");
    expect(media?.reason).toMatch(/blocked_address.*10\.0\.0\.1/);
  });

  it("an HTTP error is rejected", async () => {
    const id = await postUrl("/missing");
    await t.parley.worker.drain();
    const media = (await messageOf(t, acc.apiKey, id)).media;
    expect(media?.state).toBe("rejected");
    expect(media?.reason).toMatch(/HTTP 404/);
  });

  it("a body over 16 MiB is cut off while streaming and rejected", async () => {
    const id = await postUrl("/huge");
    await t.parley.worker.drain();
    const media = (await messageOf(t, acc.apiKey, id)).media;
    expect(media?.state).toBe("rejected");
    expect(media?.reason).toMatch(/larger than 16 MiB/);
  });

  it("a transient failure (503) is retried on a schedule, then rejected after the last attempt", async () => {
    const id = await postUrl("/flaky");
    const before = origin.hits.get("/flaky") ?? 0;
    await t.parley.worker.drain();
    expect((await messageOf(t, acc.apiKey, id)).media?.state).toBe("pending");
    const job = async () =>
      (
        await t.parley.db.kysely.selectFrom("jobs").selectAll().where("type", "=", MEDIA_FETCH_JOB).execute()
      ).find((j) => JSON.parse(j.payload).messageId === id);
    const queued = await job();
    expect(queued?.status).toBe("queued");
    expect(queued?.run_at).toBeGreaterThan(Date.now() + 5_000);
    expect(queued?.last_error).toMatch(/HTTP 503/);
    // Make the scheduled retries due now, one by one: attempts 2 and 3 retry again, attempt 4 rejects.
    for (let attempt = 2; attempt <= 4; attempt++) {
      await t.parley.db.kysely
        .updateTable("jobs")
        .set({ run_at: 0 })
        .where("id", "=", queued?.id ?? "")
        .execute();
      await t.parley.worker.drain();
      const state = (await messageOf(t, acc.apiKey, id)).media?.state;
      expect(state, `after attempt ${attempt}`).toBe(attempt < 4 ? "pending" : "rejected");
    }
    expect((origin.hits.get("/flaky") ?? 0) - before).toBe(4);
    expect((await messageOf(t, acc.apiKey, id)).media?.reason).toMatch(/HTTP 503/);
    expect(await job()).toBeUndefined();
  });

  it("a job that runs again after the attachment settled changes nothing (idempotent)", async () => {
    const id = await postUrl("/cat.png");
    await t.parley.worker.drain();
    const before = origin.hits.get("/cat.png") ?? 0;
    const { enqueueJobs } = await import("../src/platform/jobs.ts");
    await enqueueJobs(t.parley.db.kysely, [
      { type: MEDIA_FETCH_JOB, accountId: acc.accountId, payload: { messageId: id } },
    ]);
    await t.parley.worker.drain();
    expect(origin.hits.get("/cat.png") ?? 0).toBe(before);
    expect((await messageOf(t, acc.apiKey, id)).media?.state).toBe("stored");
  });
});

describe("URL attachments without the loopback allowance", () => {
  let t: TestApp;
  let origin: Origin;
  beforeAll(async () => {
    origin = await startOrigin();
    t = await startTestApp({ OUTBOUND_ALLOW_CIDRS: "" });
  });
  afterAll(async () => {
    await t.close();
    await origin.close();
  });

  it("a URL on 127.0.0.1 is rejected as a blocked address and never contacted", async () => {
    const acc = await t.account();
    const res = await postIncoming(t, acc.apiKey, {
      customData: customData({ mediaUrl: `${origin.url}/cat.png`, mediaContentType: "image/png" }),
    });
    expect(res.statusCode).toBe(200);
    const id = json(res).messageId as string;
    await t.parley.worker.drain();
    const media = (await messageOf(t, acc.apiKey, id)).media;
    expect(media?.state).toBe("rejected");
    expect(media?.reason).toMatch(/blocked_address.*127\.0\.0\.1.*loopback/);
    expect(origin.hits.get("/cat.png") ?? 0).toBe(0);
  });
});

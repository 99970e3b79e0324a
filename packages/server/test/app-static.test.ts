// The web app's files at /: index.html for client-side routes (never cached), hashed assets cached
// for good, API paths keeping their JSON 404; without a build, / says the app is not built.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCode, startTestApp, type TestApp } from "./helpers.ts";

const BIG_ASSET = "InboxPage-def456.js";
const BIG_SCRIPT = Buffer.from(`export const rows = [${'"a conversation row", '.repeat(2000)}];\n`);

describe("web app built", () => {
  let t: TestApp;
  let dist: string;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), "parley-web-"));
    fs.mkdirSync(path.join(dist, "assets"));
    fs.writeFileSync(path.join(dist, "index.html"), "<!doctype html><title>Parley app</title>");
    fs.writeFileSync(path.join(dist, "assets", "index-abc123.js"), "console.log(1)");
    fs.writeFileSync(path.join(dist, "favicon.svg"), "<svg/>");
    // As the build leaves them (packages/web/vite.config.ts): a .br and a .gz next to the file.
    fs.writeFileSync(path.join(dist, "assets", BIG_ASSET), BIG_SCRIPT);
    fs.writeFileSync(path.join(dist, "assets", `${BIG_ASSET}.br`), zlib.brotliCompressSync(BIG_SCRIPT));
    fs.writeFileSync(path.join(dist, "assets", `${BIG_ASSET}.gz`), zlib.gzipSync(BIG_SCRIPT));
    t = await startTestApp({}, { webDist: dist });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it("answers / and client-side routes with index.html, not cached", async () => {
    for (const url of [
      "/",
      "/inbox",
      "/inbox/cv_123",
      "/settings",
      "/invite/abc",
      "/onboarding?setupToken=x",
    ]) {
      const res = await t.inject({ method: "GET", url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"]).toMatch(/text\/html/);
      expect(res.headers["cache-control"]).toBe("no-cache");
      expect(res.body).toContain("Parley app");
    }
  });

  it("serves hashed assets immutable and other files revalidated", async () => {
    const asset = await t.inject({ method: "GET", url: "/assets/index-abc123.js" });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    const icon = await t.inject({ method: "GET", url: "/favicon.svg" });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers["cache-control"]).toBe("no-cache");
    const missing = await t.inject({ method: "GET", url: "/assets/gone-999.js" });
    expect(missing.statusCode).toBe(404);
  });

  it("sends the precompressed file the client accepts, brotli first, the same bytes once decoded", async () => {
    const cases = [
      { accept: "gzip, deflate, br, zstd", encoding: "br", decode: zlib.brotliDecompressSync },
      { accept: "gzip", encoding: "gzip", decode: zlib.gunzipSync },
      { accept: "br;q=0.5, gzip;q=1", encoding: "gzip", decode: zlib.gunzipSync },
      { accept: undefined, encoding: undefined, decode: (b: Buffer) => b },
      { accept: "identity", encoding: undefined, decode: (b: Buffer) => b },
    ];
    for (const c of cases) {
      const res = await t.inject({
        method: "GET",
        url: `/assets/${BIG_ASSET}`,
        headers: c.accept ? { "accept-encoding": c.accept } : {},
      });
      const label = c.accept ?? "no Accept-Encoding";
      expect(res.statusCode, label).toBe(200);
      expect(res.headers["content-encoding"], label).toBe(c.encoding);
      expect(res.headers.vary, label).toMatch(/accept-encoding/i);
      expect(res.headers["content-type"], label).toMatch(/^(text|application)\/javascript/);
      expect(res.headers["cache-control"], label).toBe("public, max-age=31536000, immutable");
      if (c.encoding) expect(res.rawPayload.length, label).toBeLessThan(BIG_SCRIPT.length / 10);
      expect(c.decode(res.rawPayload).equals(BIG_SCRIPT), label).toBe(true);
    }
    // A file the build left uncompressed (too small) is sent as it is, whatever the client accepts.
    const small = await t.inject({
      method: "GET",
      url: "/assets/index-abc123.js",
      headers: { "accept-encoding": "br, gzip" },
    });
    expect(small.statusCode).toBe(200);
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(small.body).toBe("console.log(1)");
    // Client-side routes still get index.html, not cached.
    const page = await t.inject({ method: "GET", url: "/inbox", headers: { "accept-encoding": "br, gzip" } });
    expect(page.statusCode).toBe(200);
    expect(page.headers["cache-control"]).toBe("no-cache");
    expect(page.body).toContain("Parley app");
  });

  it("keeps the JSON 404 for unknown API paths", async () => {
    for (const url of ["/v1/nope", "/app/api/nope", "/v1", "/app/api"]) {
      const res = await t.inject({ method: "GET", url });
      expect(res.statusCode, url).toBe(404);
      expect(errorCode(res)).toBe("NOT_FOUND");
    }
    const post = await t.inject({ method: "POST", url: "/inbox", payload: {} });
    expect(post.statusCode).toBe(404);
    expect(errorCode(post)).toBe("NOT_FOUND");
  });
});

describe("web app not built", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({}, { webDist: path.join(os.tmpdir(), "parley-no-such-dist") });
  });
  afterAll(() => t?.close());

  it("answers / with a short page saying so, and API paths with JSON", async () => {
    const res = await t.inject({ method: "GET", url: "/" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.body).toMatch(/not built/);
    const api = await t.inject({ method: "GET", url: "/v1/nope" });
    expect(api.statusCode).toBe(404);
    expect(errorCode(api)).toBe("NOT_FOUND");
  });
});

import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Module } from "../src/context.ts";
import { AppError } from "../src/platform/errors.ts";
import { startHttpRefuser } from "../src/platform/http/refuser.ts";
import { json, LogCapture, REDIS_URL, startTestApp, type TestApp } from "./helpers.ts";

/** A fixture module with routes that fail on purpose, to see what clients get. */
const failing: Module = {
  name: "failing-fixture",
  routes(app) {
    app.get("/v1/test/boom", async () => {
      throw new Error("secret internal detail: password=hunter2");
    });
    app.get("/v1/test/simple-boom", { config: { errorForm: "simple" } }, async () => {
      throw new Error("secret internal detail");
    });
    app.get("/v1/test/app-error", async () => {
      throw new AppError("CONTACT_NOT_FOUND", "no such contact");
    });
  },
};

describe("error forms", () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({}, { modules: [failing] });
    // The fixture app has no accounts module routes, but accounts are storage, not routes.
    key = (await t.account()).apiKey;
  });
  afterAll(() => t.close());

  it("answers an unknown route with a structured 404", async () => {
    const res = await t.inject({ method: "GET", url: "/v1/nothing-here" });
    expect(res.statusCode).toBe(404);
    expect(json<{ error: { code: string } }>(res).error.code).toBe("NOT_FOUND");
  });

  it("maps an AppError to its status and code", async () => {
    const res = await t.inject({ method: "GET", url: `/v1/test/app-error?apiKey=${key}` });
    expect(res.statusCode).toBe(404);
    expect(json(res)).toMatchObject({ error: { code: "CONTACT_NOT_FOUND", message: "no such contact" } });
  });

  it("never leaks internals in a 500, in either form", async () => {
    const structured = await t.inject({ method: "GET", url: `/v1/test/boom?apiKey=${key}` });
    expect(structured.statusCode).toBe(500);
    expect(structured.body).not.toContain("hunter2");
    expect(json<{ error: { code: string; requestId: string } }>(structured).error.code).toBe(
      "INTERNAL_ERROR",
    );
    const simple = await t.inject({ method: "GET", url: `/v1/test/simple-boom?apiKey=${key}` });
    expect(simple.statusCode).toBe(500);
    const body = json<{ error: unknown }>(simple);
    expect(typeof body.error).toBe("string");
    expect(simple.body).not.toContain("secret");
  });

  it("gives every response a request id", async () => {
    const res = await t.inject({ method: "GET", url: "/healthz" });
    expect(res.headers["x-request-id"]).toMatch(/^req_[0-9a-z]{26}$/);
    const given = await t.inject({ method: "GET", url: "/healthz", headers: { "x-request-id": "abc-123" } });
    expect(given.headers["x-request-id"]).toBe("abc-123");
  });
});

describe("health, readiness and OpenAPI", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("serves /healthz and /readyz without a key", async () => {
    expect((await t.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
    const ready = await t.inject({ method: "GET", url: "/readyz" });
    expect(ready.statusCode).toBe(200);
    expect(json(ready).database).toBe(t.parley.db.dialect);
  });

  it("serves the OpenAPI document and the docs page", async () => {
    const doc = await t.inject({ method: "GET", url: "/v1/openapi.json" });
    expect(doc.statusCode).toBe(200);
    const spec = json<{ openapi: string; paths: Record<string, unknown> }>(doc);
    expect(spec.openapi).toBe("3.1.0");
    expect(spec.paths["/v1/account"]).toBeDefined();
    const page = await t.inject({ method: "GET", url: "/docs/" });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("<html");
  });
});

describe("logging", () => {
  it("never writes an API key to the logs, from the query string or a header", async () => {
    const logs = new LogCapture();
    const t = await startTestApp({ LOG_LEVEL: "trace" }, { logStream: logs });
    try {
      const { apiKey } = await t.account();
      const q = await t.inject({ method: "GET", url: `/v1/account?apiKey=${apiKey}&x=1` });
      expect(q.statusCode).toBe(200);
      const h = await t.inject({ method: "GET", url: "/v1/account", headers: { "x-api-key": apiKey } });
      expect(h.statusCode).toBe(200);
      const bad = await t.inject({ method: "GET", url: `/v1/account?apiKey=${apiKey}x` });
      expect(bad.statusCode).toBe(401);
      expect(logs.lines.length).toBeGreaterThan(3);
      expect(logs.text).toContain("/v1/account?apiKey=[REDACTED]");
      expect(logs.text).not.toContain(apiKey);
      expect(logs.text).not.toContain(apiKey.slice(8));
    } finally {
      await t.close();
    }
  });
});

describe("HTTPS only", () => {
  it("answers every request on the plain HTTP port with 403 HTTPS_REQUIRED and reads no body", async () => {
    const refuser = await startHttpRefuser("127.0.0.1", 0);
    try {
      const request = (method: string, path: string, body?: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = http.request({ host: "127.0.0.1", port: refuser.port, method, path }, (res) => {
            let data = "";
            res.on("data", (c) => (data += c));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
          });
          req.on("error", reject);
          req.end(body);
        });
      const get = await request("GET", "/healthz");
      expect(get.status).toBe(403);
      expect(JSON.parse(get.body)).toMatchObject({ error: { code: "HTTPS_REQUIRED" } });
      const post = await request("POST", "/v1/contacts?apiKey=x", JSON.stringify({ phone: "+14155550100" }));
      expect(post.status).toBe(403);
      const incoming = await request("POST", "/v1/incoming_custom_channel_message?apiKey=x", "{}");
      expect(incoming.status).toBe(403);
      expect(typeof JSON.parse(incoming.body).error).toBe("string");
    } finally {
      await refuser.close();
    }
  });

  it("refuses requests that reached a trusted proxy over plain HTTP", async () => {
    const t = await startTestApp({ TRUST_PROXY: "true" });
    try {
      const { apiKey } = await t.account();
      const plain = await t.inject({
        method: "GET",
        url: `/v1/account?apiKey=${apiKey}`,
        headers: { "x-forwarded-proto": "http" },
      });
      expect(plain.statusCode).toBe(403);
      expect(json<{ error: { code: string } }>(plain).error.code).toBe("HTTPS_REQUIRED");
      const missing = await t.inject({ method: "GET", url: `/v1/account?apiKey=${apiKey}` });
      expect(missing.statusCode).toBe(403);
      const tls = await t.inject({
        method: "GET",
        url: `/v1/account?apiKey=${apiKey}`,
        headers: { "x-forwarded-proto": "https" },
      });
      expect(tls.statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it("serves HTTPS on a real socket with the self-signed certificate", async () => {
    const { loadTls } = await import("../src/platform/tls.ts");
    const { buildApp } = await import("../src/app.ts");
    const { freshDatabase, testConfig } = await import("./helpers.ts");
    const database = await freshDatabase();
    const config = testConfig(database);
    const tls = await loadTls(config);
    expect(tls.selfSigned).toBe(true);
    const again = await loadTls(config);
    expect(again.cert).toBe(tls.cert); // generated once, reused
    const parley = await buildApp(config, { tls });
    try {
      await parley.app.listen({ host: "127.0.0.1", port: 0 });
      const { port } = parley.app.server.address() as AddressInfo;
      const res = await fetchInsecure(`https://127.0.0.1:${port}/healthz`);
      expect(res).toEqual({ status: 200, body: '{"status":"ok"}' });
    } finally {
      await parley.close();
      await database.drop();
    }
  });
});

async function fetchInsecure(url: string): Promise<{ status: number; body: string }> {
  const https = await import("node:https");
  return new Promise((resolve, reject) => {
    https
      .get(url, { rejectUnauthorized: false }, (res) => {
        let data = "";
        res.on("data", (c) => (data += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
      })
      .on("error", reject);
  });
}

describe.each([
  ["memory store", null],
  ["Redis store", REDIS_URL],
])("rate limits (%s)", (_name, redisUrl) => {
  let t: TestApp;
  const skip = _name === "Redis store" && !redisUrl;
  beforeAll(async () => {
    if (skip) return;
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: "5", ...(redisUrl ? { REDIS_URL: redisUrl } : {}) });
  });
  afterAll(async () => {
    if (!skip) await t.close();
  });

  it.skipIf(skip)(
    "gives the (limit+1)th request of one key 429 with Retry-After; another key is unaffected",
    async () => {
      const a = await t.account();
      const b = await t.account();
      for (let i = 0; i < 5; i++) {
        const ok = await t.inject({ method: "GET", url: `/v1/account?apiKey=${a.apiKey}` });
        expect(ok.statusCode).toBe(200);
        expect(ok.headers["ratelimit-limit"]).toBe("5");
        expect(ok.headers["ratelimit-remaining"]).toBe(String(4 - i));
        expect(Number(ok.headers["ratelimit-reset"])).toBeGreaterThan(0);
      }
      const limited = await t.inject({ method: "GET", url: `/v1/account?apiKey=${a.apiKey}` });
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
      expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(60);
      expect(json<{ error: { code: string } }>(limited).error.code).toBe("RATE_LIMITED");
      const other = await t.inject({ method: "GET", url: `/v1/account?apiKey=${b.apiKey}` });
      expect(other.statusCode).toBe(200);
      expect(other.headers["ratelimit-remaining"]).toBe("4");
    },
  );
});

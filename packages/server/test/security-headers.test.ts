// Security headers (@fastify/helmet): the web app, its session API and /v1 send a Content-Security-Policy
// that forbids framing and inline script, nosniff, HSTS and a referrer policy; the media routes keep
// their own stricter policy and the API docs page still gets its scripts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { MODULES } from "../src/modules/index.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { dataUri, makePng } from "./fixtures/png.ts";
import { json, startTestApp, type TestApp } from "./helpers.ts";

function directives(res: LightMyRequestResponse): Map<string, string[]> {
  const header = String(res.headers["content-security-policy"] ?? "");
  return new Map(
    header
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name as string, values]),
  );
}

function expectAppHeaders(res: LightMyRequestResponse, what: string): void {
  const csp = directives(res);
  expect(csp.get("frame-ancestors"), what).toEqual(["'none'"]);
  expect(csp.get("script-src"), what).toEqual(["'self'"]);
  expect(csp.get("object-src"), what).toEqual(["'none'"]);
  expect(csp.get("base-uri"), what).toEqual(["'self'"]);
  expect(res.headers["x-content-type-options"], what).toBe("nosniff");
  expect(res.headers["strict-transport-security"], what).toMatch(/^max-age=\d{7,}; includeSubDomains$/);
  expect(res.headers["referrer-policy"], what).toBe("no-referrer");
  expect(res.headers["x-frame-options"], what).toBe("DENY");
}

describe("security headers", () => {
  let t: TestApp;
  let dist: string;
  let acc: CreatedAccount;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), "parley-web-"));
    fs.mkdirSync(path.join(dist, "assets"));
    fs.writeFileSync(path.join(dist, "index.html"), "<!doctype html><title>Parley app</title>");
    fs.writeFileSync(path.join(dist, "assets", "index-abc123.js"), "console.log(1)");
    t = await startTestApp({}, { webDist: dist });
    acc = await t.account();
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it("the web app's pages and files forbid framing and inline script", async () => {
    for (const url of ["/", "/settings", "/inbox/cv_1", "/assets/index-abc123.js", "/assets/gone.js"]) {
      const res = await t.inject({ method: "GET", url });
      expectAppHeaders(res, url);
    }
  });

  it("the session API and /v1 send them too, on success and on errors", async () => {
    const responses: Array<[string, LightMyRequestResponse]> = [
      ["GET /app/api/session (401)", await t.inject({ method: "GET", url: "/app/api/session" })],
      ["GET /app/api/onboarding", await t.inject({ method: "GET", url: "/app/api/onboarding" })],
      ["GET /v1/account", await t.inject({ method: "GET", url: `/v1/account?apiKey=${acc.apiKey}` })],
      ["GET /v1/account (401)", await t.inject({ method: "GET", url: "/v1/account" })],
      ["GET /v1/nope (404)", await t.inject({ method: "GET", url: "/v1/nope" })],
      ["GET /v1/openapi.json", await t.inject({ method: "GET", url: "/v1/openapi.json" })],
    ];
    for (const [what, res] of responses) expectAppHeaders(res, what);
    expect(responses[2]?.[1].statusCode).toBe(200);
  });

  it("the media route keeps its own sandboxing policy", async () => {
    const png = makePng(2, 2);
    const res = await postIncoming(t, acc.apiKey, {
      customData: customData({ mediaUrl: dataUri("image/png", png), mediaContentType: "image/png" }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = json(res).messageId as string;
    const blob = await t.inject({ method: "GET", url: `/v1/messages/${id}/media?apiKey=${acc.apiKey}` });
    expect(blob.statusCode).toBe(200);
    expect(blob.headers["content-security-policy"]).toBe("default-src 'none'; sandbox");
    expect(blob.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("the API docs page loads its scripts from files under the same policy", async () => {
    const page = await t.inject({ method: "GET", url: "/docs/" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    expect(directives(page).get("frame-ancestors")).toEqual(["'none'"]);
    // No inline script: every <script> has a src, which script-src 'self' allows.
    const scripts = page.body.match(/<script[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toMatch(/src="/);
    const init = await t.inject({ method: "GET", url: "/docs/static/swagger-initializer.js" });
    expect(init.statusCode).toBe(200);
  });
});

describe("security headers of the embeddable chat widget", () => {
  let t: TestApp;
  beforeAll(async () => {
    // A stand-in for the widget's public routes: other sites load them, so they may be cross-origin.
    const probe = {
      name: "widget-probe",
      routes(app: TestApp["parley"]["app"]) {
        app.get("/widget/v1/h5-probe", { config: { auth: "none" }, schema: { hide: true } }, async () => ({
          ok: 1,
        }));
      },
    };
    t = await startTestApp({}, { modules: [...MODULES, probe] });
  });
  afterAll(() => t?.close());

  it("lets other sites load the widget's resources and keeps everything else same-origin", async () => {
    const widget = await t.inject({ method: "GET", url: "/widget/v1/h5-probe" });
    expect(widget.statusCode).toBe(200);
    expect(widget.headers["cross-origin-resource-policy"]).toBe("cross-origin");
    expect(widget.headers["x-content-type-options"]).toBe("nosniff");
    const api = await t.inject({ method: "GET", url: "/v1/openapi.json" });
    expect(api.headers["cross-origin-resource-policy"]).toBe("same-origin");
  });
});

// The request limit of the web app: the session API counts per signed-in user, so teammates behind one
// office address each have their own budget; the web app's files are never limited; routes without a
// session (sign-in, onboarding, invite links) still count per client address.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, ownerBrowser, teammate } from "./app-helpers.ts";
import { startTestApp, type TestApp } from "./helpers.ts";

const LIMIT = 15;

describe("rate limit of the web app", () => {
  let t: TestApp;
  let dist: string;
  let owner: Browser;
  let agent: Browser;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), "parley-web-"));
    fs.mkdirSync(path.join(dist, "assets"));
    fs.writeFileSync(path.join(dist, "index.html"), "<!doctype html><title>Parley app</title>");
    fs.writeFileSync(path.join(dist, "assets", "index-abc123.js"), "console.log(1)");
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: String(LIMIT) }, { webDist: dist });
    // Every request of this test comes from one address (inject's 127.0.0.1): one office.
    owner = (await ownerBrowser(t)).browser;
    agent = await teammate(t, owner, "agent");
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  const inbox = (b: Browser) => b.req({ method: "GET", url: "/app/api/conversations" });

  it("gives two users of one account behind one address a budget each", async () => {
    // The owner spent one request on the invite; both use the rest of their own budget.
    for (let i = 0; i < LIMIT - 1; i++) {
      const [a, b] = await Promise.all([inbox(owner), inbox(agent)]);
      expect(a.statusCode, `owner request ${i + 1}: ${a.body}`).toBe(200);
      expect(b.statusCode, `agent request ${i + 1}: ${b.body}`).toBe(200);
    }
    const over = await inbox(owner);
    expect(over.statusCode).toBe(429);
    expect(over.headers["ratelimit-limit"]).toBe(String(LIMIT));
    // The agent's budget is its own: one left.
    expect((await inbox(agent)).statusCode).toBe(200);
    expect((await inbox(agent)).statusCode).toBe(429);
  });

  it("never limits the web app's files", async () => {
    for (let i = 0; i < LIMIT * 3; i++) {
      for (const url of ["/", "/inbox", "/assets/index-abc123.js"]) {
        const res = await t.inject({ method: "GET", url });
        expect(res.statusCode, `${url} #${i + 1}`).toBe(200);
        expect(res.headers["ratelimit-limit"], url).toBeUndefined();
      }
    }
  });

  it("still counts routes without a session per client address", async () => {
    const from = (ip: string) => t.inject({ method: "GET", url: "/app/api/onboarding", remoteAddress: ip });
    let status = 200;
    let n = 0;
    while (status === 200 && n <= LIMIT) {
      status = (await from("203.0.113.7")).statusCode;
      n++;
    }
    expect(status).toBe(429);
    expect(n).toBe(LIMIT + 1);
    // Another address has its own.
    expect((await from("203.0.113.8")).statusCode).toBe(200);
  });
});

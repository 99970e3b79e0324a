// A fresh install: `parley serve` prints a one-time setup link while no account exists (and not once
// one does); live updates reach subscribers of another app instance on PostgreSQL (every node).
import https from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import type { LiveEvent } from "../src/platform/live.ts";
import { DIALECT, freshDatabase, startTestApp, type TestApp, type TestDatabase } from "./helpers.ts";
import { cliEnv, oneJsonLine, runCli, startServer } from "./process-helpers.ts";

function getJson(port: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: "127.0.0.1", port, path, rejectUnauthorized: false }, (res) => {
        let data = "";
        res.on("data", (c) => (data += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }));
      })
      .on("error", reject);
  });
}

describe("parley serve on a fresh install", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(() => database.drop());

  it("prints setupUrl while no account exists, and no longer once one does", async () => {
    const env = cliEnv(database, { PORT: "0", HOST: "127.0.0.1" });
    const first = await startServer(["serve", "--no-worker"], env);
    try {
      const setupUrl = new URL(String(first.line.setupUrl));
      expect(setupUrl.pathname).toBe("/onboarding");
      const token = setupUrl.searchParams.get("setupToken");
      expect(token).toMatch(/^[\w-]{20,}$/);
      const port = new URL(String(first.line.url)).port;
      const check = await getJson(port, `/app/api/onboarding?setupToken=${token}`);
      expect(check).toEqual({ status: 200, body: { needed: true, allowed: true } });
    } finally {
      first.child.kill("SIGTERM");
      await first.exited;
    }
    // `parley account create` keeps working, and then there is nothing to set up.
    oneJsonLine(
      await runCli(["account", "create", "--email", "op@example.com", "--password", "s3cret-pass"], env),
    );
    const second = await startServer(["serve", "--no-worker"], env);
    try {
      expect(second.line.setupUrl).toBeUndefined();
      const port = new URL(String(second.line.url)).port;
      const check = await getJson(port, "/app/api/onboarding");
      expect(check.body).toEqual({ needed: false, allowed: false });
    } finally {
      second.child.kill("SIGTERM");
      await second.exited;
    }
  });
});

describe("live updates", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it("reach this process's subscribers of the account only", async () => {
    const got: LiveEvent[] = [];
    const other: LiveEvent[] = [];
    const stop = t.parley.ctx.live.subscribe("acc_a", (e) => got.push(e));
    const stopOther = t.parley.ctx.live.subscribe("acc_b", (e) => other.push(e));
    t.parley.ctx.live.publish("acc_a", { conversationId: "cv_1" });
    const until = Date.now() + 5000;
    while (got.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(got).toEqual([{ conversationId: "cv_1" }]);
    expect(other).toEqual([]);
    stop();
    stopOther();
  });

  it.runIf(DIALECT === "postgres")("reach another app instance on the same PostgreSQL database", async () => {
    const second = await buildApp(t.config);
    try {
      const got: LiveEvent[] = [];
      const stop = second.ctx.live.subscribe("acc_x", (e) => got.push(e));
      // The second instance's LISTEN connection comes up asynchronously: publish until it hears.
      const until = Date.now() + 10_000;
      while (got.length === 0 && Date.now() < until) {
        t.parley.ctx.live.publish("acc_x", { conversationId: "cv_remote" });
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(got[0]).toEqual({ conversationId: "cv_remote" });
      stop();
    } finally {
      await second.close();
    }
  });
});

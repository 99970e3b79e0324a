// SQLite on a full disk: writes fail with a clear 503 in the error model (never a 500 with a stack),
// nothing acknowledged is lost, the database passes PRAGMA integrity_check, and once space is freed
// the server accepts messages again by itself. A small tmpfs is the full disk (needs root to mount).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PG_URL } from "../test/helpers.ts";
import { cli, envFor, incomingLoad, kill, type ServerProcess, start } from "./harness.ts";

const canMount = !PG_URL && process.platform === "linux" && process.getuid?.() === 0;

describe.runIf(canMount)("SQLite on a full disk", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-fulldisk-"));
  let server: ServerProcess | undefined;
  beforeAll(() => {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", dir]);
  });
  afterAll(async () => {
    if (server) await kill(server, "SIGKILL");
    execFileSync("umount", ["-l", dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 while full, loses nothing acknowledged, stays intact, and recovers when space is freed", async () => {
    const env = envFor({ databaseUrl: null, dataDir: dir, drop: async () => {} });
    const acc = await cli<{ accountId: string; apiKey: string }>(
      ["account", "create", "--email", "full@example.com", "--password", "long password"],
      env,
    );
    server = await start(["serve", "--no-worker"], env);
    const port = server.port;
    const load = incomingLoad({
      port: () => port,
      apiKey: acc.apiKey,
      prefix: "fill",
      concurrency: 8,
      senders: 500,
    });
    const started = Date.now();
    while ((load.statuses.get(503) ?? 0) < 20 && Date.now() - started < 60_000) {
      await new Promise((r) => setTimeout(r, 100));
    }
    await load.stop();
    console.info("statuses while filling:", JSON.stringify([...load.statuses]));
    expect(load.statuses.get(503) ?? 0).toBeGreaterThanOrEqual(20);
    expect(load.statuses.get(500) ?? 0).toBe(0);
    const { Agent, fetch } = await import("undici");
    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    const post = (sid: string) =>
      fetch(`https://127.0.0.1:${port}/v1/incoming_custom_channel_message?apiKey=${acc.apiKey}`, {
        method: "POST",
        dispatcher: insecure,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          customData: { messageSid: sid, fromId: "u-full", toId: "biz", body: "hello" },
        }),
      });
    // After the load stops SQLite may find a freed page or two for a small message: post until the
    // disk is full again; every message acknowledged meanwhile is checked like the load's below.
    const alsoAcknowledged: string[] = [];
    let full = await post("while-full-0");
    for (let i = 1; i < 500 && full.status === 200; i++) {
      alsoAcknowledged.push(((await full.json()) as { messageId: string }).messageId);
      full = await post(`while-full-${i}`);
    }
    expect(full.status).toBe(503);
    expect(await full.json()).toEqual({
      error: "The server's storage is full; nothing was stored. Retry later",
    });

    // Space is freed (the filesystem grows): the same process accepts again, without a restart.
    execFileSync("mount", ["-o", "remount,size=64m", dir]);
    let after = await post("after-space");
    for (let i = 0; i < 20 && after.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      after = await post("after-space");
    }
    expect(after.status).toBe(200);
    await insecure.close();
    await kill(server, "SIGKILL");
    server = undefined;

    const db = new SQLite(path.join(dir, "parley.sqlite"));
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      const stored = new Set(
        (db.prepare("select id from messages").all() as Array<{ id: string }>).map((r) => r.id),
      );
      expect([...load.acknowledged, ...alsoAcknowledged].filter((id) => !stored.has(id))).toEqual([]);
      console.info(
        `full disk: ${load.acknowledged.length} acknowledged before the disk filled, ` +
          `${load.statuses.get(503)} refused with 503, integrity_check ok`,
      );
    } finally {
      db.close();
    }
  });
});

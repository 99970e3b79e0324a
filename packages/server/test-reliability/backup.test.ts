// Backups of a live SQLite database: `parley backup` runs as its own process next to `parley serve`
// while incoming messages keep arriving; the copy is restored into a fresh DATA_DIR and must hold
// every message acknowledged before the backup started, and pass PRAGMA integrity_check. On
// PostgreSQL both commands refuse with a pointer to pg_dump / pg_restore.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIALECT, freshDatabase, type TestDatabase } from "../test/helpers.ts";
import { runCli } from "../test/process-helpers.ts";
import { cli, envFor, incomingLoad, kill, start } from "./harness.ts";

describe("parley backup / parley restore", () => {
  let database: TestDatabase;
  let scratch: string;
  beforeAll(async () => {
    database = await freshDatabase();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "parley-backup-"));
  });
  afterAll(async () => {
    await database.drop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it.runIf(DIALECT === "postgres")("on PostgreSQL both commands point to pg_dump / pg_restore", async () => {
    const env = envFor(database);
    const backup = await runCli(["backup", "--out", path.join(scratch, "x.sqlite")], env);
    expect(backup.code).not.toBe(0);
    expect(backup.stderr).toMatch(/pg_dump/);
    expect(backup.stdout).toBe("");
    const restore = await runCli(["restore", "--from", path.join(scratch, "x.sqlite")], env);
    expect(restore.code).not.toBe(0);
    expect(restore.stderr).toMatch(/pg_restore/);
  });

  it.runIf(DIALECT === "sqlite")(
    "a backup taken under load holds every message acknowledged before it started",
    async () => {
      const env = envFor(database);
      const account = await cli<{ apiKey: string }>(
        ["account", "create", "--email", "shop@example.com", "--password", "long password"],
        env,
      );
      const server = await start(["serve"], env);
      let before: string[] = [];
      const load = incomingLoad({
        port: () => server.port,
        apiKey: account.apiKey,
        prefix: "bk",
        concurrency: 8,
      });
      try {
        await new Promise((r) => setTimeout(r, 1500));
        before = load.acknowledged.slice();
        const out = path.join(scratch, "parley-backup.sqlite");
        const started = Date.now();
        const result = await cli<{ backup: string; bytes: number; pages: number }>(
          ["backup", "--out", out],
          env,
        );
        const took = Date.now() - started;
        const during = load.acknowledged.length - before.length;
        await new Promise((r) => setTimeout(r, 500));
        expect(result.backup).toBe(out);
        expect(result.bytes).toBe(fs.statSync(out).size);
        expect(result.pages).toBeGreaterThan(0);
        // A single self-contained file.
        expect(fs.existsSync(`${out}-wal`)).toBe(false);
        console.log(
          `backup under load: ${before.length} messages acknowledged before it, ${during} while it ran ` +
            `(${took} ms), ${result.bytes} bytes, ${result.pages} pages`,
        );
        expect(before.length).toBeGreaterThan(50);

        // Restoring while the server runs is refused.
        const busy = await runCli(["restore", "--from", out], env);
        expect(busy.code).not.toBe(0);
        expect(busy.stderr).toMatch(/open in another process/);
      } finally {
        await load.stop();
        await kill(server, "SIGTERM");
      }
      expect([...load.statuses.keys()].filter((s) => s !== 200)).toEqual([]);

      // Restore into a fresh DATA_DIR (nothing there yet), then a second restore over it keeps the old file.
      const fresh = fs.mkdtempSync(path.join(os.tmpdir(), "parley-restored-"));
      try {
        const restoreEnv = { ...env, DATA_DIR: fresh };
        const out = path.join(scratch, "parley-backup.sqlite");
        const restored = await cli<{ restored: string; previous: string | null }>(
          ["restore", "--from", out],
          restoreEnv,
        );
        expect(restored.restored).toBe(path.join(fresh, "parley.sqlite"));
        expect(restored.previous).toBeNull();
        const again = await cli<{ previous: string | null }>(["restore", "--from", out], restoreEnv);
        expect(again.previous).toBe(path.join(fresh, "parley.sqlite.before-restore"));

        const db = new SQLite(path.join(fresh, "parley.sqlite"), { readonly: true });
        try {
          expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
          const ids = new Set(
            db.prepare("select id from messages where direction = 'inbound'").pluck().all() as string[],
          );
          const missing = before.filter((id) => !ids.has(id));
          expect(missing).toEqual([]);
          expect(ids.size).toBeGreaterThan(50);
        } finally {
          db.close();
        }
        // The restored directory serves: a server starts on it and answers.
        const server = await start(["serve"], restoreEnv);
        await kill(server, "SIGTERM");
      } finally {
        fs.rmSync(fresh, { recursive: true, force: true });
      }

      // A damaged backup is refused before anything is replaced.
      const bad = path.join(scratch, "damaged.sqlite");
      fs.writeFileSync(bad, Buffer.alloc(8192, 7));
      const refused = await runCli(["restore", "--from", bad], env);
      expect(refused.code).not.toBe(0);
    },
  );
});

// Files through SIGKILLs: a real `parley serve` takes messages with attachments (each file written
// before its message commits) while it is killed and restarted, in whatever storage the suite runs on
// (DATA_DIR, or the bucket CI's PostgreSQL pass names with STORAGE_URL). Afterwards no message names a
// file that is missing, and the orphan sweep (a kill between a file's write and its commit leaves
// one) removes every file no message names, and nothing else.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseStorageUrl } from "../src/config.ts";
import { mediaSweep } from "../src/modules/messaging/index.ts";
import { MEDIA_PREFIX } from "../src/modules/messaging/media/store.ts";
import { openStorage } from "../src/platform/storage.ts";
import { sweepPrefix } from "../src/platform/storage-sweep.ts";
import { freshDatabase, type TestDatabase } from "../test/helpers.ts";
import {
  cli,
  envFor,
  expectJobsFinished,
  freePort,
  kill,
  openShared,
  postRaw,
  type ServerProcess,
  start,
} from "./harness.ts";

const MESSAGES = 150;
const KILLS = 3;
const GRACE_SECONDS = 1;

/** One incoming message with a small text attachment; 0 when the connection failed (a killed server). */
function post(port: number, apiKey: string, i: number): Promise<number> {
  const text = `attachment number ${i}: ${"x".repeat(i % 50)}`;
  const body = JSON.stringify({
    customData: {
      messageSid: `file-${i}`,
      fromId: `sender-${i % 20}`,
      toId: "shop",
      body: `file ${i}`,
      mediaUrl: `data:text/plain;base64,${Buffer.from(text).toString("base64")}`,
      mediaContentType: "text/plain",
    },
  });
  return postRaw(port, "/v1/incoming_custom_channel_message", body, { "x-api-key": apiKey });
}

describe("attachments through crashes", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it(`no message without its file after ${KILLS} SIGKILLs, and the sweep removes exactly the orphans`, async () => {
    const port = await freePort();
    const env = envFor(database, {
      PORT: String(port),
      JOB_LEASE_SECONDS: "2",
      STORAGE_ORPHAN_GRACE_SECONDS: String(GRACE_SECONDS),
    });
    const acc = await cli<{ accountId: string; apiKey: string }>(
      ["account", "create", "--email", "files-crash@example.com", "--password", "long password"],
      env,
    );
    await cli(["account", "set", "--email", "files-crash@example.com", "--bot", "off"], env);
    let server: ServerProcess = await start(["serve"], env);
    let next = 0;
    const sender = async () => {
      while (next < MESSAGES) {
        const i = next++;
        // Sent again until answered 200, as a client does after a failed connection.
        while ((await post(port, acc.apiKey, i)) !== 200) await new Promise((r) => setTimeout(r, 50));
      }
    };
    const senders = Promise.all(Array.from({ length: 6 }, sender));
    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 400));
      await kill(server);
      server = await start(["serve"], env);
    }
    await senders;

    const db = openShared(database);
    const storage = await openStorage({
      dataDir: database.dataDir,
      storage: parseStorageUrl(process.env.STORAGE_URL ?? null),
    });
    try {
      await expectJobsFinished(db);
      const rows = await db.kysely
        .selectFrom("messages")
        .select(["external_id", "media_state", "media_sha256"])
        .where("account_id", "=", acc.accountId)
        .where("direction", "=", "inbound")
        .execute();
      expect(rows.map((r) => r.external_id).sort()).toEqual(
        Array.from({ length: MESSAGES }, (_, i) => `file-${i}`).sort(),
      );
      expect(rows.filter((r) => r.media_state !== "stored" || !r.media_sha256)).toEqual([]);
      const namedKeys = new Set(
        rows.map(
          (r) =>
            `${MEDIA_PREFIX}${r.media_sha256!.slice(0, 2)}/${r.media_sha256!.slice(2, 4)}/${r.media_sha256}`,
        ),
      );
      const listed = async () => {
        const keys: string[] = [];
        for await (const o of storage.list(MEDIA_PREFIX)) keys.push(o.key);
        return keys;
      };
      // No row without its file.
      const before = await listed();
      expect([...namedKeys].filter((k) => !before.includes(k))).toEqual([]);
      const orphans = before.filter((k) => !namedKeys.has(k));

      await kill(server);
      await new Promise((r) => setTimeout(r, GRACE_SECONDS * 1000 + 1100));
      let deleted = 0;
      for (const prefix of mediaSweep.prefixes) {
        deleted += (
          await sweepPrefix(
            { db, storage, config: { storageOrphanGraceMs: GRACE_SECONDS * 1000, jobLeaseMs: 2000 } },
            mediaSweep,
            prefix,
          )
        ).deleted;
      }
      const after = await listed();
      console.log(
        `storage crash (${storage.kind}): ${rows.length} messages, ${before.length} files, ${orphans.length} orphans, ${deleted} swept`,
      );
      expect(after.sort()).toEqual([...namedKeys].sort());
      expect(deleted).toBe(orphans.length);
    } finally {
      await storage.close();
      await db.close();
      await kill(server);
    }
  });
});

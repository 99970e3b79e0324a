// A CSV import through SIGKILLs: a real `parley serve` works through a 20,000-row file while it is
// killed and restarted; the import resumes from its last slice and ends with the right counts, one
// contact per row, and nothing created twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../test/helpers.ts";
import { callApi, cli, envFor, freePort, kill, openShared, type ServerProcess, start } from "./harness.ts";

const ROWS = 20_000;
const KILLS = 3;

describe("a CSV import through crashes", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => database.drop());

  it(`survives ${KILLS} SIGKILLs: resumes from its last slice, right counts, nothing twice`, async () => {
    const port = await freePort();
    const env = envFor(database, { PORT: String(port), JOB_LEASE_SECONDS: "2" });
    const acc = await cli<{ accountId: string; apiKey: string }>(
      ["account", "create", "--email", "bulk@example.com", "--password", "long password"],
      env,
    );
    let server: ServerProcess = await start(["serve"], env);
    const lines = ["Name,Phone"];
    for (let i = 0; i < ROWS; i++) lines.push(`Row ${i},+1212${2000000 + i}`);
    const upload = await callApi<{ importId: string; total: number }>(
      port,
      acc.apiKey,
      "POST",
      "/v1/contacts/imports",
      {
        type: "text/csv",
        data: `${lines.join("\n")}\n`,
      },
    );
    expect(upload.status).toBe(202);
    expect(upload.json.total).toBe(ROWS);
    const progress = async () =>
      (
        await callApi<{ status: string; done: number; created: number; updated: number; rejected: number }>(
          port,
          acc.apiKey,
          "GET",
          `/v1/contacts/imports/${upload.json.importId}`,
        )
      ).json;
    const seenDone: number[] = [];
    // Each kill comes right after a slice committed, in the middle of the next one.
    for (let k = 0; k < KILLS; k++) {
      const before = seenDone.at(-1) ?? 0;
      const deadline = Date.now() + 60_000;
      let done = before;
      while (done <= before && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        done = (await progress()).done;
      }
      seenDone.push(done);
      await new Promise((r) => setTimeout(r, Math.random() * 200));
      await kill(server);
      server = await start(["serve"], env);
    }
    const until = Date.now() + 120_000;
    let last = await progress();
    while (last.status === "running" && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 300));
      last = await progress();
    }
    await kill(server, "SIGTERM");
    expect(last).toMatchObject({ status: "done", done: ROWS, created: ROWS, updated: 0, rejected: 0 });
    // It was killed part-way at least once (not only before it started or after it ended).
    expect(seenDone.some((d) => d > 0 && d < ROWS)).toBe(true);
    const db = openShared(database);
    try {
      const rows = await db.kysely
        .selectFrom("contacts")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("account_id", "=", acc.accountId)
        .executeTakeFirstOrThrow();
      expect(Number(rows.n)).toBe(ROWS);
    } finally {
      await db.close();
    }
  }, 240_000);
});

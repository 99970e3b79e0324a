import https from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/platform/db/index.ts";
import { freshDatabase, type TestDatabase } from "./helpers.ts";
import { cliEnv, oneJsonLine, runCli, startServer } from "./process-helpers.ts";

describe("durability: kill -9 under load", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(() => database.drop());

  it("finds every acknowledged message after the server is killed with SIGKILL", async () => {
    const env = cliEnv(database, { PORT: "0", HOST: "127.0.0.1", RATE_LIMIT_PER_MINUTE: "10000000" });
    const { apiKey } = oneJsonLine<{ apiKey: string }>(
      await runCli(["account", "create", "--email", "durable@example.com", "--password", "s3cret-pass"], env),
    );
    const server = await startServer(["serve", "--no-worker"], env);
    const port = Number(new URL(String(server.line.url)).port);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 32, rejectUnauthorized: false });
    const acknowledged: string[] = [];
    let refused = 0;
    let sent = 0;
    let stop = false;
    const post = (i: number) =>
      new Promise<void>((resolve) => {
        const body = JSON.stringify({
          customData: { messageSid: `sid-${i}`, fromId: `user-${i % 40}`, toId: "biz", body: `message ${i}` },
        });
        const req = https.request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: `/v1/incoming_custom_channel_message?apiKey=${apiKey}`,
            agent,
            headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
          },
          (res) => {
            let data = "";
            res.on("data", (c) => (data += c));
            res.on("end", () => {
              if (res.statusCode === 200) acknowledged.push(JSON.parse(data).messageId);
              resolve();
            });
            res.on("error", () => resolve());
          },
        );
        req.on("error", () => {
          refused++;
          resolve();
        });
        req.end(body);
      });
    const loop = async () => {
      while (!stop) await post(sent++);
    };
    const loops = Array.from({ length: 32 }, loop);
    // Let load build up, then kill the server mid-stream, without any chance to shut down.
    while (acknowledged.length < 300) await new Promise((r) => setTimeout(r, 10));
    server.child.kill("SIGKILL");
    await server.exited;
    stop = true;
    await Promise.all(loops);
    agent.destroy();
    expect(refused).toBeGreaterThan(0); // the kill really interrupted requests in flight

    const db = openDatabase(database);
    try {
      const stored = new Set(
        (await db.kysely.selectFrom("messages").select("id").execute()).map((r) => r.id),
      );
      const lost = acknowledged.filter((id) => !stored.has(id));
      expect(acknowledged.length).toBeGreaterThanOrEqual(300);
      expect(lost).toEqual([]);
      // Every stored inbound text still has its bot job: the outbox was committed with the message.
      const jobs = await db.kysely
        .selectFrom("jobs")
        .select("payload")
        .where("type", "=", "bot.reply")
        .execute();
      const withJob = new Set(jobs.map((j) => (JSON.parse(j.payload) as { messageId: string }).messageId));
      expect([...stored].filter((id) => !withJob.has(id))).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

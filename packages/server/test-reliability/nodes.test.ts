// Several nodes on PostgreSQL: two API processes (`parley serve --no-worker`) and two workers
// (`parley worker`) share the load; one worker is killed mid-run and the guarantees still hold. A
// key's rate limit is global through Redis, and a key rotated through one node is refused by the
// other at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, PG_URL, REDIS_URL, type TestDatabase } from "../test/helpers.ts";
import {
  cli,
  envFor,
  expectEveryGuarantee,
  incomingLoad,
  kill,
  payingSubaccount,
  type Receiver,
  type ServerProcess,
  start,
  startReceiver,
  teachOpeningHours,
} from "./harness.ts";

describe.runIf(PG_URL)("several nodes on PostgreSQL", () => {
  let database: TestDatabase;
  let receiver: Receiver;
  const processes: ServerProcess[] = [];
  beforeAll(async () => {
    database = await freshDatabase();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const p of processes) await kill(p, "SIGKILL");
    await receiver.close();
    await database.drop();
  });

  it("two API nodes and two workers, one worker killed mid-run: nothing lost, one reply each, all delivered", async () => {
    const env = envFor(database, {
      JOB_LEASE_SECONDS: "2",
      DELIVERY_RETRY_SCHEDULE: "0.2,0.2,0.2,0.2,0.2",
    });
    const sub = await payingSubaccount(env, "nodes@example.com", receiver.url);
    const apiA = await start(["serve", "--no-worker"], env);
    const apiB = await start(["serve", "--no-worker"], env);
    const worker1 = await start(["worker"], env);
    const worker2 = await start(["worker"], env);
    processes.push(apiA, apiB, worker1, worker2);
    await teachOpeningHours(apiA.port, sub.apiKey);

    const loadA = incomingLoad({ port: () => apiA.port, apiKey: sub.apiKey, prefix: "a", concurrency: 8 });
    const loadB = incomingLoad({ port: () => apiB.port, apiKey: sub.apiKey, prefix: "b", concurrency: 8 });
    await new Promise((r) => setTimeout(r, 2500));
    await kill(worker1, "SIGKILL");
    await new Promise((r) => setTimeout(r, 2500));
    await Promise.all([loadA.stop(), loadB.stop()]);
    const acknowledged = [...loadA.acknowledged, ...loadB.acknowledged];
    expect(loadA.acknowledged.length).toBeGreaterThan(50);
    expect(loadB.acknowledged.length).toBeGreaterThan(50);

    const { replies, deliveries } = await expectEveryGuarantee(
      database,
      sub.accountId,
      acknowledged,
      receiver,
    );
    console.info(
      `nodes: ${acknowledged.length} acknowledged across 2 API nodes, ${replies} replies, ` +
        `${deliveries} deliveries, 1 of 2 workers killed`,
    );

    // A key rotated through a third process (the CLI) is refused by both API nodes at once.
    const { Agent, fetch } = await import("undici");
    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    const account = (port: number, key: string) =>
      fetch(`https://127.0.0.1:${port}/v1/account?apiKey=${key}`, { dispatcher: insecure }).then(
        (r) => r.status,
      );
    expect(await account(apiA.port, sub.apiKey)).toBe(200);
    expect(await account(apiB.port, sub.apiKey)).toBe(200);
    const { apiKey: rotated } = await cli<{ apiKey: string }>(
      ["key", "generate", "--email", "nodes@example.com"],
      env,
    );
    expect(await account(apiA.port, sub.apiKey)).toBe(401);
    expect(await account(apiB.port, sub.apiKey)).toBe(401);
    expect(await account(apiA.port, rotated)).toBe(200);
    expect(await account(apiB.port, rotated)).toBe(200);
    await insecure.close();
  });

  it.runIf(REDIS_URL)("a key's rate limit is global across API nodes through Redis", async () => {
    const env = envFor(database, { RATE_LIMIT_PER_MINUTE: "20", REDIS_URL: REDIS_URL ?? "" });
    const acc = await cli<{ apiKey: string }>(
      ["account", "create", "--email", "limited@example.com", "--password", "long password"],
      env,
    );
    const apiA = await start(["serve", "--no-worker"], env);
    const apiB = await start(["serve", "--no-worker"], env);
    processes.push(apiA, apiB);
    const { Agent, fetch } = await import("undici");
    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      for (const port of [apiA.port, apiB.port]) {
        const res = await fetch(`https://127.0.0.1:${port}/v1/account?apiKey=${acc.apiKey}`, {
          dispatcher: insecure,
        });
        statuses.push(res.status);
      }
    }
    await insecure.close();
    // 30 requests, 15 per node: only 20 pass in all, not 20 per node.
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });
});

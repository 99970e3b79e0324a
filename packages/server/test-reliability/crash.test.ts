// Crashes with everything running: incoming load, the bot answering, replies delivered to a local
// receiver. The server is SIGKILLed at random moments and restarted; afterwards nothing acknowledged is
// missing, every inbound text has exactly one bot reply, every reply reached the receiver (always
// under its own webhook-id), no job is stuck, and the balance equals the sum of its history.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../test/helpers.ts";
import {
  envFor,
  expectEveryGuarantee,
  freePort,
  incomingLoad,
  kill,
  payingSubaccount,
  type Receiver,
  type ServerProcess,
  start,
  startReceiver,
  teachOpeningHours,
} from "./harness.ts";

const KILLS = Number(process.env.RELIABILITY_KILLS ?? 5);

describe("crashes with the bot and delivery running", () => {
  let database: TestDatabase;
  let receiver: Receiver;
  beforeAll(async () => {
    database = await freshDatabase();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await database.drop();
  });

  it(`survives ${KILLS} SIGKILLs at random moments: nothing lost, one reply each, every reply delivered`, async () => {
    const port = await freePort();
    const env = envFor(database, {
      PORT: String(port),
      JOB_LEASE_SECONDS: "2",
      DELIVERY_RETRY_SCHEDULE: "0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2",
      DELIVERY_TIMEOUT_MS: "2000",
    });
    const sub = await payingSubaccount(env, "shop@example.com", receiver.url);
    // One receiver failure in five: deliveries retry across the crashes too.
    receiver.answer = (n) => (n % 5 === 0 ? "fail" : "ok");

    let server: ServerProcess = await start(["serve"], env);
    await teachOpeningHours(port, sub.apiKey);
    const load = incomingLoad({ port: () => port, apiKey: sub.apiKey, prefix: "crash", concurrency: 16 });
    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 1500));
      await kill(server);
      server = await start(["serve"], env);
    }
    await new Promise((r) => setTimeout(r, 1000));
    await load.stop();
    expect(load.acknowledged.length).toBeGreaterThan(200);
    expect(load.statuses.get("connection error") ?? 0).toBeGreaterThan(0); // the kills really cut requests

    try {
      const { replies, deliveries } = await expectEveryGuarantee(
        database,
        sub.accountId,
        load.acknowledged,
        receiver,
      );
      console.info(
        `crash suite: ${load.acknowledged.length} messages acknowledged, ${KILLS} kills, ` +
          `${replies} replies, ${deliveries} deliveries`,
      );
    } finally {
      await kill(server, "SIGTERM");
    }
  });
});

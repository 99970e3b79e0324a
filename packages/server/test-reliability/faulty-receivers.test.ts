// Faulty receivers: answering 500, hanging past the timeout, resetting the connection, answering
// slowly, flapping. With a short retry schedule every message ends Sent once its receiver recovers,
// every attempt is recorded with its error, and nothing is sent again after a 2xx for that message.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../test/helpers.ts";
import {
  cli,
  envFor,
  kill,
  openShared,
  type Receiver,
  type ReceiverMode,
  type ServerProcess,
  start,
  startReceiver,
  waitFor,
} from "./harness.ts";

/** How the receiver answers the 1st, 2nd, … delivery of one message; "ok" after the list ends. */
const SCRIPTS: Record<string, ReceiverMode[]> = {
  "fails twice": ["fail", "fail"],
  "hangs past the timeout": ["hang"],
  "resets the connection": ["reset", "reset"],
  "answers slowly (within the timeout)": ["slow"],
  flapping: ["fail", "ok"],
  "fails, hangs, resets": ["fail", "hang", "reset"],
};

const EXPECTED_CLASS: Partial<Record<ReceiverMode, string>> = {
  fail: "http_error",
  hang: "timeout",
  reset: "connection_error",
};

describe("faulty receivers", () => {
  let database: TestDatabase;
  let receiver: Receiver;
  let server: ServerProcess;
  beforeAll(async () => {
    database = await freshDatabase();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    if (server) await kill(server, "SIGTERM");
    await receiver.close();
    await database.drop();
  });

  it("every message ends sent, each attempt recorded with its error, none sent again after a 2xx", async () => {
    const env = envFor(database, {
      DELIVERY_RETRY_SCHEDULE: "0.2,0.2,0.2,0.2,0.2,0.2",
      DELIVERY_TIMEOUT_MS: "800",
    });
    const acc = await cli<{ accountId: string; apiKey: string }>(
      ["account", "create", "--email", "faulty@example.com", "--password", "long password"],
      env,
    );
    await cli(["account", "set", "--email", "faulty@example.com", "--webhook-url", receiver.url], env);
    server = await start(["serve"], env);

    // Each message's script is found from its body, which carries the script's name.
    const seen = new Map<string, number>();
    receiver.answer = (_n, req) => {
      const id = String(req.headers["webhook-id"]);
      const k = (seen.get(id) ?? 0) + 1;
      seen.set(id, k);
      return scriptOf.get(id)?.[k - 1] ?? "ok";
    };
    const scriptOf = new Map<string, ReceiverMode[]>();
    const { Agent, fetch } = await import("undici");
    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    for (const [name, script] of Object.entries(SCRIPTS)) {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(
          `https://127.0.0.1:${server.port}/v1/send_custom_channel_message?apiKey=${acc.apiKey}`,
          {
            method: "POST",
            dispatcher: insecure,
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              customData: { fromId: `${name}-${i}`, customChannel: "web", body: name },
            }),
          },
        );
        expect(res.status).toBe(200);
        scriptOf.set(((await res.json()) as { messageId: string }).messageId, script);
      }
    }
    await insecure.close();

    const db = openShared(database);
    try {
      await waitFor(
        async () =>
          (
            await db.kysely
              .selectFrom("messages")
              .select("id")
              .where("account_id", "=", acc.accountId)
              .where("status", "!=", "sent")
              .execute()
          ).length === 0,
        60_000,
        "every message to be sent",
      );
      for (const [messageId, script] of scriptOf) {
        const arrivals = receiver.hits.filter((h) => h.webhookId === messageId).map((h) => h.mode);
        // The script up to its first success (or then one), and nothing more after that 2xx.
        const expected: ReceiverMode[] = [];
        for (const m of [...script, "ok" as const]) {
          expected.push(m);
          if (m === "ok" || m === "slow") break;
        }
        expect(arrivals).toEqual(expected);
        const attempts = await db.kysely
          .selectFrom("delivery_attempts")
          .selectAll()
          .where("message_id", "=", messageId)
          .orderBy("id")
          .execute();
        expect(attempts.map((a) => a.attempt_number)).toEqual(arrivals.map((_, i) => i + 1));
        expect(attempts.map((a) => a.error_class)).toEqual(arrivals.map((m) => EXPECTED_CLASS[m] ?? null));
        for (const a of attempts.slice(0, -1)) expect(a.next_attempt_at).toBeGreaterThan(a.attempted_at);
        expect(attempts.at(-1)!.status_code).toBe(200);
      }
    } finally {
      await db.close();
    }
  });
});

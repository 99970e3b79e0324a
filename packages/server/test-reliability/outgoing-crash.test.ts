// An outgoing campaign through SIGKILLs: a real `parley serve` sends a list's first messages while it
// is killed and restarted; afterwards every member with a fromId has exactly one first message (the
// receiver may see a message more than once, always under its own webhook-id: delivery is at least
// once), none was sent twice, and the campaign finished.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../test/helpers.ts";
import {
  callApi,
  cli,
  envFor,
  freePort,
  kill,
  openShared,
  type Receiver,
  type ServerProcess,
  start,
  startReceiver,
} from "./harness.ts";

const MEMBERS = 150;
const KILLS = 3;
const FIRST = "Hello from the spring campaign";

describe("an outgoing campaign through crashes", () => {
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

  it(`survives ${KILLS} SIGKILLs mid-campaign: one first message per member, none twice`, async () => {
    const port = await freePort();
    const env = envFor(database, {
      PORT: String(port),
      JOB_LEASE_SECONDS: "2",
      DELIVERY_RETRY_SCHEDULE: "0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2",
    });
    const acc = await cli<{ accountId: string; apiKey: string }>(
      ["account", "create", "--email", "spring@example.com", "--password", "long password"],
      env,
    );
    // The bot stays quiet: only the campaign's first messages reach the receiver.
    await cli(
      ["account", "set", "--email", "spring@example.com", "--webhook-url", receiver.url, "--bot", "off"],
      env,
    );
    let server: ServerProcess = await start(["serve"], env);
    const key = acc.apiKey;
    const list = (await callApi<{ id: string }>(port, key, "POST", "/v1/lists", { name: "spring" })).json;
    for (let i = 0; i < MEMBERS; i++) {
      const res = await callApi<{ messageId: string }>(
        port,
        key,
        "POST",
        "/v1/incoming_custom_channel_message",
        {
          customData: { messageSid: `m-${i}`, fromId: `member-${i}`, toId: "shop", body: "hi" },
        },
      );
      const m = (await callApi<{ contactId: string }>(port, key, "GET", `/v1/messages/${res.json.messageId}`))
        .json;
      await callApi(port, key, "POST", `/v1/lists/${list.id}/contacts`, { contactId: m.contactId });
    }
    const campaign = (
      await callApi<{ id: string }>(port, key, "POST", "/v1/campaigns", {
        name: "Spring",
        outgoing: { message: FIRST, listId: list.id, channel: "sms", ratePerMinute: 600 },
      })
    ).json;
    expect((await callApi(port, key, "POST", `/v1/campaigns/${campaign.id}/start`)).status).toBe(200);
    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 400));
      await kill(server);
      server = await start(["serve"], env);
    }
    // Ticks are 10 s apart; a killed tick's lease runs out after 2 s.
    const until = Date.now() + 90_000;
    let state = "";
    while (Date.now() < until) {
      const stats = await callApi<{ state: string; sent: number }>(
        port,
        key,
        "GET",
        `/v1/campaigns/${campaign.id}/stats`,
      );
      state = stats.json.state;
      if (state === "done" && stats.json.sent === MEMBERS) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    await kill(server, "SIGTERM");
    expect(state).toBe("done");

    const db = openShared(database);
    try {
      const firsts = await db.kysely
        .selectFrom("messages")
        .select(["id", "to_id"])
        .where("account_id", "=", acc.accountId)
        .where("body", "=", FIRST)
        .execute();
      expect(firsts).toHaveLength(MEMBERS);
      expect(new Set(firsts.map((m) => m.to_id)).size).toBe(MEMBERS);
    } finally {
      await db.close();
    }
    // What the receiver saw: every first message, each under one webhook-id per message.
    const received = receiver.hits
      .map((h) => ({ id: h.webhookId, body: JSON.parse(h.body) as { body: string; toId: string } }))
      .filter((h) => h.body.body === FIRST);
    const byMember = new Map<string, Set<string>>();
    for (const h of received) byMember.set(h.body.toId, (byMember.get(h.body.toId) ?? new Set()).add(h.id));
    expect(byMember.size).toBe(MEMBERS);
    expect([...byMember.values()].every((ids) => ids.size === 1)).toBe(true);
  }, 240_000);
});

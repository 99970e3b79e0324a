// An outgoing campaign to a 1,000-member list, against a local receiver, on a real `parley serve`:
// every member with a custom channel identity receives exactly one first message with its
// placeholders filled, the others are skipped, and the send rate is kept within 10 %.
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

const WITH_ID = 1000;
const WITHOUT_ID = 20;
// Above 20 a second members share a transaction (outgoing/service.ts SLOT_MS): this rate takes that path.
const RATE = 3000;

describe("an outgoing campaign to 1,000 members", () => {
  let database: TestDatabase;
  let receiver: Receiver;
  let server: ServerProcess | null = null;
  beforeAll(async () => {
    database = await freshDatabase();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    if (server) await kill(server, "SIGTERM");
    await receiver.close();
    await database.drop();
  });

  it(`each of ${WITH_ID} members gets one first message, placeholders filled, at ${RATE} a minute within 10 %`, async () => {
    const port = await freePort();
    const env = envFor(database, { PORT: String(port) });
    const acc = await cli<{ accountId: string; apiKey: string }>(
      ["account", "create", "--email", "scale@example.com", "--password", "long password"],
      env,
    );
    await cli(
      ["account", "set", "--email", "scale@example.com", "--webhook-url", receiver.url, "--bot", "off"],
      env,
    );
    server = await start(["serve"], env);
    const key = acc.apiKey;
    const list = (await callApi<{ id: string }>(port, key, "POST", "/v1/lists", { name: "everyone" })).json;
    // The members come from an import: every 10th without a first name ({{firstName|there}}), and
    // WITHOUT_ID of them without a custom channel id (skipped).
    const rows = ["First name,Phone,Channel id"];
    for (let i = 0; i < WITH_ID; i++)
      rows.push(`${i % 10 === 0 ? "" : `Member${i}`},+1212${2000000 + i},m-${i}`);
    for (let i = 0; i < WITHOUT_ID; i++) rows.push(`NoId${i},+1213${2000000 + i},`);
    const upload = await callApi<{ importId: string }>(
      port,
      key,
      "POST",
      `/v1/contacts/imports?listId=${list.id}`,
      {
        type: "text/csv",
        data: `${rows.join("\n")}\n`,
      },
    );
    expect(upload.status).toBe(202);
    for (let i = 0; i < 200; i++) {
      const imp = await callApi<{ status: string }>(
        port,
        key,
        "GET",
        `/v1/contacts/imports/${upload.json.importId}`,
      );
      if (imp.json.status === "done") break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const campaign = (
      await callApi<{ id: string }>(port, key, "POST", "/v1/campaigns", {
        name: "Everyone",
        outgoing: {
          message: "Hello {{firstName|there}}, we have news.",
          listId: list.id,
          channel: "sms",
          ratePerMinute: RATE,
        },
      })
    ).json;
    expect((await callApi(port, key, "POST", `/v1/campaigns/${campaign.id}/start`)).status).toBe(200);
    const until = Date.now() + 240_000;
    let stats = { state: "", sent: 0, skipped: 0, failed: 0, pending: 0 };
    while (Date.now() < until) {
      stats = (await callApi<typeof stats>(port, key, "GET", `/v1/campaigns/${campaign.id}/stats`)).json;
      if (stats.state === "done" && stats.sent === WITH_ID) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(stats).toMatchObject({ state: "done", sent: WITH_ID, skipped: WITHOUT_ID, failed: 0, pending: 0 });

    // The receiver: one first message per member (one webhook-id each), placeholders filled.
    const firsts = receiver.hits
      .map((h) => ({ id: h.webhookId, body: JSON.parse(h.body) as { body: string; toId: string } }))
      .filter((h) => h.body.body.startsWith("Hello "));
    const byMember = new Map<string, { ids: Set<string>; body: string }>();
    for (const h of firsts) {
      const seen = byMember.get(h.body.toId) ?? { ids: new Set<string>(), body: h.body.body };
      seen.ids.add(h.id);
      byMember.set(h.body.toId, seen);
    }
    expect(byMember.size).toBe(WITH_ID);
    expect([...byMember.values()].every((m) => m.ids.size === 1)).toBe(true);
    expect(byMember.get("m-0")?.body).toBe("Hello there, we have news.");
    expect(byMember.get("m-7")?.body).toBe("Hello Member7, we have news.");

    // The rate: the first messages were created evenly, 60,000 / RATE ms apart.
    const db = openShared(database);
    try {
      const times = (
        await db.kysely
          .selectFrom("messages")
          .select("created_at")
          .where("account_id", "=", acc.accountId)
          .where("campaign_id", "=", campaign.id)
          .orderBy("created_at")
          .execute()
      ).map((r) => Number(r.created_at));
      expect(times).toHaveLength(WITH_ID);
      const span = (times.at(-1) ?? 0) - (times[0] ?? 0);
      const expected = ((WITH_ID - 1) * 60_000) / RATE;
      console.log(`${WITH_ID} first messages in ${span} ms (expected ${expected} ms at ${RATE}/min)`);
      expect(span).toBeGreaterThan(expected * 0.9);
      expect(span).toBeLessThan(expected * 1.1);
    } finally {
      await db.close();
    }
  }, 300_000);
});

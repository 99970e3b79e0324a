// A WhatsApp channel through SIGKILLs: a real `parley serve` takes Meta's signed webhooks (retried by
// the sender until answered 200, as Meta does) while it is killed and restarted; afterwards every
// acknowledged message is stored once and has exactly one bot reply, and no reply reached Meta twice.
// The Cloud API takes no idempotency key, so a reply whose hand-over a kill cut short (sent or not: it
// cannot be known) is not sent again but marked Failed `outcome_unknown` for a person to resend; every
// other reply is Sent with the id Meta gave it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../test/helpers.ts";
import {
  type MetaStandIn,
  metaSignature,
  startMetaStandIn,
  whatsappMessages,
} from "../test/stand-ins/meta.ts";
import {
  callApi,
  cli,
  envFor,
  expectJobsFinished,
  freePort,
  kill,
  openShared,
  postRaw,
  type ServerProcess,
  start,
  teachOpeningHours,
} from "./harness.ts";

const MESSAGES = 120;
const SENDERS = 30;
const KILLS = 3;
const APP_SECRET = "crash-test-app-secret";
const TOKEN = "EAAGcrashTestAccessToken";
const PHONE_NUMBER_ID = "106540352242922";

/** One signed webhook POST, as Meta sends it; 0 when the connection failed (a killed server). */
const post = (port: number, channelId: string, body: string) =>
  postRaw(port, `/v1/channels/${channelId}/inbound`, body, {
    "x-hub-signature-256": metaSignature(APP_SECRET, body),
  });

describe("a WhatsApp channel through crashes", () => {
  let database: TestDatabase;
  let meta: MetaStandIn;
  beforeAll(async () => {
    database = await freshDatabase();
    meta = await startMetaStandIn();
    meta.tokens.add(TOKEN);
  });
  afterAll(async () => {
    await meta.close();
    await database.drop();
  });

  it(`loses nothing through ${KILLS} SIGKILLs: every acknowledged message answered once`, async () => {
    const port = await freePort();
    const env = envFor(database, {
      PORT: String(port),
      JOB_LEASE_SECONDS: "2",
      DELIVERY_RETRY_SCHEDULE: "0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2",
      META_GRAPH_URL: meta.url,
    });
    const acc = await cli<{ accountId: string; apiKey: string }>(
      ["account", "create", "--email", "wa-crash@example.com", "--password", "long password"],
      env,
    );
    let server: ServerProcess = await start(["serve"], env);
    await teachOpeningHours(port, acc.apiKey);
    const created = await callApi<{ id: string }>(port, acc.apiKey, "POST", "/v1/channels", {
      type: "whatsapp",
      name: "WhatsApp",
      config: { phoneNumberId: PHONE_NUMBER_ID, accessToken: TOKEN, appSecret: APP_SECRET, verifyToken: "v" },
    });
    expect(created.status).toBe(201);
    const channelId = created.json.id;

    // Meta's side: each webhook is sent until it is answered 200 (Meta retries for days).
    const payloads = Array.from({ length: MESSAGES }, (_, i) =>
      whatsappMessages(
        PHONE_NUMBER_ID,
        { waId: `1415555${String(3000 + (i % SENDERS))}`, name: `Sender ${i % SENDERS}` },
        [{ type: "text", text: { body: "What are your opening hours?" } }],
      ),
    );
    const acknowledged = new Set<string>();
    let next = 0;
    const sender = async () => {
      while (next < payloads.length) {
        const payload = payloads[next++]!;
        const body = JSON.stringify(payload);
        const id = payload.entry[0]!.changes[0]!.value.messages[0]!.id;
        for (;;) {
          if ((await post(port, channelId, body)) === 200) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        acknowledged.add(id);
      }
    };
    const senders = Promise.all(Array.from({ length: 4 }, sender));
    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 500));
      await kill(server);
      server = await start(["serve"], env);
    }
    await senders;
    expect(acknowledged.size).toBe(MESSAGES);

    const db = openShared(database);
    try {
      await expectJobsFinished(db);
      const messages = await db.kysely
        .selectFrom("messages")
        .select(["id", "direction", "sender", "external_id", "status", "provider_message_id", "error"])
        .where("account_id", "=", acc.accountId)
        .execute();
      const inbound = messages.filter((m) => m.direction === "inbound");
      // Every acknowledged webhook's message, stored once (the repeats Meta sent after a kill too).
      expect(inbound.map((m) => m.external_id).sort()).toEqual(
        [...acknowledged].map((id) => `wa:${id}`).sort(),
      );
      const replies = messages.filter((m) => m.sender === "bot");
      const answered = replies.map((r) => r.external_id?.replace(/^bot:/, ""));
      expect(new Set(answered)).toEqual(new Set(inbound.map((m) => m.id)));
      expect(answered.length).toBe(inbound.length);
      // Every reply is Sent with the id Meta gave it, or (cut short by a kill) Failed outcome_unknown.
      const issued = new Set(meta.issued);
      const unknown = replies.filter((r) => r.status === "failed");
      expect(replies.filter((r) => r.status === "sent" && !issued.has(r.provider_message_id ?? ""))).toEqual(
        [],
      );
      expect(replies.filter((r) => r.status !== "sent" && r.status !== "failed")).toEqual([]);
      for (const r of unknown)
        expect(JSON.parse(r.error ?? "{}")).toMatchObject({ errorClass: "outcome_unknown" });
      // None twice: Meta saw at most one send per reply.
      const sends = meta.sends().filter((s) => s.authorization === `Bearer ${TOKEN}`).length;
      console.log(
        `channel crash: ${inbound.length} messages, ${replies.length} replies, ${sends} sends, ${unknown.length} cut short by a kill`,
      );
      expect(sends).toBeLessThanOrEqual(replies.length);
      expect(sends).toBeGreaterThanOrEqual(replies.length - unknown.length);
      expect(unknown.length).toBeLessThanOrEqual(replies.length / 4);
    } finally {
      await db.close();
      await kill(server);
    }
  });
});

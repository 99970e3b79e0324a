// The send endpoint, resend, and a person's reply (API extension): real server, real database, a real
// local receiver on 127.0.0.1 for the deliveries they queue.
import http from "node:http";
import type net from "node:net";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { validateWebhookUrl } from "../src/modules/accounts/webhook-url.ts";
import { DELIVERY_JOB } from "../src/modules/delivery/outbound.ts";
import { attemptsByMessage, findMessageById } from "../src/modules/messaging/repo.ts";
import { messageView } from "../src/modules/messaging/view.ts";
import { errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

interface Received {
  headers: Record<string, string>;
  body: string;
}

let t: TestApp;
let server: http.Server;
let receiverUrl: string;
const received: Received[] = [];
const sockets = new Set<net.Socket>();
/** The status the receiver answers with; tests switch it. */
let answer = 200;

beforeAll(async () => {
  t = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "0.05" });
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString(),
      });
      const status = answer;
      res.writeHead(status, status === 503 ? { "retry-after": "3600" } : {});
      res.end(status === 200 ? "ok" : "nope");
    });
  });
  server.on("connection", (s: net.Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await t?.close();
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function settle(done: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    await t.parley.worker.drain();
    if (await done()) return;
    if (Date.now() > until) throw new Error("condition not reached in time");
    await sleep(20);
  }
}

/** An account whose custom channel webhook URL is the local receiver. */
async function accountWithWebhook() {
  const acc = await t.account();
  await updateSettings(t.parley.db, acc.accountId, {
    webhook_url: await validateWebhookUrl(receiverUrl, t.config.outboundAllowCidrs),
  });
  return acc;
}

function post(url: string, apiKey: string, payload: unknown) {
  return t.inject({ method: "POST", url: `${url}?apiKey=${apiKey}`, payload: payload as object });
}

async function message(accountId: string, messageId: string) {
  const row = await findMessageById(t.parley.db.kysely, accountId, messageId);
  if (!row) throw new Error(`no message ${messageId}`);
  const attempts = await attemptsByMessage(t.parley.db.kysely, accountId, [messageId]);
  return messageView(row, attempts.get(messageId) ?? []);
}

async function count(table: "messages" | "contacts" | "conversations", accountId: string): Promise<number> {
  const rows = await t.parley.db.kysely
    .selectFrom(table)
    .select("id")
    .where("account_id", "=", accountId)
    .execute();
  return rows.length;
}

async function deliveryJobs(messageId: string) {
  return t.parley.db.kysely
    .selectFrom("jobs")
    .selectAll()
    .where("type", "=", DELIVERY_JOB)
    .where("subject_id", "=", messageId)
    .execute();
}

const SEND = "/v1/send_custom_channel_message";

describe("POST /v1/send_custom_channel_message", () => {
  it("stores the message, creates the contact and answers the documented shape", async () => {
    const acc = await accountWithWebhook();
    const res = await post(SEND, acc.apiKey, {
      customData: {
        fromId: "ext-1",
        customChannel: "crm",
        body: "Your order shipped",
        campaignId: "orders",
        firstName: "Ada",
        lastName: "Lovelace",
        email: "Ada@Example.COM",
      },
    });
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body).toEqual({
      success: true,
      messageId: expect.stringMatching(/^msg_/),
      contactId: expect.stringMatching(/^ct_/),
      message: "Message queued for delivery",
    });
    const m = await message(acc.accountId, body.messageId as string);
    expect(m).toMatchObject({
      direction: "outbound",
      sender: "api",
      status: "pending",
      body: "Your order shipped",
      channel: "crm",
      toId: "ext-1",
      campaignId: "orders",
      contactId: body.contactId,
      error: null,
      deliveryAttempts: [],
    });
    expect(await deliveryJobs(body.messageId as string)).toHaveLength(1);
    const contact = await t.parley.db.kysely
      .selectFrom("contacts")
      .selectAll()
      .where("id", "=", body.contactId as string)
      .executeTakeFirstOrThrow();
    expect(contact).toMatchObject({
      external_id: "ext-1",
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com",
    });

    await settle(async () => (await message(acc.accountId, body.messageId as string)).status === "sent");
    const delivered = received.find((r) => r.headers["webhook-id"] === body.messageId);
    expect(JSON.parse(delivered?.body ?? "{}")).toMatchObject({
      toId: "ext-1",
      channel: "crm",
      sender: "api",
    });
  });

  it("keeps one contact and conversation per fromId and updates the names and e-mail given", async () => {
    const acc = await accountWithWebhook();
    const first = json(
      await post(SEND, acc.apiKey, {
        customData: { fromId: "+14155550100", customChannel: "sms-gw", body: "1" },
      }),
    );
    const second = json(
      await post(SEND, acc.apiKey, {
        customData: {
          fromId: "+14155550100",
          customChannel: "sms-gw",
          body: "2",
          firstName: "Grace",
          email: "g@x.io",
        },
      }),
    );
    expect(second.contactId).toBe(first.contactId);
    expect(await count("contacts", acc.accountId)).toBe(1);
    expect(await count("conversations", acc.accountId)).toBe(1);
    const m1 = await message(acc.accountId, first.messageId as string);
    const m2 = await message(acc.accountId, second.messageId as string);
    expect(m2.conversationId).toBe(m1.conversationId);
    const contact = await t.parley.db.kysely
      .selectFrom("contacts")
      .selectAll()
      .where("id", "=", first.contactId as string)
      .executeTakeFirstOrThrow();
    // A phone-number fromId also fills the phone; later sends update only the fields they carry.
    expect(contact).toMatchObject({
      phone: "+14155550100",
      first_name: "Grace",
      last_name: null,
      email: "g@x.io",
    });

    const other = json(
      await post(SEND, acc.apiKey, {
        customData: { fromId: "someone-else", customChannel: "sms-gw", body: "3" },
      }),
    );
    expect(other.contactId).not.toBe(first.contactId);
    expect(await count("contacts", acc.accountId)).toBe(2);
  });

  it("answers on the hyphenated alias too", async () => {
    const acc = await accountWithWebhook();
    const res = await post("/v1/send-custom-channel-message", acc.apiKey, {
      customData: { fromId: "alias", customChannel: "web", body: "hi" },
    });
    expect(res.statusCode).toBe(200);
    expect(json(res).message).toBe("Message queued for delivery");
  });

  it.each([
    [{}, "customData is required"],
    [{ customData: "nope" }, "customData must be object"],
    [{ customData: { customChannel: "web", body: "hi" } }, "customData.fromId is required"],
    [{ customData: { fromId: "a", body: "hi" } }, "customData.customChannel is required"],
    [{ customData: { fromId: "a", customChannel: "web" } }, "customData.body is required"],
    [{ customData: { fromId: "a", customChannel: "web", body: "" } }, "customData.body must not be empty"],
    [
      { customData: { fromId: "a", customChannel: "web", body: "  \n\t " } },
      "customData.body must not be empty",
    ],
    [{ customData: { fromId: "a", customChannel: "web", body: 42 } }, "customData.body must be string"],
    [
      { customData: { fromId: "   ", customChannel: "web", body: "hi" } },
      "customData.fromId must not be empty",
    ],
    [
      { customData: { fromId: "a", customChannel: " ", body: "hi" } },
      "customData.customChannel must not be empty",
    ],
    [
      { customData: { fromId: "a", customChannel: "web", body: "x".repeat(10_001) } },
      "customData.body must be at most",
    ],
    [
      { customData: { fromId: "a".repeat(256), customChannel: "web", body: "hi" } },
      "customData.fromId must be at most",
    ],
  ])("refuses %j with 400 VALIDATION_ERROR (%s) and stores nothing", async (payload, text) => {
    const acc = await accountWithWebhook();
    const res = await post(SEND, acc.apiKey, payload);
    expect(res.statusCode).toBe(400);
    const error = json<{ error: { code: string; message: string } }>(res).error;
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(error.message).toContain(text);
    expect(await count("messages", acc.accountId)).toBe(0);
    expect(await count("contacts", acc.accountId)).toBe(0);
  });

  it("refuses an invalid e-mail with 400 INVALID_EMAIL and stores nothing", async () => {
    const acc = await accountWithWebhook();
    const res = await post(SEND, acc.apiKey, {
      customData: { fromId: "a", customChannel: "web", body: "hi", email: "not-an-email" },
    });
    expect(res.statusCode).toBe(400);
    expect(errorCode(res)).toBe("INVALID_EMAIL");
    expect(await count("contacts", acc.accountId)).toBe(0);
  });

  it("answers 400 WEBHOOK_NOT_CONFIGURED without a webhook URL, storing nothing", async () => {
    const acc = await t.account();
    const res = await post(SEND, acc.apiKey, {
      customData: { fromId: "a", customChannel: "web", body: "hi" },
    });
    expect(res.statusCode).toBe(400);
    const error = json<{ error: { code: string; message: string } }>(res).error;
    expect(error.code).toBe("WEBHOOK_NOT_CONFIGURED");
    expect(error.message).toMatch(/webhook URL/);
    expect(await count("messages", acc.accountId)).toBe(0);
    expect(await count("contacts", acc.accountId)).toBe(0);
    expect(await count("conversations", acc.accountId)).toBe(0);
  });

  it("needs an API key", async () => {
    const res = await t.inject({
      method: "POST",
      url: SEND,
      payload: { customData: { fromId: "a", customChannel: "web", body: "hi" } },
    });
    expect(res.statusCode).toBe(401);
  });

  it("is documented in the OpenAPI document", async () => {
    const doc = json<{ paths: Record<string, unknown> }>(
      await t.inject({ method: "GET", url: "/v1/openapi.json" }),
    );
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        SEND,
        "/v1/send-custom-channel-message",
        "/v1/messages/{messageId}/resend",
        "/v1/conversations/{conversationId}/messages",
      ]),
    );
  });
});

describe("POST /v1/messages/{messageId}/resend", () => {
  it("queues a new attempt for a failed message, which then turns sent", async () => {
    const acc = await accountWithWebhook();
    answer = 500;
    try {
      const { messageId } = json<{ messageId: string }>(
        await post(SEND, acc.apiKey, {
          customData: { fromId: "r1", customChannel: "web", body: "retry me" },
        }),
      );
      await settle(async () => (await deliveryJobs(messageId)).length === 0);
      const failed = await message(acc.accountId, messageId);
      expect(failed.status).toBe("failed");
      expect(failed.deliveryAttempts).toHaveLength(2); // first attempt + one retry ("0.05")

      answer = 200;
      const res = await post(`/v1/messages/${messageId}/resend`, acc.apiKey, undefined);
      expect(res.statusCode).toBe(200);
      expect(json(res)).toEqual({ success: true, messageId, status: "pending" });
      const pending = await message(acc.accountId, messageId);
      expect(pending.status).toBe("pending");
      expect(pending.error).toBeNull();

      await settle(async () => (await message(acc.accountId, messageId)).status === "sent");
      const sent = await message(acc.accountId, messageId);
      expect(sent.deliveryAttempts.map((a) => a.statusCode)).toEqual([500, 500, 200]);
      // Each attempt says which it was, what started it, where it went and when the next was due.
      expect(sent.deliveryAttempts.map((a) => a.attemptNumber)).toEqual([1, 2, 3]);
      expect(sent.deliveryAttempts.map((a) => a.trigger)).toEqual(["scheduled", "scheduled", "manual"]);
      for (const a of sent.deliveryAttempts) expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      const [first, second, third] = sent.deliveryAttempts;
      // The schedule ("0.05") has one retry: after the first failure the next time is set, then none.
      expect(Date.parse(first!.nextAttemptAt ?? "")).toBeGreaterThanOrEqual(Date.parse(first!.attemptedAt));
      expect(second!.nextAttemptAt).toBeNull();
      expect(third!.nextAttemptAt).toBeNull();
      const hits = received.filter((r) => r.headers["webhook-id"] === messageId);
      expect(hits).toHaveLength(3);
      for (const h of hits)
        expect(() => new Webhook(acc.webhookSecret).verify(h.body, h.headers)).not.toThrow();

      // Sent now: a second resend is refused.
      const again = await post(`/v1/messages/${messageId}/resend`, acc.apiKey, undefined);
      expect(again.statusCode).toBe(409);
      expect(errorCode(again)).toBe("MESSAGE_NOT_FAILED");
    } finally {
      answer = 200;
    }
  });

  it("replaces a retry still waiting (Retry-After: 1 h) instead of adding a second one", async () => {
    const acc = await accountWithWebhook();
    answer = 503;
    try {
      const { messageId } = json<{ messageId: string }>(
        await post(SEND, acc.apiKey, { customData: { fromId: "r2", customChannel: "web", body: "later" } }),
      );
      await t.parley.worker.drain();
      const [waiting] = await deliveryJobs(messageId);
      expect(waiting?.run_at).toBeGreaterThan(Date.now() + 3_000_000);

      answer = 200;
      expect((await post(`/v1/messages/${messageId}/resend`, acc.apiKey, undefined)).statusCode).toBe(200);
      const jobs = await deliveryJobs(messageId);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]?.run_at).toBeLessThanOrEqual(Date.now());
      await t.parley.worker.drain();
      expect((await message(acc.accountId, messageId)).status).toBe("sent");
      expect(await deliveryJobs(messageId)).toHaveLength(0);
    } finally {
      answer = 200;
    }
  });

  it("refuses a pending message with 409 and an unknown or foreign one with 404", async () => {
    const acc = await accountWithWebhook();
    const other = await accountWithWebhook();
    const { messageId } = json<{ messageId: string }>(
      await post(SEND, acc.apiKey, { customData: { fromId: "r3", customChannel: "web", body: "x" } }),
    );
    const pending = await post(`/v1/messages/${messageId}/resend`, acc.apiKey, undefined);
    expect(pending.statusCode).toBe(409);
    expect(json<{ error: { code: string; message: string } }>(pending).error.message).toMatch(/pending/);

    const unknown = await post("/v1/messages/msg_nothing/resend", acc.apiKey, undefined);
    expect(unknown.statusCode).toBe(404);
    expect(errorCode(unknown)).toBe("MESSAGE_NOT_FOUND");

    const foreign = await post(`/v1/messages/${messageId}/resend`, other.apiKey, undefined);
    expect(foreign.statusCode).toBe(404);
    expect(errorCode(foreign)).toBe("MESSAGE_NOT_FOUND");
    await t.parley.worker.drain();
  });
});

describe("POST /v1/conversations/{conversationId}/messages (a person's reply)", () => {
  it("pauses the bot and delivers the reply with sender human through the same path", async () => {
    const acc = await accountWithWebhook();
    const first = json<{ messageId: string; contactId: string }>(
      await post(SEND, acc.apiKey, {
        customData: { fromId: "visitor-9", customChannel: "livechat", body: "hi" },
      }),
    );
    const { conversationId } = await message(acc.accountId, first.messageId);

    const res = await post(`/v1/conversations/${conversationId}/messages`, acc.apiKey, {
      body: "A person here",
    });
    expect(res.statusCode).toBe(201);
    const reply = json<{ id: string; sender: string; status: string; direction: string; toId: string }>(res);
    expect(reply).toMatchObject({
      sender: "human",
      status: "pending",
      direction: "outbound",
      toId: "visitor-9",
    });
    const conversation = await t.parley.db.kysely
      .selectFrom("conversations")
      .selectAll()
      .where("id", "=", conversationId)
      .executeTakeFirstOrThrow();
    expect(conversation.bot_paused).toBe(1);

    await settle(async () => (await message(acc.accountId, reply.id)).status === "sent");
    const delivered = received.find((r) => r.headers["webhook-id"] === reply.id);
    expect(
      new Webhook(acc.webhookSecret).verify(delivered?.body ?? "", delivered?.headers ?? {}),
    ).toMatchObject({
      messageId: reply.id,
      contactId: first.contactId,
      userId: acc.userId,
      body: "A person here",
      toId: "visitor-9",
      channel: "livechat",
      sender: "human",
    });
  });

  it("answers 404 for an unknown or foreign conversation and 400 for a blank body", async () => {
    const acc = await accountWithWebhook();
    const other = await accountWithWebhook();
    const first = json<{ messageId: string }>(
      await post(SEND, acc.apiKey, { customData: { fromId: "v", customChannel: "web", body: "hi" } }),
    );
    const { conversationId } = await message(acc.accountId, first.messageId);
    const foreign = await post(`/v1/conversations/${conversationId}/messages`, other.apiKey, { body: "x" });
    expect(foreign.statusCode).toBe(404);
    expect(errorCode(foreign)).toBe("CONVERSATION_NOT_FOUND");
    const unknown = await post("/v1/conversations/cv_nothing/messages", acc.apiKey, { body: "x" });
    expect(unknown.statusCode).toBe(404);
    const blank = await post(`/v1/conversations/${conversationId}/messages`, acc.apiKey, { body: "   " });
    expect(blank.statusCode).toBe(400);
    expect(json<{ error: { message: string } }>(blank).error.message).toMatch(/body must not be empty/);
    expect(await count("messages", other.accountId)).toBe(0);
    expect(await count("messages", acc.accountId)).toBe(1);
    await t.parley.worker.drain();
  });
});

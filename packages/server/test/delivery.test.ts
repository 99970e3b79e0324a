// Delivery of outbound messages and account events to customer URLs: real local HTTP receivers on
// 127.0.0.1, the real worker, both databases. Retries use a short schedule (DELIVERY_RETRY_SCHEDULE)
// and a short attempt timeout (DELIVERY_TIMEOUT_MS) so the whole file stays fast.
import http from "node:http";
import type net from "node:net";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { validateWebhookUrl } from "../src/modules/accounts/webhook-url.ts";
import { findOrCreateContactByExternalId } from "../src/modules/contacts/repo.ts";
import { findOrCreateConversation } from "../src/modules/conversations/repo.ts";
import { MAX_RETRY_AFTER_MS, nextRetryDelayMs, parseRetryAfter } from "../src/modules/delivery/attempt.ts";
import {
  createOutboundMessage,
  DELIVERY_JOB,
  EVENT_DELIVERY_JOB,
  enqueueAccountEvent,
} from "../src/modules/delivery/outbound.ts";
import { attemptsByMessage, findMessageById, insertMessage } from "../src/modules/messaging/repo.ts";
import { messageView } from "../src/modules/messaging/view.ts";
import { newId } from "../src/platform/ids.ts";
import { enqueueJobs } from "../src/platform/jobs.ts";
import { json, startTestApp, type TestApp } from "./helpers.ts";

// ---------------------------------------------------------------------------
// A real HTTP receiver
// ---------------------------------------------------------------------------

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}
type Reply = { status: number; headers?: Record<string, string>; body?: string } | "hang";

interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  connections(): number;
  respond(fn: (req: Received, n: number) => Reply): void;
  close(): Promise<void>;
}

const receivers: Receiver[] = [];

async function startReceiver(reply: (req: Received, n: number) => Reply = () => ({ status: 200 })) {
  const requests: Received[] = [];
  const sockets = new Set<net.Socket>();
  let connections = 0;
  let responder = reply;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: Received = {
        path: req.url ?? "",
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(r);
      const answer = responder(r, requests.length);
      if (answer === "hang") return; // never answers: the sender's timeout must end it
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? "");
    });
  });
  server.on("connection", (s: net.Socket) => {
    connections++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    requests,
    connections: () => connections,
    respond: (fn) => {
      responder = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  receivers.push(receiver);
  return receiver;
}

/** A port that was just free: nothing listens there, so connecting is refused. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// ---------------------------------------------------------------------------
// Helpers over the app
// ---------------------------------------------------------------------------

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp(
    { DELIVERY_RETRY_SCHEDULE: "0.05,0.05,0.05", DELIVERY_TIMEOUT_MS: "400" },
    { worker: { concurrency: 32, pollIntervalMs: 20, leaseMs: 5_000 } },
  );
});
afterAll(async () => {
  await t?.close();
  for (const r of receivers) await r.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs due jobs until `done()` holds (retries become due a few tens of ms later). */
async function settle(done: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    await t.parley.worker.drain();
    if (await done()) return;
    if (Date.now() > until) throw new Error("condition not reached in time");
    await sleep(20);
  }
}

async function setWebhook(accountId: string, url: string | null, validate = true): Promise<void> {
  const value = url && validate ? await validateWebhookUrl(url, t.config.outboundAllowCidrs) : url;
  await updateSettings(t.parley.db, accountId, { webhook_url: value });
}

async function send(apiKey: string, customData: Record<string, unknown>) {
  const res = await t.inject({
    method: "POST",
    url: `/v1/send_custom_channel_message?apiKey=${apiKey}`,
    payload: { customData },
  });
  expect(res.statusCode).toBe(200);
  return json<{ success: boolean; messageId: string; contactId: string; message: string }>(res);
}

async function message(accountId: string, messageId: string) {
  const row = await findMessageById(t.parley.db.kysely, accountId, messageId);
  if (!row) throw new Error(`no message ${messageId}`);
  const attempts = await attemptsByMessage(t.parley.db.kysely, accountId, [messageId]);
  return messageView(row, attempts.get(messageId) ?? []);
}

async function jobsFor(type: string, payload: Record<string, string>) {
  return t.parley.db.kysely
    .selectFrom("jobs")
    .selectAll()
    .where("type", "=", type)
    .where("payload", "=", JSON.stringify(payload))
    .execute();
}

async function noJobLeft(messageId: string): Promise<boolean> {
  return (await jobsFor(DELIVERY_JOB, { messageId })).length === 0;
}

afterEach(() => {
  for (const r of receivers) r.respond(() => ({ status: 200 }));
});

// ---------------------------------------------------------------------------

describe("reply delivery to the custom channel webhook URL", () => {
  it("POSTs the spec's payload, signed with Standard Webhooks, and a 200 makes the message sent", async () => {
    const acc = await t.account();
    const rx = await startReceiver();
    await setWebhook(acc.accountId, rx.url);
    const sent = await send(acc.apiKey, {
      fromId: "user-42",
      customChannel: "livechat",
      body: "Hello from the team",
      campaignId: "spring",
    });

    const before = await message(acc.accountId, sent.messageId);
    expect(before.status).toBe("pending");
    expect(before.deliveryAttempts).toEqual([]);

    await settle(async () => (await message(acc.accountId, sent.messageId)).status === "sent");
    expect(rx.requests).toHaveLength(1);
    const req = rx.requests[0]!;
    expect(req.path).toBe("/hook");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["user-agent"]).toMatch(/^Parley-Webhooks\/\d+\.\d+\.\d+$/);
    expect(req.headers["webhook-id"]).toBe(sent.messageId);
    expect(Math.abs(Number(req.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
    expect(req.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    const payload = JSON.parse(req.body) as Record<string, unknown>;
    // The spec's table: six string fields.
    for (const field of ["contactId", "messageId", "userId", "body", "toId", "channel"]) {
      expect(typeof payload[field], field).toBe("string");
    }
    expect(payload).toEqual({
      contactId: sent.contactId,
      messageId: sent.messageId,
      userId: acc.userId,
      body: "Hello from the team",
      toId: "user-42",
      channel: "livechat",
      type: "message.outbound",
      sender: "api",
      campaignId: "spring",
      createdAt: before.createdAt,
      media: null,
    });

    // The signature verifies with the standardwebhooks package, and only with this secret and body.
    expect(new Webhook(acc.webhookSecret).verify(req.body, req.headers)).toEqual(payload);
    expect(() =>
      new Webhook(acc.webhookSecret).verify(req.body.replace("Hello", "Hullo"), req.headers),
    ).toThrow();
    const other = await t.account();
    expect(() => new Webhook(other.webhookSecret).verify(req.body, req.headers)).toThrow();

    const after = await message(acc.accountId, sent.messageId);
    expect(after.status).toBe("sent");
    expect(after.error).toBeNull();
    expect(after.deliveryAttempts).toHaveLength(1);
    expect(after.deliveryAttempts[0]).toMatchObject({
      statusCode: 200,
      errorClass: null,
      errorMessage: null,
    });
    expect(after.deliveryAttempts[0]!.durationMs).toBeGreaterThanOrEqual(0);
    expect(await noJobLeft(sent.messageId)).toBe(true);
  });

  it("never sends a message that is already sent again (idempotent job)", async () => {
    const acc = await t.account();
    const rx = await startReceiver();
    await setWebhook(acc.accountId, rx.url);
    const sent = await send(acc.apiKey, { fromId: "idem", customChannel: "web", body: "once" });
    await settle(async () => (await message(acc.accountId, sent.messageId)).status === "sent");
    // A duplicate job (at-least-once delivery of jobs) finds the message sent and does nothing.
    await enqueueJobs(t.parley.db.kysely, [
      { type: DELIVERY_JOB, accountId: acc.accountId, payload: { messageId: sent.messageId } },
    ]);
    await t.parley.worker.drain();
    expect(rx.requests).toHaveLength(1);
    expect((await message(acc.accountId, sent.messageId)).deliveryAttempts).toHaveLength(1);
  });

  const bigBody = "x".repeat(10_000);
  const failures: Array<{
    name: string;
    setup: () => Promise<{ url: string; validate: boolean; redirectTarget?: Receiver }>;
    errorClass: string;
    statusCode: number | null;
    message: RegExp;
    responseBody?: (body: string | null) => void;
  }> = [
    {
      name: "a 500",
      setup: async () => {
        const rx = await startReceiver(() => ({ status: 500, body: `boom ${bigBody}` }));
        return { url: rx.url, validate: true };
      },
      errorClass: "http_error",
      statusCode: 500,
      message: /HTTP 500/,
      responseBody: (b) => {
        expect(b).toMatch(/^boom x+$/);
        expect(Buffer.byteLength(b ?? "")).toBe(4096);
      },
    },
    {
      name: "a 404",
      setup: async () => {
        const rx = await startReceiver(() => ({ status: 404, body: "no such hook" }));
        return { url: rx.url, validate: true };
      },
      errorClass: "http_error",
      statusCode: 404,
      message: /HTTP 404/,
      responseBody: (b) => expect(b).toBe("no such hook"),
    },
    {
      name: "a 3xx (never followed)",
      setup: async () => {
        const target = await startReceiver();
        const rx = await startReceiver(() => ({ status: 302, headers: { location: target.url } }));
        return { url: rx.url, validate: true, redirectTarget: target };
      },
      errorClass: "redirect",
      statusCode: 302,
      message: /HTTP 302 \(redirect to http:\/\/127\.0\.0\.1:\d+\/hook\); redirects are not followed/,
    },
    {
      name: "a receiver that never answers",
      setup: async () => {
        const rx = await startReceiver(() => "hang");
        return { url: rx.url, validate: true };
      },
      errorClass: "timeout",
      statusCode: null,
      message: /timed out after 400 ms/,
    },
    {
      name: "a closed port",
      setup: async () => ({ url: `http://127.0.0.1:${await closedPort()}/hook`, validate: true }),
      errorClass: "connection_refused",
      statusCode: null,
      message: /connection refused/,
    },
    {
      name: "a DNS name that does not resolve",
      setup: async () => ({ url: "https://parley-test-hook.invalid/hook", validate: true }),
      errorClass: "dns",
      statusCode: null,
      message: /DNS lookup failed for parley-test-hook\.invalid/,
    },
  ];

  it.each(failures)(
    "$name gives failed with class $errorClass, details, and retries until the schedule ends",
    async ({ setup, errorClass, statusCode, message: text, responseBody }) => {
      const acc = await t.account();
      const target = await setup();
      await setWebhook(acc.accountId, target.url, target.validate);
      const sent = await send(acc.apiKey, { fromId: "f-1", customChannel: "web", body: "hi" });

      await t.parley.worker.drain();
      const first = await message(acc.accountId, sent.messageId);
      expect(first.status).toBe("failed");
      expect(first.error).toMatchObject({ errorClass, statusCode });
      expect(first.error?.message).toMatch(text);
      expect(Date.parse(first.error?.at ?? "")).not.toBeNaN();
      expect(first.deliveryAttempts[0]).toMatchObject({ errorClass, statusCode });
      expect(first.deliveryAttempts[0]?.errorMessage).toMatch(text);
      responseBody?.(first.error?.responseBody ?? null);
      responseBody?.(first.deliveryAttempts[0]?.responseBody ?? null);

      // Three retries on the schedule, then the job ends and the message stays failed.
      await settle(() => noJobLeft(sent.messageId));
      const last = await message(acc.accountId, sent.messageId);
      expect(last.status).toBe("failed");
      expect(last.deliveryAttempts).toHaveLength(4);
      expect(last.deliveryAttempts.every((a) => a.errorClass === errorClass)).toBe(true);
      if (target.redirectTarget) expect(target.redirectTarget.requests).toHaveLength(0);
    },
  );

  it("a receiver that fails twice then succeeds ends sent, with three attempts and one webhook-id", async () => {
    const acc = await t.account();
    const rx = await startReceiver((_r, n) =>
      n === 1 ? { status: 500, body: "down" } : n === 2 ? { status: 503 } : { status: 204 },
    );
    await setWebhook(acc.accountId, rx.url);
    const sent = await send(acc.apiKey, { fromId: "flaky", customChannel: "web", body: "third time lucky" });
    await settle(async () => (await message(acc.accountId, sent.messageId)).status === "sent");

    expect(rx.requests).toHaveLength(3);
    expect(new Set(rx.requests.map((r) => r.headers["webhook-id"]))).toEqual(new Set([sent.messageId]));
    expect(new Set(rx.requests.map((r) => r.body)).size).toBe(1);
    for (const r of rx.requests)
      expect(() => new Webhook(acc.webhookSecret).verify(r.body, r.headers)).not.toThrow();
    const m = await message(acc.accountId, sent.messageId);
    expect(m.error).toBeNull();
    expect(m.deliveryAttempts.map((a) => a.statusCode)).toEqual([500, 503, 204]);
    expect(m.deliveryAttempts.map((a) => a.errorClass)).toEqual(["http_error", "http_error", null]);
    expect(await noJobLeft(sent.messageId)).toBe(true);
  });

  it("410 Gone stops the retries", async () => {
    const acc = await t.account();
    const rx = await startReceiver(() => ({ status: 410, body: "gone" }));
    await setWebhook(acc.accountId, rx.url);
    const sent = await send(acc.apiKey, { fromId: "gone", customChannel: "web", body: "hello?" });
    await t.parley.worker.drain();
    await sleep(200);
    await t.parley.worker.drain();
    const m = await message(acc.accountId, sent.messageId);
    expect(m.status).toBe("failed");
    expect(m.error).toMatchObject({ statusCode: 410, errorClass: "http_error", responseBody: "gone" });
    expect(m.deliveryAttempts).toHaveLength(1);
    expect(rx.requests).toHaveLength(1);
    expect(await noJobLeft(sent.messageId)).toBe(true);
  });

  it("honours Retry-After within bounds (never sooner than the schedule, at most an hour)", async () => {
    const acc = await t.account();
    let retryAfter = "2";
    const rx = await startReceiver(() => ({ status: 503, headers: { "retry-after": retryAfter } }));
    await setWebhook(acc.accountId, rx.url);

    const runAtAfterFirstAttempt = async () => {
      const sent = await send(acc.apiKey, { fromId: `ra-${retryAfter}`, customChannel: "web", body: "x" });
      const before = Date.now();
      await t.parley.worker.drain();
      const [job] = await jobsFor(DELIVERY_JOB, { messageId: sent.messageId });
      expect(job?.status).toBe("queued");
      return (job?.run_at ?? 0) - before;
    };

    const seconds = await runAtAfterFirstAttempt();
    expect(seconds).toBeGreaterThanOrEqual(1_900);
    expect(seconds).toBeLessThan(2_600);

    retryAfter = new Date(Date.now() + 5_000).toUTCString();
    const date = await runAtAfterFirstAttempt();
    expect(date).toBeGreaterThanOrEqual(3_000);
    expect(date).toBeLessThan(6_100);

    retryAfter = "999999";
    const capped = await runAtAfterFirstAttempt();
    expect(capped).toBeGreaterThan(MAX_RETRY_AFTER_MS - 60_000);
    expect(capped).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS + 1_000);
  });

  it("computes the schedule with ±20 % jitter and the Retry-After bounds", () => {
    const schedule = [5, 300, 1800];
    expect(nextRetryDelayMs(schedule, 1, null, () => 0)).toBe(4_000);
    expect(nextRetryDelayMs(schedule, 1, null, () => 1)).toBe(6_000);
    expect(nextRetryDelayMs(schedule, 2, null, () => 0.5)).toBe(300_000);
    expect(nextRetryDelayMs(schedule, 4, null)).toBeNull();
    // Retry-After shorter than the step: the step wins; longer: honoured up to an hour.
    expect(nextRetryDelayMs(schedule, 2, 1_000, () => 0.5)).toBe(300_000);
    expect(nextRetryDelayMs(schedule, 1, 120_000, () => 0.5)).toBe(120_000);
    expect(nextRetryDelayMs(schedule, 1, 86_400_000, () => 0.5)).toBe(MAX_RETRY_AFTER_MS);
    expect(nextRetryDelayMs([36_000], 1, 86_400_000, () => 0.5)).toBe(36_000_000);
    expect(parseRetryAfter("120", 0)).toBe(120_000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter("soon", 0)).toBeNull();
    expect(parseRetryAfter(undefined, 0)).toBeNull();
  });

  it("one account's deliveries never use another account's URL or secret", async () => {
    const a = await t.account();
    const b = await t.account();
    const rxA = await startReceiver();
    const rxB = await startReceiver();
    await setWebhook(a.accountId, rxA.url);
    await setWebhook(b.accountId, rxB.url);
    const idsA = new Set<string>();
    const idsB = new Set<string>();
    for (let i = 0; i < 5; i++) {
      idsA.add((await send(a.apiKey, { fromId: "same-id", customChannel: "web", body: `a${i}` })).messageId);
      idsB.add((await send(b.apiKey, { fromId: "same-id", customChannel: "web", body: `b${i}` })).messageId);
    }
    await settle(() => rxA.requests.length + rxB.requests.length >= 10);
    await t.parley.worker.drain();
    expect(new Set(rxA.requests.map((r) => r.headers["webhook-id"]))).toEqual(idsA);
    expect(new Set(rxB.requests.map((r) => r.headers["webhook-id"]))).toEqual(idsB);
    for (const r of rxA.requests) {
      expect(() => new Webhook(a.webhookSecret).verify(r.body, r.headers)).not.toThrow();
      expect(() => new Webhook(b.webhookSecret).verify(r.body, r.headers)).toThrow();
      expect(JSON.parse(r.body).userId).toBe(a.userId);
    }
    for (const r of rxB.requests) {
      expect(() => new Webhook(b.webhookSecret).verify(r.body, r.headers)).not.toThrow();
      expect(() => new Webhook(a.webhookSecret).verify(r.body, r.headers)).toThrow();
      expect(JSON.parse(r.body).userId).toBe(b.userId);
    }
  });

  it("never delivers an incoming message", async () => {
    const acc = await t.account();
    const rx = await startReceiver();
    await setWebhook(acc.accountId, rx.url);
    const db = t.parley.db.kysely;
    const { contact } = await findOrCreateContactByExternalId(db, acc.accountId, {
      externalId: "in-1",
      phone: null,
      firstName: null,
      lastName: null,
      email: null,
    });
    const { conversation } = await findOrCreateConversation(db, acc.accountId, contact.id, "web");
    const id = newId("message");
    const now = Date.now();
    await insertMessage(db, {
      id,
      account_id: acc.accountId,
      conversation_id: conversation.id,
      contact_id: contact.id,
      direction: "inbound",
      type: "text",
      sender: "contact",
      body: "hi there",
      status: "received",
      channel: "web",
      external_id: "sid-in-1",
      from_id: "in-1",
      to_id: "biz",
      created_at: now,
      updated_at: now,
    });
    // Even a (wrong) delivery job for it sends nothing and changes nothing.
    await enqueueJobs(db, [{ type: DELIVERY_JOB, accountId: acc.accountId, payload: { messageId: id } }]);
    await t.parley.worker.drain();
    expect(rx.requests).toHaveLength(0);
    const m = await message(acc.accountId, id);
    expect(m.status).toBe("received");
    expect(m.deliveryAttempts).toHaveLength(0);
  });
});

describe("no webhook URL configured", () => {
  it("a bot reply and a person's reply fail at once with a clear error and no retries", async () => {
    const acc = await t.account();
    const db = t.parley.db.kysely;
    const { contact } = await findOrCreateContactByExternalId(db, acc.accountId, {
      externalId: "nourl",
      phone: null,
      firstName: null,
      lastName: null,
      email: null,
    });
    const { conversation } = await findOrCreateConversation(db, acc.accountId, contact.id, "web");
    const bot = await db.transaction().execute((trx) =>
      createOutboundMessage(trx, acc.accountId, {
        conversationId: conversation.id,
        contactId: contact.id,
        body: "bot says hi",
        sender: "bot",
        channel: "web",
        toId: "nourl",
      }),
    );
    const human = await t.inject({
      method: "POST",
      url: `/v1/conversations/${conversation.id}/messages?apiKey=${acc.apiKey}`,
      payload: { body: "a person says hi" },
    });
    expect(human.statusCode).toBe(201);
    const humanId = json<{ id: string }>(human).id;

    await t.parley.worker.drain();
    for (const id of [bot.id, humanId]) {
      const m = await message(acc.accountId, id);
      expect(m.status).toBe("failed");
      expect(m.error).toMatchObject({ errorClass: "not_configured", statusCode: null });
      expect(m.error?.message).toMatch(/No custom channel webhook URL is configured/);
      expect(m.deliveryAttempts).toHaveLength(0);
      expect(await noJobLeft(id)).toBe(true);
    }
  });
});

describe("blocked addresses", () => {
  it("refuses a URL on a private address without the allowance, and no connection reaches it", async () => {
    const strict = await startTestApp({ OUTBOUND_ALLOW_CIDRS: "", DELIVERY_RETRY_SCHEDULE: "0.05" });
    try {
      const rx = await startReceiver();
      const acc = await strict.account();
      // Set directly: validation would refuse this URL, which is the point.
      await updateSettings(strict.parley.db, acc.accountId, { webhook_url: rx.url });
      const res = await strict.inject({
        method: "POST",
        url: `/v1/send_custom_channel_message?apiKey=${acc.apiKey}`,
        payload: { customData: { fromId: "x", customChannel: "web", body: "hi" } },
      });
      const { messageId } = json<{ messageId: string }>(res);
      for (let i = 0; i < 3; i++) {
        await strict.parley.worker.drain();
        await sleep(80);
      }
      const row = await findMessageById(strict.parley.db.kysely, acc.accountId, messageId);
      const attempts = await attemptsByMessage(strict.parley.db.kysely, acc.accountId, [messageId]);
      const m = messageView(row!, attempts.get(messageId) ?? []);
      expect(m.status).toBe("failed");
      expect(m.error).toMatchObject({ errorClass: "blocked_address", statusCode: null });
      expect(m.error?.message).toMatch(/127\.0\.0\.1/);
      expect(m.deliveryAttempts).toHaveLength(2);
      expect(rx.connections()).toBe(0);
      expect(rx.requests).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});

describe("account events", () => {
  it("delivers an enqueued event signed, with a stable webhook-id and a byte-identical body across retries", async () => {
    const acc = await t.account();
    const rx = await startReceiver((_r, n) => (n < 3 ? { status: 502 } : { status: 200 }));
    await updateSettings(t.parley.db, acc.accountId, {
      events_webhook_url: await validateWebhookUrl(rx.url, t.config.outboundAllowCidrs),
    });
    const eventId = await t.parley.db.kysely.transaction().execute((trx) =>
      enqueueAccountEvent(trx, acc.accountId, "subaccount.auto_recharge", {
        idempotency_key: "ar_123",
        balance: 4.5,
      }),
    );
    const event = () =>
      t.parley.db.kysely.selectFrom("events").selectAll().where("id", "=", eventId).executeTakeFirstOrThrow();
    await settle(async () => (await event()).status === "sent");

    const stored = await event();
    expect(rx.requests).toHaveLength(3);
    expect(new Set(rx.requests.map((r) => r.headers["webhook-id"]))).toEqual(new Set([eventId]));
    for (const r of rx.requests) {
      expect(r.body).toBe(stored.payload);
      expect(new Webhook(acc.webhookSecret).verify(r.body, r.headers)).toEqual({
        type: "subaccount.auto_recharge",
        idempotency_key: "ar_123",
        balance: 4.5,
      });
    }
    expect(stored.error).toBeNull();
    const attempts = await t.parley.db.kysely
      .selectFrom("delivery_attempts")
      .selectAll()
      .where("event_id", "=", eventId)
      .orderBy("id")
      .execute();
    expect(attempts.map((a) => a.status_code)).toEqual([502, 502, 200]);
    expect(attempts.every((a) => a.message_id === null)).toBe(true);
    expect(await jobsFor(EVENT_DELIVERY_JOB, { eventId })).toHaveLength(0);
  });

  it("fails an event at once, without retries, when no events URL is configured", async () => {
    const acc = await t.account();
    const eventId = await enqueueAccountEvent(t.parley.db.kysely, acc.accountId, "conversation.human_alert", {
      conversationId: "cv_x",
    });
    await t.parley.worker.drain();
    const row = await t.parley.db.kysely
      .selectFrom("events")
      .selectAll()
      .where("id", "=", eventId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("failed");
    expect(JSON.parse(row.error ?? "{}")).toMatchObject({ errorClass: "not_configured" });
    expect(await jobsFor(EVENT_DELIVERY_JOB, { eventId })).toHaveLength(0);
  });
});

// A 400 ms attempt timeout keeps the failure tests short, but on a busy machine a 200 can take longer
// than that: the attempt then counts as a timeout and is retried (at-least-once, as it must), and the
// receiver sees the message twice. Exactly once is measured with a timeout no healthy answer reaches.
describe("reply delivery at volume", () => {
  let fast: TestApp;
  beforeAll(async () => {
    fast = t;
    t = await startTestApp(
      { DELIVERY_RETRY_SCHEDULE: "0.05,0.05,0.05", DELIVERY_TIMEOUT_MS: "10000" },
      { worker: { concurrency: 32, pollIntervalMs: 20, leaseMs: 5_000 } },
    );
  });
  afterAll(async () => {
    await t?.close();
    t = fast;
  });

  it("delivers 1,000 sends exactly once each to a receiver that always answers 200", async () => {
    const acc = await t.account();
    const rx = await startReceiver();
    await setWebhook(acc.accountId, rx.url);
    const ids: string[] = [];
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          send(acc.apiKey, { fromId: `bulk-${(batch * 50 + i) % 100}`, customChannel: "web", body: `n${i}` }),
        ),
      );
      ids.push(...answers.map((a) => a.messageId));
    }
    expect(new Set(ids).size).toBe(1000);
    await settle(() => rx.requests.length >= 1000, 40_000);
    await t.parley.worker.drain();

    const webhookIds = rx.requests.map((r) => r.headers["webhook-id"] ?? "");
    const distinct = new Set(webhookIds);
    expect(distinct.size).toBe(1000);
    expect(webhookIds.length - distinct.size).toBe(0); // duplicates
    expect(distinct).toEqual(new Set(ids));
    const statuses = await t.parley.db.kysely
      .selectFrom("messages")
      .select(["status"])
      .where("account_id", "=", acc.accountId)
      .execute();
    expect(statuses.filter((s) => s.status === "sent")).toHaveLength(1000);
    // Keep-alive: far fewer connections than requests.
    expect(rx.connections()).toBeLessThan(200);
  }, 60_000);
});

// The chat widget's public endpoints (/widget/v1/channels/:channelId/...) through the real HTTP server,
// on SQLite and on PostgreSQL: the Origin check and CORS, visitor tokens bound to one channel, a
// visitor's view limited to its own conversation, limits (429 with Retry-After), size caps and bad
// input (4xx, nothing stored), attachment sniffing, a paused or deleted channel, the live stream
// (messages, the bot's answer, "typing"), across two API nodes on PostgreSQL, and the script's size.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type Parley } from "../src/app.ts";
import { WIDGET_JS } from "../src/modules/channels/widget-routes.ts";
import { ownerBrowser } from "./app-helpers.ts";
import { DIALECT, errorCode, json, LogCapture, startTestApp, type TestApp } from "./helpers.ts";

const SHOP = "https://shop.example";
const KNOWLEDGE = [
  { question: "What are your opening hours?", answer: "We are open 9 to 5, Monday to Friday." },
];
// 1×1 transparent PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64",
);

let t: TestApp;
let addressSeq = 0;
/** Each test speaks from its own client address, so the per-address limit counts it alone. */
const nextAddress = () => `10.0.${Math.floor(++addressSeq / 250)}.${(addressSeq % 250) + 1}`;

interface Shop {
  apiKey: string;
  accountId: string;
  userId: string;
  channelId: string;
}

async function call(
  acc: { apiKey: string },
  method: "GET" | "POST" | "PATCH" | "DELETE",
  url: string,
  payload?: unknown,
) {
  return t.inject({
    method,
    url,
    headers: { "x-api-key": acc.apiKey },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function newShop(config: Record<string, unknown> = {}): Promise<Shop> {
  const acc = await t.account();
  const campaigns = json<{ data: { id: string; isDefault: boolean }[] }>(
    await call(acc, "GET", "/v1/campaigns"),
  );
  const def = campaigns.data.find((c) => c.isDefault)!;
  const patched = await call(acc, "PATCH", `/v1/campaigns/${def.id}`, { knowledge: KNOWLEDGE });
  expect(patched.statusCode, patched.body).toBe(200);
  const res = await call(acc, "POST", "/v1/channels", {
    type: "web",
    name: "Website",
    config: { allowedOrigins: [SHOP], greeting: "Hello from the shop!", title: "Shop chat", ...config },
  });
  expect(res.statusCode, res.body).toBe(201);
  return {
    apiKey: acc.apiKey,
    accountId: acc.accountId,
    userId: acc.userId,
    channelId: json<{ id: string }>(res).id,
  };
}

/** A widget request from a page on `origin` (null: no Origin header). */
function widget(
  channelId: string,
  method: "GET" | "POST" | "OPTIONS",
  rest: string,
  opts: { origin?: string | null; token?: string; payload?: unknown; address?: string } = {},
) {
  const origin = opts.origin === undefined ? SHOP : opts.origin;
  return t.inject({
    method,
    url: `/widget/v1/channels/${channelId}${rest}`,
    // Unless a test counts one address's requests, each request comes from an address of its own.
    remoteAddress: opts.address ?? nextAddress(),
    headers: {
      ...(origin ? { origin } : {}),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
    },
    ...(opts.payload === undefined ? {} : { payload: opts.payload as object }),
  });
}

async function newVisitor(channelId: string, address?: string) {
  const res = await widget(channelId, "POST", "/visitors", { ...(address ? { address } : {}) });
  expect(res.statusCode, res.body).toBe(201);
  return json<{ visitorToken: string; visitorId: string }>(res);
}

interface WidgetMessage {
  id: string;
  direction: string;
  body: string;
  sender: string;
  agentName?: string;
  attachment?: { contentType: string };
}

async function messagesOf(channelId: string, token: string, address?: string): Promise<WidgetMessage[]> {
  const res = await widget(channelId, "GET", "/messages", { token, ...(address ? { address } : {}) });
  expect(res.statusCode, res.body).toBe(200);
  return json<WidgetMessage[]>(res);
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 8000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function counts(accountId: string) {
  const db = t.parley.db.kysely;
  const n = async (table: "messages" | "contacts" | "widget_visitors" | "conversations") =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .where("account_id", "=", accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    messages: await n("messages"),
    contacts: await n("contacts"),
    visitors: await n("widget_visitors"),
    conversations: await n("conversations"),
  };
}

const corsOf = (res: LightMyRequestResponse) => res.headers["access-control-allow-origin"];

beforeAll(async () => {
  t = await startTestApp({ WIDGET_REQUESTS_PER_MINUTE: "40", WIDGET_MESSAGES_PER_MINUTE: "6" });
  // Bot replies and deliveries run as they do in `parley serve`.
  t.parley.worker.start();
});
afterAll(() => t.close());

describe(`the widget's public endpoints (${DIALECT})`, () => {
  it("answers its config only to an allowed Origin, with CORS for exactly that origin", async () => {
    const shop = await newShop({ showAgentName: true });
    const ok = await widget(shop.channelId, "GET", "/config");
    expect(ok.statusCode, ok.body).toBe(200);
    expect(json(ok)).toEqual({
      title: "Shop chat",
      greeting: "Hello from the shop!",
      color: expect.stringMatching(/^#[0-9a-f]{6}$/),
      textColor: "#ffffff",
      position: "right",
      collectEmail: false,
      // An agency's brand for its sub-accounts (test/branding.test.ts); none here.
      brand: null,
    });
    expect(corsOf(ok)).toBe(SHOP);
    expect(String(ok.headers.vary)).toMatch(/origin/i);

    for (const origin of [null, "https://evil.example", "https://shop.example:8443", "http://shop.example"]) {
      const res = await widget(shop.channelId, "GET", "/config", { origin });
      expect(res.statusCode, `${origin}`).toBe(403);
      expect(errorCode(res)).toBe("ORIGIN_NOT_ALLOWED");
      expect(corsOf(res)).toBeUndefined();
    }

    const preflight = await widget(shop.channelId, "OPTIONS", "/messages");
    expect(preflight.statusCode).toBe(204);
    expect(corsOf(preflight)).toBe(SHOP);
    expect(String(preflight.headers["access-control-allow-headers"])).toMatch(/authorization/);
    const foreignPreflight = await widget(shop.channelId, "OPTIONS", "/messages", {
      origin: "https://evil.example",
    });
    expect(foreignPreflight.statusCode).toBe(403);
    expect(corsOf(foreignPreflight)).toBeUndefined();

    const unknown = await widget("ch_doesnotexist", "GET", "/config");
    expect(unknown.statusCode).toBe(404);
    expect(errorCode(unknown)).toBe("CHANNEL_NOT_FOUND");
  });

  it("stores nothing for a page on a foreign origin or without one", async () => {
    const shop = await newShop();
    const v = await newVisitor(shop.channelId);
    const before = await counts(shop.accountId);
    for (const origin of [null, "https://evil.example"]) {
      expect((await widget(shop.channelId, "POST", "/visitors", { origin })).statusCode).toBe(403);
      const send = await widget(shop.channelId, "POST", "/messages", {
        origin,
        token: v.visitorToken,
        payload: { body: "hi", clientMessageId: "m1" },
      });
      expect(send.statusCode).toBe(403);
      expect(
        (await widget(shop.channelId, "GET", "/messages", { origin, token: v.visitorToken })).statusCode,
      ).toBe(403);
    }
    expect(await counts(shop.accountId)).toEqual(before);
  });

  it("takes a visitor's message into the inbox and shows the bot's knowledge answer, idempotently", async () => {
    const shop = await newShop();
    const v = await newVisitor(shop.channelId);
    const contact = await t.parley.db.kysely
      .selectFrom("contacts")
      .selectAll()
      .where("account_id", "=", shop.accountId)
      .where("external_id", "=", `web:${v.visitorId}`)
      .executeTakeFirstOrThrow();
    expect(contact.first_name).toBeNull();

    const send = await widget(shop.channelId, "POST", "/messages", {
      token: v.visitorToken,
      payload: { body: "What are your opening hours?", clientMessageId: "c-1" },
    });
    expect(send.statusCode, send.body).toBe(201);
    expect(corsOf(send)).toBe(SHOP);
    const mine = json<WidgetMessage>(send);
    expect(mine).toMatchObject({
      direction: "inbound",
      sender: "visitor",
      body: "What are your opening hours?",
    });

    // The same clientMessageId again: the same message, not a second one.
    const again = await widget(shop.channelId, "POST", "/messages", {
      token: v.visitorToken,
      payload: { body: "What are your opening hours?", clientMessageId: "c-1" },
    });
    expect(again.statusCode).toBe(200);
    expect(json<WidgetMessage>(again).id).toBe(mine.id);

    const thread = await waitFor("the bot's answer", async () => {
      const all = await messagesOf(shop.channelId, v.visitorToken);
      return all.some((m) => m.sender === "bot") && all;
    });
    expect(thread.map((m) => [m.sender, m.body])).toEqual([
      ["visitor", "What are your opening hours?"],
      ["bot", KNOWLEDGE[0]!.answer],
    ]);
    // In the inbox, on this channel.
    const conv = await t.parley.db.kysely
      .selectFrom("conversations")
      .selectAll()
      .where("account_id", "=", shop.accountId)
      .where("contact_id", "=", contact.id)
      .executeTakeFirstOrThrow();
    expect(conv.channel_id).toBe(shop.channelId);
    expect((await counts(shop.accountId)).messages).toBe(2);
  });

  it("refuses a visitor token on another channel, and shows a visitor only its own conversation", async () => {
    const shop = await newShop();
    const other = await newShop();
    const a = await newVisitor(shop.channelId);
    const b = await newVisitor(shop.channelId);
    const c = await newVisitor(other.channelId);
    // A business contact with a name: never shown to a visitor.
    const named = await call(shop, "POST", "/v1/contacts", {
      firstName: "Zelda",
      lastName: "Secret",
      phone: "+14155550100",
    });
    expect(named.statusCode, named.body).toBe(201);

    const sendA = await widget(shop.channelId, "POST", "/messages", {
      token: a.visitorToken,
      payload: { body: "A's private question", clientMessageId: "a1" },
    });
    expect(sendA.statusCode).toBe(201);

    // C's token (another channel) on this channel, and A's token on C's channel: 401.
    for (const [channelId, token] of [
      [shop.channelId, c.visitorToken],
      [other.channelId, a.visitorToken],
      [shop.channelId, "wvt_made-up"],
    ] as const) {
      const res = await widget(channelId, "GET", "/messages", { token });
      expect(res.statusCode).toBe(401);
      const post = await widget(channelId, "POST", "/messages", {
        token,
        payload: { body: "x", clientMessageId: "x1" },
      });
      expect(post.statusCode).toBe(401);
    }
    expect((await widget(shop.channelId, "GET", "/messages")).statusCode).toBe(401);

    const bView = await widget(shop.channelId, "GET", "/messages", { token: b.visitorToken });
    expect(json(bView)).toEqual([]);
    for (const secret of [
      "A's private question",
      "Zelda",
      "Secret",
      "+14155550100",
      a.visitorId,
      shop.accountId,
    ]) {
      expect(bView.body).not.toContain(secret);
    }
    const aView = await messagesOf(shop.channelId, a.visitorToken);
    expect(JSON.stringify(aView)).not.toContain("Zelda");
    expect(aView[0]!.body).toBe("A's private question");
  });

  it("shows a person's reply with their first name only when the business chose to", async () => {
    for (const showAgentName of [true, false]) {
      const shop = await newShop({ showAgentName });
      const v = await newVisitor(shop.channelId);
      await widget(shop.channelId, "POST", "/messages", {
        token: v.visitorToken,
        payload: { body: "I need a person", clientMessageId: "p1" },
      });
      const conv = await t.parley.db.kysely
        .selectFrom("conversations")
        .select("id")
        .where("account_id", "=", shop.accountId)
        .where("channel_id", "=", shop.channelId)
        .executeTakeFirstOrThrow();
      await t.parley.db.kysely
        .updateTable("users")
        .set({ name: "Maria Lopez" })
        .where("id", "=", shop.userId)
        .execute();
      const { browser } = await signInOwner(shop);
      const reply = await browser.req({
        method: "POST",
        url: `/app/api/conversations/${conv.id}/messages`,
        payload: { body: "Hi, Maria here" },
      });
      expect(reply.statusCode, reply.body).toBe(201);
      const agent = await waitFor("the person's reply", async () =>
        (await messagesOf(shop.channelId, v.visitorToken)).find((m) => m.sender === "agent"),
      );
      expect(agent.body).toBe("Hi, Maria here");
      if (showAgentName) expect(agent.agentName).toBe("Maria");
      else expect(agent.agentName).toBeUndefined();
      expect(JSON.stringify(agent)).not.toContain("Lopez");
    }
  });

  it("a visitor's seen report sets the conversation's contactSeenAt, only forward, for its own conversation", async () => {
    const shop = await newShop();
    const other = await newShop();
    const v = await newVisitor(shop.channelId);
    // No conversation yet: nothing to mark, nothing stored.
    expect((await widget(shop.channelId, "POST", "/seen", { token: v.visitorToken })).statusCode).toBe(204);
    expect(await counts(shop.accountId)).toMatchObject({ conversations: 0 });
    await widget(shop.channelId, "POST", "/messages", {
      token: v.visitorToken,
      payload: { body: "What are your opening hours?", clientMessageId: "s1" },
    });
    await waitFor("the bot's answer", async () =>
      (await messagesOf(shop.channelId, v.visitorToken)).find((m) => m.sender === "bot"),
    );
    const conversation = async () => {
      const { data } = json<{ data: { id: string; contactSeenAt: string | null }[] }>(
        await call(shop, "GET", "/v1/conversations"),
      );
      expect(data).toHaveLength(1);
      return data[0]!;
    };
    expect((await conversation()).contactSeenAt).toBeNull();

    // A token of another channel, or none, is refused and marks nothing.
    const stranger = await newVisitor(other.channelId);
    expect((await widget(shop.channelId, "POST", "/seen", { token: stranger.visitorToken })).statusCode).toBe(
      401,
    );
    expect((await widget(shop.channelId, "POST", "/seen")).statusCode).toBe(401);
    expect((await conversation()).contactSeenAt).toBeNull();

    const before = Date.now();
    expect((await widget(shop.channelId, "POST", "/seen", { token: v.visitorToken })).statusCode).toBe(204);
    const seen = (await conversation()).contactSeenAt;
    expect(seen).not.toBeNull();
    expect(Date.parse(seen!)).toBeGreaterThanOrEqual(before - 1);
    // The app's twin says the same.
    const { browser } = await signInOwner(shop);
    const inbox = json<{ data: { contactSeenAt: string | null }[] }>(
      await browser.req({ method: "GET", url: "/app/api/conversations" }),
    );
    expect(inbox.data[0]?.contactSeenAt).toBe(seen);
    // A report older than the stored one never moves it back.
    const { id } = await conversation();
    await t.parley.db.kysely
      .updateTable("conversations")
      .set({ contact_seen_at: Date.now() + 60_000 })
      .where("id", "=", id)
      .execute();
    const ahead = (await conversation()).contactSeenAt;
    expect((await widget(shop.channelId, "POST", "/seen", { token: v.visitorToken })).statusCode).toBe(204);
    expect((await conversation()).contactSeenAt).toBe(ahead);
  });

  it("limits messages per visitor and requests per address with 429 and Retry-After", async () => {
    const shop = await newShop();
    const address = nextAddress();
    const v = await newVisitor(shop.channelId, address);
    const statuses: number[] = [];
    let limited: LightMyRequestResponse | null = null;
    for (let i = 0; i < 8; i++) {
      const res = await widget(shop.channelId, "POST", "/messages", {
        address,
        token: v.visitorToken,
        payload: { body: `message ${i}`, clientMessageId: `lim-${i}` },
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) limited = res;
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 429, 429]);
    expect(errorCode(limited!)).toBe("RATE_LIMITED");
    expect(Number(limited!.headers["retry-after"])).toBeGreaterThan(0);
    expect(corsOf(limited!)).toBe(SHOP);
    const stored = await t.parley.db.kysely
      .selectFrom("messages")
      .select("body")
      .where("account_id", "=", shop.accountId)
      .where("direction", "=", "inbound")
      .execute();
    expect(stored).toHaveLength(6);

    // Per address: new visitors (a tenth of the allowance), then everything.
    const crowd = nextAddress();
    const created: number[] = [];
    for (let i = 0; i < 6; i++)
      created.push((await widget(shop.channelId, "POST", "/visitors", { address: crowd })).statusCode);
    expect(created).toEqual([201, 201, 201, 201, 429, 429]);
    const busy = nextAddress();
    const seen: number[] = [];
    for (let i = 0; i < 42; i++)
      seen.push((await widget(shop.channelId, "GET", "/config", { address: busy })).statusCode);
    expect(seen.slice(0, 40).every((s) => s === 200)).toBe(true);
    expect(seen.slice(40)).toEqual([429, 429]);
    // Another address is not affected.
    expect((await widget(shop.channelId, "GET", "/config", { address: nextAddress() })).statusCode).toBe(200);
  });

  it("refuses oversized and bad input with a 4xx, storing nothing", async () => {
    const shop = await newShop();
    const address = nextAddress();
    const v = await newVisitor(shop.channelId, address);
    const before = await counts(shop.accountId);
    const bad: Array<[unknown, number]> = [
      [{ body: "x".repeat(2001), clientMessageId: "big" }, 400],
      [{ body: "   ", clientMessageId: "blank" }, 400],
      [{ body: "hi" }, 400],
      [{ body: "hi", clientMessageId: "has spaces" }, 400],
      [{ body: "hi", clientMessageId: "x".repeat(65) }, 400],
      [{ body: 42, clientMessageId: "num" }, 400],
      [{ body: "x".repeat(70_000), clientMessageId: "huge" }, 413],
    ];
    for (const [payload, status] of bad) {
      const res = await widget(shop.channelId, "POST", "/messages", {
        address,
        token: v.visitorToken,
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload).slice(0, 60)).toBe(status);
    }
    const notJson = await t.inject({
      method: "POST",
      url: `/widget/v1/channels/${shop.channelId}/messages`,
      remoteAddress: address,
      headers: { origin: SHOP, authorization: `Bearer ${v.visitorToken}`, "content-type": "text/plain" },
      payload: "hello",
    });
    expect(notJson.statusCode).toBe(415);
    // Exactly 2,000 characters is accepted.
    const max = await widget(shop.channelId, "POST", "/messages", {
      address,
      token: v.visitorToken,
      payload: { body: "y".repeat(2000), clientMessageId: "max" },
    });
    expect(max.statusCode, max.body).toBe(201);
    const after = await counts(shop.accountId);
    expect(after.messages - before.messages).toBeGreaterThanOrEqual(1);
    const bodies = await t.parley.db.kysely
      .selectFrom("messages")
      .select("body")
      .where("account_id", "=", shop.accountId)
      .where("direction", "=", "inbound")
      .execute();
    expect(bodies.map((b) => b.body.length)).toEqual([2000]);
  });

  it("checks an attachment's bytes: a fake PNG and other types are refused, a real one is kept", async () => {
    const shop = await newShop();
    const address = nextAddress();
    const v = await newVisitor(shop.channelId, address);
    const before = await counts(shop.accountId);
    const attach = (payload: unknown) =>
      widget(shop.channelId, "POST", "/attachments", { address, token: v.visitorToken, payload });
    const fake = await attach({
      clientMessageId: "f1",
      contentType: "image/png",
      data: Buffer.from("<script>alert(1)</script>").toString("base64"),
    });
    expect(fake.statusCode).toBe(400);
    expect(errorCode(fake)).toBe("INVALID_MEDIA");
    const html = await attach({
      clientMessageId: "f2",
      contentType: "text/html",
      data: Buffer.from("<h1>hi</h1>").toString("base64"),
    });
    expect(html.statusCode).toBe(400);
    const notBase64 = await attach({
      clientMessageId: "f3",
      contentType: "image/png",
      data: "!!!not base64!!!",
    });
    expect(notBase64.statusCode).toBe(400);
    expect(await counts(shop.accountId)).toEqual(before);

    const real = await attach({
      clientMessageId: "r1",
      contentType: "image/png",
      data: PNG.toString("base64"),
    });
    expect(real.statusCode, real.body).toBe(201);
    const msg = json<WidgetMessage>(real);
    expect(msg.attachment?.contentType).toBe("image/png");
    const file = await widget(shop.channelId, "GET", `/messages/${msg.id}/attachment`, {
      address,
      token: v.visitorToken,
    });
    expect(file.statusCode).toBe(200);
    expect(file.headers["content-type"]).toMatch(/^image\/png/);
    expect(file.rawPayload.equals(PNG)).toBe(true);
    // Another visitor cannot fetch it.
    const other = await newVisitor(shop.channelId, address);
    const theirs = await widget(shop.channelId, "GET", `/messages/${msg.id}/attachment`, {
      address,
      token: other.visitorToken,
    });
    expect(theirs.statusCode).toBe(404);
  });

  it("takes a visitor's e-mail for its contact only when the channel collects it", async () => {
    const asks = await newShop({ collectEmail: true });
    const v = await newVisitor(asks.channelId);
    const contactEmail = async (accountId: string, visitorId: string) =>
      (
        await t.parley.db.kysely
          .selectFrom("contacts")
          .select("email")
          .where("account_id", "=", accountId)
          .where("external_id", "=", `web:${visitorId}`)
          .executeTakeFirstOrThrow()
      ).email;
    const bad = await widget(asks.channelId, "POST", "/email", {
      token: v.visitorToken,
      payload: { email: "nope" },
    });
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe("INVALID_EMAIL");
    expect(await contactEmail(asks.accountId, v.visitorId)).toBeNull();
    const ok = await widget(asks.channelId, "POST", "/email", {
      token: v.visitorToken,
      payload: { email: "Visitor@Example.com" },
    });
    expect(ok.statusCode, ok.body).toBe(204);
    expect(await contactEmail(asks.accountId, v.visitorId)).toBe("visitor@example.com");

    const silent = await newShop();
    const w = await newVisitor(silent.channelId);
    const refused = await widget(silent.channelId, "POST", "/email", {
      token: w.visitorToken,
      payload: { email: "a@example.com" },
    });
    expect(refused.statusCode).toBe(403);
    expect(await contactEmail(silent.accountId, w.visitorId)).toBeNull();
  });

  it("answers nothing for a paused or deleted channel", async () => {
    const shop = await newShop();
    const v = await newVisitor(shop.channelId);
    const paused = await call(shop, "PATCH", `/v1/channels/${shop.channelId}`, { status: "paused" });
    expect(paused.statusCode, paused.body).toBe(200);
    const before = await counts(shop.accountId);
    const cfg = await widget(shop.channelId, "GET", "/config");
    expect(cfg.statusCode).toBe(403);
    expect(errorCode(cfg)).toBe("CHANNEL_PAUSED");
    const send = await widget(shop.channelId, "POST", "/messages", {
      token: v.visitorToken,
      payload: { body: "anyone?", clientMessageId: "p1" },
    });
    expect(send.statusCode).toBe(403);
    expect((await widget(shop.channelId, "POST", "/visitors")).statusCode).toBe(403);
    expect(await counts(shop.accountId)).toEqual(before);

    expect((await call(shop, "DELETE", `/v1/channels/${shop.channelId}`)).statusCode).toBeLessThan(300);
    const gone = await widget(shop.channelId, "GET", "/config");
    expect(gone.statusCode).toBe(404);
    expect((await widget(shop.channelId, "GET", "/messages", { token: v.visitorToken })).statusCode).toBe(
      404,
    );
  });

  it("streams the visitor's messages, the bot's answer and a person typing (SSE)", async () => {
    const shop = await newShop();
    const v = await newVisitor(shop.channelId);
    await t.parley.app.listen({ port: 0, host: "127.0.0.1" });
    const port = (t.parley.app.server.address() as AddressInfo).port;
    const stream = openStream(port, shop.channelId, v.visitorToken);
    try {
      await stream.connected;
      expect(stream.status()).toBe(200);
      expect(stream.headers()["access-control-allow-origin"]).toBe(SHOP);
      await widget(shop.channelId, "POST", "/messages", {
        token: v.visitorToken,
        payload: { body: "What are your opening hours?", clientMessageId: "s1" },
      });
      await waitFor("the bot's answer on the stream", async () =>
        stream.messages().some((m) => m.sender === "bot" && m.body === KNOWLEDGE[0]!.answer),
      );
      expect(stream.messages().map((m) => m.sender)).toEqual(["visitor", "bot"]);

      const conv = await t.parley.db.kysely
        .selectFrom("conversations")
        .select("id")
        .where("channel_id", "=", shop.channelId)
        .executeTakeFirstOrThrow();
      const { browser } = await signInOwner(shop);
      const typing = await browser.req({ method: "POST", url: `/app/api/conversations/${conv.id}/typing` });
      expect(typing.statusCode, typing.body).toBe(204);
      await waitFor("typing on the stream", async () => stream.text().includes("event: typing"));
      // Another account's person cannot type into this conversation.
      const { browser: stranger } = await ownerBrowser(t);
      const foreign = await stranger.req({ method: "POST", url: `/app/api/conversations/${conv.id}/typing` });
      expect(foreign.statusCode).toBe(404);
    } finally {
      stream.close();
    }
    // A foreign origin gets no stream.
    const refused = openStream(port, shop.channelId, v.visitorToken, "https://evil.example");
    await refused.done;
    expect(refused.status()).toBe(403);
    expect(refused.headers()["access-control-allow-origin"]).toBeUndefined();
  });

  it.skipIf(DIALECT !== "postgres")(
    "relays widget events between two API nodes on one database",
    async () => {
      const shop = await newShop();
      const v = await newVisitor(shop.channelId);
      const second: Parley = await buildApp(t.config);
      try {
        await second.app.listen({ port: 0, host: "127.0.0.1" });
        const port = (second.app.server.address() as AddressInfo).port;
        const stream = openStream(port, shop.channelId, v.visitorToken);
        try {
          await stream.connected;
          expect(stream.status()).toBe(200);
          // Posted to node 1, answered by a worker; the visitor is connected to node 2.
          await widget(shop.channelId, "POST", "/messages", {
            token: v.visitorToken,
            payload: { body: "What are your opening hours?", clientMessageId: "n1" },
          });
          await waitFor("both messages on node 2", async () => stream.messages().length >= 2);
          expect(stream.messages().map((m) => m.sender)).toEqual(["visitor", "bot"]);
          const conv = await t.parley.db.kysely
            .selectFrom("conversations")
            .select("id")
            .where("channel_id", "=", shop.channelId)
            .executeTakeFirstOrThrow();
          const { browser } = await signInOwner(shop);
          expect(
            (await browser.req({ method: "POST", url: `/app/api/conversations/${conv.id}/typing` }))
              .statusCode,
          ).toBe(204);
          await waitFor("typing relayed to node 2", async () => stream.text().includes("event: typing"));
        } finally {
          stream.close();
        }
      } finally {
        await second.close();
      }
    },
  );
});

describe("the widget's logs", () => {
  it("never contain a visitor token (header or the event stream's ?token=)", async () => {
    const logs = new LogCapture();
    const own = await startTestApp({ LOG_LEVEL: "trace" }, { logStream: logs });
    try {
      const acc = await own.account();
      const created = await own.inject({
        method: "POST",
        url: "/v1/channels",
        headers: { "x-api-key": acc.apiKey },
        payload: { type: "web", name: "Website", config: { allowedOrigins: [SHOP] } },
      });
      const channelId = json<{ id: string }>(created).id;
      const base = `/widget/v1/channels/${channelId}`;
      const v = json<{ visitorToken: string }>(
        await own.inject({ method: "POST", url: `${base}/visitors`, headers: { origin: SHOP } }),
      );
      await own.inject({
        method: "GET",
        url: `${base}/messages`,
        headers: { origin: SHOP, authorization: `Bearer ${v.visitorToken}` },
      });
      // A refused stream (foreign origin) is answered at once, with its URL logged.
      await own.inject({
        method: "GET",
        url: `${base}/events?token=${v.visitorToken}`,
        headers: { origin: "https://evil.example" },
      });
      expect(logs.text).toContain("/events?token=");
      expect(logs.text).not.toContain(v.visitorToken);
      expect(logs.text).not.toContain(v.visitorToken.slice(4));
    } finally {
      await own.close();
    }
  });
});

describe("the widget script", () => {
  it("is built into one file under 60 kB gzip, served from /widget.js for any site", async () => {
    const root = path.resolve(import.meta.dirname, "../../..");
    const build = spawnSync(process.execPath, [path.join(root, "scripts/build-web.mjs"), "--widget-only"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(build.status, build.stderr).toBe(0);
    const bytes = fs.readFileSync(WIDGET_JS);
    const gz = gzipSync(bytes, { level: 9 }).length;
    expect(gz).toBeLessThan(60 * 1024);
    const res = await t.inject({ method: "GET", url: "/widget.js" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/javascript/);
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.headers["cross-origin-resource-policy"]).toBe("cross-origin");
    expect(res.rawPayload.equals(bytes)).toBe(true);
    const cached = await t.inject({
      method: "GET",
      url: "/widget.js",
      headers: { "if-none-match": String(res.headers.etag) },
    });
    expect(cached.statusCode).toBe(304);
  });
});

async function signInOwner(shop: Shop) {
  const row = await t.parley.db.kysely
    .selectFrom("users")
    .select("email")
    .where("id", "=", shop.userId)
    .executeTakeFirstOrThrow();
  const { signIn } = await import("./app-helpers.ts");
  return { browser: await signIn(t, row.email) };
}

/** An EventSource-like reader of the visitor's stream. */
function openStream(port: number, channelId: string, token: string, origin = SHOP) {
  let body = "";
  let status = 0;
  let headers: http.IncomingHttpHeaders = {};
  let markConnected: () => void = () => {};
  let markDone: () => void = () => {};
  const connected = new Promise<void>((r) => {
    markConnected = r;
  });
  const done = new Promise<void>((r) => {
    markDone = r;
  });
  const req = http.get(
    {
      host: "127.0.0.1",
      port,
      path: `/widget/v1/channels/${channelId}/events?token=${encodeURIComponent(token)}`,
      headers: { origin, accept: "text/event-stream" },
    },
    (res) => {
      status = res.statusCode ?? 0;
      headers = res.headers;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
        if (body.includes(": connected")) markConnected();
      });
      res.on("end", markDone);
      res.on("close", markDone);
    },
  );
  req.on("error", markDone);
  const messages = () =>
    body
      .split("\n\n")
      .filter((block) => block.startsWith("event: message\n"))
      .map((block) => JSON.parse(block.slice(block.indexOf("data: ") + 6)) as WidgetMessage);
  return {
    // (A refused stream ends instead: the status then says why.)
    connected: Promise.race([connected, done]),
    done,
    status: () => status,
    headers: () => headers,
    text: () => body,
    messages,
    close: () => req.destroy(),
  };
}

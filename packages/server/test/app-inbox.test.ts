// The web app's inbox (/app/api/conversations, messages, events): an incoming message posted to /v1
// shows in the list (newest activity first, filters, search) and fires an SSE event; the detail
// shows the thread and marks it read; a person's reply reaches the receiver with sender human and
// pauses the bot; status/assignee/bot/alert changes; resolved conversations reopen on a new message;
// another account's ids are 404.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { validateWebhookUrl } from "../src/modules/accounts/webhook-url.ts";
import { type Browser, ownerBrowser, teammate } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { dataUri, makePng } from "./fixtures/png.ts";
import { json, startTestApp, type TestApp } from "./helpers.ts";

let t: TestApp;
let receiver: http.Server;
let receiverUrl: string;
const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  t = await startTestApp();
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(200);
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await t?.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

interface Conv {
  id: string;
  contact: {
    id: string;
    name: string | null;
    fromId: string | null;
    phone: string | null;
    email: string | null;
  };
  lastMessage: { body: string; direction: string } | null;
  unreadCount: number;
  status: string;
  assignee: { id: string; name: string } | null;
  botPaused: boolean;
  humanAlert: boolean;
  lastMessageAt: string;
}

interface Msg {
  id: string;
  sender: string;
  senderName: string | null;
  body: string;
  type: string;
  status: string;
  reactions: Array<{ body: string }>;
  deliveryAttempts: unknown[];
}

async function incoming(apiKey: string, data: Record<string, unknown>) {
  const res = await postIncoming(t, apiKey, { customData: customData(data) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res;
}

async function list(
  b: Browser,
  query = "",
): Promise<{ data: Conv[]; hasMore: boolean; nextCursor: string | null }> {
  const res = await b.req({ method: "GET", url: `/app/api/conversations${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return json(res);
}

describe("inbox", () => {
  it("lists conversations newest activity first, with contact, last message and unread count", async () => {
    const { acc, browser } = await ownerBrowser(t);
    await incoming(acc.apiKey, { fromId: "ada-1", body: "first", firstName: "Ada", lastName: "Lovelace" });
    await incoming(acc.apiKey, { fromId: "bob-2", body: "second" });
    await incoming(acc.apiKey, { fromId: "ada-1", body: "third from ada" });
    const page = await list(browser);
    expect(page.data.map((c) => c.contact.fromId)).toEqual(["ada-1", "bob-2"]);
    const ada = page.data[0] as Conv;
    expect(ada.contact.name).toBe("Ada Lovelace");
    expect(ada.lastMessage).toMatchObject({ body: "third from ada", direction: "inbound" });
    expect(ada.unreadCount).toBe(2);
    expect(ada.status).toBe("open");
    expect(page.data[1]?.contact.name).toBeNull();

    // Pages: one at a time, with a cursor.
    const p1 = await list(browser, "?limit=1");
    expect(p1.hasMore).toBe(true);
    const p2 = await list(browser, `?limit=1&cursor=${p1.nextCursor}`);
    expect(p2.data.map((c) => c.contact.fromId)).toEqual(["bob-2"]);
    expect(p2.hasMore).toBe(false);
    expect((await browser.req({ method: "GET", url: "/app/api/conversations?cursor=bad" })).statusCode).toBe(
      400,
    );
  });

  it("searches by name, phone, e-mail and message text, and filters", async () => {
    const { acc, browser } = await ownerBrowser(t);
    await incoming(acc.apiKey, { fromId: "+14155550123", body: "where is my parcel?", firstName: "Grace" });
    await incoming(acc.apiKey, { fromId: "zed-9", body: "hello", email: "zed@example.org" });
    const ids = async (q: string) => (await list(browser, q)).data.map((c) => c.contact.fromId);
    expect(await ids("?q=grace")).toEqual(["+14155550123"]);
    expect(await ids("?q=5550123")).toEqual(["+14155550123"]);
    expect(await ids("?q=ZED%40example")).toEqual(["zed-9"]);
    expect(await ids("?q=PARCEL")).toEqual(["+14155550123"]);
    expect(await ids("?q=100%25")).toEqual([]);
    expect(await ids("?status=resolved")).toEqual([]);
    expect((await ids("?status=open")).length).toBe(2);
    expect(await ids("?humanAlert=true")).toEqual([]);
    expect((await ids("?assignee=unassigned")).length).toBe(2);
    expect(await ids("?assignee=me")).toEqual([]);
  });

  it("shows the thread (reactions on their target), marks it read, and hides other accounts' ids", async () => {
    const { acc, browser } = await ownerBrowser(t);
    const { browser: stranger } = await ownerBrowser(t);
    await incoming(acc.apiKey, { fromId: "eve-5", body: "hi there", messageSid: "sid-eve-1" });
    const reaction = await postIncoming(t, acc.apiKey, {
      messageType: "reaction",
      customData: customData({ fromId: "eve-5", body: "👍", reactionTo: "sid-eve-1" }),
    });
    expect(reaction.statusCode, reaction.body).toBeLessThan(300);
    const conv = (await list(browser)).data[0] as Conv;
    const res = await browser.req({ method: "GET", url: `/app/api/conversations/${conv.id}` });
    expect(res.statusCode, res.body).toBe(200);
    const detail = json<{ conversation: Conv; messages: Msg[] }>(res);
    expect(detail.conversation.id).toBe(conv.id);
    expect(detail.conversation.unreadCount).toBe(0);
    expect(detail.messages[0]).toMatchObject({ body: "hi there", sender: "contact" });
    expect(detail.messages.length, JSON.stringify(detail.messages)).toBe(1);
    expect(detail.messages[0]?.reactions.map((r) => r.body)).toEqual(["👍"]);
    expect((await list(browser)).data[0]?.unreadCount).toBe(0);

    for (const [method, url, payload] of [
      ["GET", `/app/api/conversations/${conv.id}`, undefined],
      ["PATCH", `/app/api/conversations/${conv.id}`, { status: "resolved" }],
      ["POST", `/app/api/conversations/${conv.id}/messages`, { body: "not yours" }],
    ] as const) {
      const r = await stranger.req({ method, url, ...(payload ? { payload } : {}) });
      expect(r.statusCode, `${method} ${url}`).toBe(404);
    }
    const msgId = detail.messages[0]?.id as string;
    expect(
      (await stranger.req({ method: "POST", url: `/app/api/messages/${msgId}/resend` })).statusCode,
    ).toBe(404);
    expect((await stranger.req({ method: "GET", url: `/app/api/messages/${msgId}/media` })).statusCode).toBe(
      404,
    );
    expect((await list(stranger)).data).toEqual([]);
  });

  it("replies as the signed-in person: sender human with their name, bot paused, delivered to the receiver", async () => {
    const { acc, browser: owner } = await ownerBrowser(t);
    await updateSettings(t.parley.db, acc.accountId, {
      webhook_url: await validateWebhookUrl(receiverUrl, t.config.outboundAllowCidrs),
    });
    const agent = await teammate(t, owner, "agent", "Agnes Agent");
    await incoming(acc.apiKey, { fromId: "visitor-7", body: "need a human", channel: "livechat" });
    const conv = (await list(agent)).data[0] as Conv;
    const res = await agent.req({
      method: "POST",
      url: `/app/api/conversations/${conv.id}/messages`,
      payload: { body: "Agnes here, how can I help?" },
    });
    expect(res.statusCode, res.body).toBe(201);
    const msg = json<Msg>(res);
    expect(msg).toMatchObject({ sender: "human", senderName: "Agnes Agent", status: "pending" });
    const row = await t.parley.db.kysely
      .selectFrom("messages")
      .select("user_id")
      .where("id", "=", msg.id)
      .executeTakeFirstOrThrow();
    expect(row.user_id).toBe(agent.session.user.id);
    expect((await list(agent)).data[0]?.botPaused).toBe(true);

    const until = Date.now() + 10_000;
    while (!received.some((r) => r.headers["webhook-id"] === msg.id)) {
      await t.parley.worker.drain();
      if (Date.now() > until) throw new Error("reply not delivered");
      await new Promise((r) => setTimeout(r, 20));
    }
    const delivered = received.find((r) => r.headers["webhook-id"] === msg.id);
    expect(JSON.parse(delivered?.body ?? "{}")).toMatchObject({
      sender: "human",
      body: "Agnes here, how can I help?",
      toId: "visitor-7",
    });
    const detail = json<{ messages: Msg[] }>(
      await agent.req({ method: "GET", url: `/app/api/conversations/${conv.id}` }),
    );
    const shown = detail.messages.find((m) => m.id === msg.id);
    expect(shown).toMatchObject({ status: "sent", senderName: "Agnes Agent" });
    expect(shown?.deliveryAttempts.length).toBe(1);
    expect((await agent.req({ method: "POST", url: `/app/api/messages/${msg.id}/resend` })).statusCode).toBe(
      409,
    );
    const blank = await agent.req({
      method: "POST",
      url: `/app/api/conversations/${conv.id}/messages`,
      payload: { body: "   " },
    });
    expect(blank.statusCode).toBe(400);
  });

  it("changes status, assignee, bot pause and alert; a new message reopens a resolved conversation", async () => {
    const { acc, browser: owner } = await ownerBrowser(t);
    const agent = await teammate(t, owner, "agent", "Ann");
    const { browser: stranger } = await ownerBrowser(t);
    await incoming(acc.apiKey, { fromId: "carl-3", body: "hello" });
    const conv = (await list(owner)).data[0] as Conv;
    const patch = (b: Browser, payload: object) =>
      b.req({ method: "PATCH", url: `/app/api/conversations/${conv.id}`, payload });

    const resolved = await patch(agent, {
      status: "resolved",
      assigneeId: agent.session.user.id,
      botPaused: true,
    });
    expect(resolved.statusCode, resolved.body).toBe(200);
    expect(json(resolved)).toMatchObject({
      status: "resolved",
      assignee: { id: agent.session.user.id, name: "Ann" },
      botPaused: true,
    });
    expect((await list(agent, "?assignee=me")).data.map((c) => c.id)).toEqual([conv.id]);
    expect((await list(owner, "?assignee=me")).data).toEqual([]);
    expect((await list(owner, `?assignee=${agent.session.user.id}&status=resolved`)).data.length).toBe(1);
    // /v1 shows the same state.
    const v1 = json<{ status: string; assigneeId: string }>(
      await t.inject({ method: "GET", url: `/v1/conversations/${conv.id}?apiKey=${acc.apiKey}` }),
    );
    expect(v1).toMatchObject({ status: "resolved", assigneeId: agent.session.user.id });

    const foreignUser = await patch(owner, { assigneeId: stranger.session.user.id });
    expect(foreignUser.statusCode).toBe(400);

    await incoming(acc.apiKey, { fromId: "carl-3", body: "one more thing" });
    expect((await list(owner)).data[0]).toMatchObject({ id: conv.id, status: "open" });

    await t.parley.db.write((trx) =>
      trx
        .updateTable("conversations")
        .set({ human_alert: 1, human_alert_reason: "no_answer" })
        .where("id", "=", conv.id)
        .execute(),
    );
    expect((await list(owner, "?humanAlert=true")).data.map((c) => c.id)).toEqual([conv.id]);
    const cleared = await patch(owner, { humanAlert: false, assigneeId: null, botPaused: false });
    expect(json(cleared)).toMatchObject({ humanAlert: false, assignee: null, botPaused: false });
    expect((await patch(owner, { status: "closed" })).statusCode).toBe(400);
  });

  it("links a stored attachment, served with the /v1 headers to the signed-in account only", async () => {
    const { acc, browser } = await ownerBrowser(t);
    const { browser: stranger } = await ownerBrowser(t);
    const png = makePng(2, 2);
    await incoming(acc.apiKey, {
      fromId: "pic-1",
      channel: "photos",
      mediaUrl: dataUri("image/png", png),
      mediaContentType: "image/png",
    });
    expect((await list(browser, "?channel=photos")).data.length).toBe(1);
    expect((await list(browser, "?channel=other")).data).toEqual([]);
    const conv = (await list(browser)).data[0] as Conv;
    const detail = json<{ messages: Array<Msg & { media: { state: string; url: string } | null }> }>(
      await browser.req({ method: "GET", url: `/app/api/conversations/${conv.id}` }),
    );
    const m = detail.messages[0];
    expect(m?.media).toMatchObject({ state: "stored", url: `/app/api/messages/${m?.id}/media` });
    const blob = await browser.req({ method: "GET", url: m?.media?.url ?? "" });
    expect(blob.statusCode).toBe(200);
    expect(blob.headers["content-type"]).toBe("image/png");
    expect(blob.headers["x-content-type-options"]).toBe("nosniff");
    expect(blob.rawPayload.equals(png)).toBe(true);
    expect((await stranger.req({ method: "GET", url: m?.media?.url ?? "" })).statusCode).toBe(404);
    expect((await t.inject({ method: "GET", url: m?.media?.url ?? "" })).statusCode).toBe(401);
  });

  it("tells the browsers after a reply, an inbox change and a bot pause", async () => {
    const { acc, browser } = await ownerBrowser(t);
    await updateSettings(t.parley.db, acc.accountId, {
      webhook_url: await validateWebhookUrl(receiverUrl, t.config.outboundAllowCidrs),
    });
    await incoming(acc.apiKey, { fromId: "pub-1", body: "hello" });
    const conv = (await list(browser)).data[0] as Conv;
    const heard: string[] = [];
    const stop = t.parley.ctx.live.subscribe(acc.accountId, (e) => heard.push(e.conversationId));
    const waitFor = async (n: number) => {
      const until = Date.now() + 5000;
      while (heard.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(heard.length).toBeGreaterThanOrEqual(n);
    };
    try {
      await browser.req({
        method: "POST",
        url: `/app/api/conversations/${conv.id}/messages`,
        payload: { body: "a person" },
      });
      await waitFor(1);
      await browser.req({
        method: "PATCH",
        url: `/app/api/conversations/${conv.id}`,
        payload: { status: "resolved" },
      });
      await waitFor(2);
      await t.inject({
        method: "POST",
        url: `/v1/conversations/${conv.id}/bot?apiKey=${acc.apiKey}`,
        payload: { active: false },
      });
      expect(new Set(heard)).toEqual(new Set([conv.id]));
    } finally {
      stop();
    }
  });

  it("tells the browsers about delivery outcomes and resends", async () => {
    const { acc, browser } = await ownerBrowser(t);
    // Nothing listens there: the attempt fails at once.
    await updateSettings(t.parley.db, acc.accountId, { webhook_url: "http://127.0.0.1:1/hook" });
    await incoming(acc.apiKey, { fromId: "fail-1", body: "hello" });
    const conv = (await list(browser)).data[0] as Conv;
    const msg = json<Msg>(
      await browser.req({
        method: "POST",
        url: `/app/api/conversations/${conv.id}/messages`,
        payload: { body: "will fail" },
      }),
    );
    const heard: string[] = [];
    const stop = t.parley.ctx.live.subscribe(acc.accountId, (e) => heard.push(e.conversationId));
    const settle = async (what: () => Promise<boolean>) => {
      const until = Date.now() + 10_000;
      while (!(await what())) {
        await t.parley.worker.drain();
        if (Date.now() > until) throw new Error("not reached in time");
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const status = async () =>
      (
        await t.parley.db.kysely
          .selectFrom("messages")
          .select("status")
          .where("id", "=", msg.id)
          .executeTakeFirstOrThrow()
      ).status;
    try {
      await settle(async () => (await status()) === "failed" && heard.length > 0);
      expect(heard).toContain(conv.id);
      heard.length = 0;
      const resent = await browser.req({ method: "POST", url: `/app/api/messages/${msg.id}/resend` });
      expect(resent.statusCode, resent.body).toBe(200);
      expect(json(resent)).toEqual({ success: true, messageId: msg.id, status: "pending" });
      const until = Date.now() + 5000;
      while (heard.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(heard).toContain(conv.id);
    } finally {
      stop();
    }
  });

  it("streams a conversation event over SSE when a message arrives through /v1", async () => {
    const { acc, browser } = await ownerBrowser(t);
    await t.parley.app.listen({ port: 0, host: "127.0.0.1" });
    const port = (t.parley.app.server.address() as AddressInfo).port;
    const events: string[] = [];
    let resolveFirst: () => void = () => {};
    const gotEvent = new Promise<void>((resolve) => {
      resolveFirst = resolve;
    });
    const req = http.get(
      { host: "127.0.0.1", port, path: "/app/api/events", headers: { cookie: browser.cookie } },
      (res) => {
        expect(res.statusCode).toBe(200);
        expect(res.headers["content-type"]).toMatch(/text\/event-stream/);
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          events.push(chunk);
          if (events.join("").includes("event: conversation")) resolveFirst();
        });
      },
    );
    try {
      // Connected (the first comment arrived) before the message is posted.
      const until = Date.now() + 5000;
      while (!events.join("").includes(": connected")) {
        if (Date.now() > until) throw new Error("SSE did not connect");
        await new Promise((r) => setTimeout(r, 10));
      }
      await incoming(acc.apiKey, { fromId: "live-1", body: "are you there?" });
      const conv = (await list(browser)).data[0] as Conv;
      await Promise.race([
        gotEvent,
        new Promise((_, reject) => setTimeout(() => reject(new Error("no SSE event")), 5000)),
      ]);
      const line = `event: conversation\ndata: {"conversationId":"${conv.id}"}`;
      expect(events.join("")).toContain(line);
      // A known sender's next message takes PostgreSQL's batched path: it must be streamed as well.
      events.length = 0;
      await incoming(acc.apiKey, { fromId: "live-1", body: "hello again?" });
      const until2 = Date.now() + 5000;
      while (!events.join("").includes(line)) {
        if (Date.now() > until2) throw new Error("no SSE event for the second message");
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(events.join("")).toContain(line);
    } finally {
      req.destroy();
    }
  });
});

// Notifications (issue 35): the bell, e-mail digests through a local SMTP server (stand-ins/smtp.ts),
// the account events webhook, preferences. Through the real HTTP server and worker (started, polling
// every 20 ms), on SQLite or PostgreSQL (DATABASE_URL). Each scenario has its own account.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { type Browser, signIn, teammate } from "./app-helpers.ts";
import { callWithKey, json, newAgency, startTestApp, type TestApp } from "./helpers.ts";
import { type Receiver, startReceiver } from "./receiver.ts";
import { type SmtpStandIn, startSmtpStandIn } from "./stand-ins/smtp.ts";

const UNANSWERABLE = "zebra quantum marmalade";
const DIGEST_SECONDS = 3;

interface Bell {
  data: {
    id: string;
    kind: string;
    title: string;
    body: string;
    link: string | null;
    readAt: string | null;
  }[];
  unreadCount: number;
  nextCursor: string | null;
}

let t: TestApp;
let smtp: SmtpStandIn;
let events: Receiver;
let seq = 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

async function emailOf(t: TestApp, userId: string): Promise<string> {
  const row = await t.parley.db.kysely
    .selectFrom("users")
    .select("email")
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  return row.email;
}

/** An account whose owner is signed in, with an agent teammate and the events webhook on the receiver. */
async function team(credits = 100, app: TestApp = t) {
  const acc = await app.account({ credits });
  const ownerEmail = await emailOf(app, acc.userId);
  const owner = await signIn(app, ownerEmail);
  const agent = await teammate(app, owner, "agent", "Sam Agent");
  await updateSettings(app.parley.db, acc.accountId, {
    events_webhook_url: `${events.url}/${acc.accountId}`,
  });
  return { acc, owner, ownerEmail, agent, agentEmail: agent.session.user.email.toLowerCase() };
}

/** A customer message the default campaign cannot answer: the bot falls back and raises the alert. */
async function unanswerable(apiKey: string, app: TestApp = t) {
  const from = `+1555${String(++seq).padStart(7, "0")}`;
  const res = await callWithKey(app, "POST", "/v1/incoming_custom_channel_message", apiKey, {
    customData: {
      messageSid: `sid-${seq}-${Date.now()}`,
      fromId: from,
      toId: "shop",
      channel: "sms",
      body: UNANSWERABLE,
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res;
}

async function bell(b: Browser, query = ""): Promise<Bell> {
  const res = await b.req({ method: "GET", url: `/app/api/notifications${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return json<Bell>(res);
}

/** The ids of the account events recorded for an account. */
async function eventsOf(accountId: string): Promise<string[]> {
  const rows = await t.parley.db.kysely
    .selectFrom("events")
    .select("id")
    .where("account_id", "=", accountId)
    .execute();
  return rows.map((r) => r.id);
}

const mailsTo = (address: string) => smtp.messages.filter((m) => m.to.includes(address.toLowerCase()));

beforeAll(async () => {
  smtp = await startSmtpStandIn();
  events = await startReceiver();
  t = await startTestApp({
    SMTP_URL: smtp.url,
    SMTP_FROM: "Parley <parley@example.com>",
    NOTIFICATION_DIGEST_SECONDS: String(DIGEST_SECONDS),
    NOTIFICATION_GATHER_SECONDS: "0",
    DELIVERY_HEALTH_CHECK_SECONDS: "1",
    DELIVERY_RETRY_SCHEDULE: "0.05,0.05,0.05,0.05,0.05,0.05",
    PUBLIC_URL: "https://parley.example.com",
  });
  t.parley.worker.start();
}, 60_000);

afterAll(async () => {
  await t?.close();
  await smtp?.close();
  await events?.close();
});

describe("notifications", () => {
  it("a conversation that needs a human: the team gets the bell and one e-mail each, the events webhook the event", async () => {
    const { acc, owner, ownerEmail, agent, agentEmail } = await team();
    await unanswerable(acc.apiKey);

    const ownerBell = await until("the owner's bell", async () => {
      const b = await bell(owner);
      return b.data.length > 0 && b;
    });
    expect(ownerBell.unreadCount).toBe(1);
    const n = ownerBell.data[0]!;
    expect(n).toMatchObject({ kind: "conversation.human_alert", readAt: null });
    expect(n.title).toMatch(/needs a human$/);
    expect(n.body).toBe("The bot had no answer to the customer's question.");
    expect(n.link).toMatch(/^\/inbox\/cv_/);
    expect((await bell(agent)).data.map((x) => x.kind)).toEqual(["conversation.human_alert"]);

    const mail = await smtp.waitFor((m) => m.to.includes(ownerEmail) && /needs a human/.test(m.subject));
    expect(mail.from).toBe("parley@example.com");
    expect(mail.text).toContain("The bot had no answer");
    expect(mail.text).toContain(`https://parley.example.com${n.link}`);
    await smtp.waitFor((m) => m.to.includes(agentEmail) && /needs a human/.test(m.subject));

    const [eventId] = await until("the account event", async () => {
      const ids = await eventsOf(acc.accountId);
      return ids.length > 0 && ids;
    });
    const event = await until("the events webhook", async () =>
      events.received.find((r) => r.headers["webhook-id"] === eventId),
    );
    const body = JSON.parse(event.body) as Record<string, unknown>;
    expect(body).toMatchObject({ type: "conversation.human_alert", reason: "no_answer" });
    expect(event.headers["webhook-signature"]).toMatch(/^v1,/);
    // One e-mail each, and it stays one.
    await sleep(300);
    expect(mailsTo(ownerEmail).filter((m) => /needs a human/.test(m.subject))).toHaveLength(1);
  });

  it("each person's preferences choose the medium: e-mail off keeps the bell, the bell off keeps the e-mail", async () => {
    const { acc, owner, ownerEmail, agent, agentEmail } = await team();
    let res = await agent.req({
      method: "PUT",
      url: "/app/api/notification-preferences",
      payload: { preferences: { "conversation.human_alert": { email: false } } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(
      json<{ preferences: Record<string, unknown> }>(res).preferences["conversation.human_alert"],
    ).toEqual({
      email: false,
      app: true,
    });
    res = await owner.req({
      method: "PUT",
      url: "/app/api/notification-preferences",
      payload: { preferences: { "conversation.human_alert": { app: false } } },
    });
    expect(res.statusCode, res.body).toBe(200);

    await unanswerable(acc.apiKey);
    await until("the agent's bell", async () => (await bell(agent)).data.length === 1);
    await smtp.waitFor((m) => m.to.includes(ownerEmail) && /needs a human/.test(m.subject));
    await sleep(DIGEST_SECONDS * 1000 + 500);
    expect(mailsTo(agentEmail).filter((m) => /needs a human/.test(m.subject))).toHaveLength(0);
    expect((await bell(owner)).data).toHaveLength(0);
  });

  it("refuses bad preferences with a 400 naming the field, and changes nothing", async () => {
    const { owner, agent } = await team();
    const before = await owner.req({ method: "GET", url: "/app/api/notification-preferences" });
    for (const preferences of [
      { "conversation.nope": { email: false } },
      { "credits.low": { sms: true } },
      { "credits.low": { email: "yes" } },
      { "credits.low": true },
    ]) {
      const res = await owner.req({
        method: "PUT",
        url: "/app/api/notification-preferences",
        payload: { preferences },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(json<{ error: { code: string; message: string } }>(res).error).toMatchObject({
        code: "VALIDATION_ERROR",
      });
      expect(json<{ error: { message: string } }>(res).error.message).toMatch(/preferences/);
    }
    const after = await owner.req({ method: "GET", url: "/app/api/notification-preferences" });
    expect(after.body).toBe(before.body);
    // The account's defaults are for owners and admins only.
    const refused = await agent.req({
      method: "PUT",
      url: "/app/api/settings/notifications",
      payload: { creditsLowThreshold: 5 },
    });
    expect(refused.statusCode).toBe(403);
    const bad = await owner.req({
      method: "PUT",
      url: "/app/api/settings/notifications",
      payload: { creditsLowThreshold: 1.234 },
    });
    expect(bad.statusCode).toBe(400);
  });

  it("the account's defaults apply to everyone who has not chosen", async () => {
    const { acc, owner, agent, agentEmail } = await team();
    const res = await owner.req({
      method: "PUT",
      url: "/app/api/settings/notifications",
      payload: { defaults: { "conversation.human_alert": { email: false } } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(json<{ defaults: Record<string, unknown> }>(res).defaults["conversation.human_alert"]).toEqual({
      email: false,
      app: true,
    });
    const mine = json<{ preferences: Record<string, unknown> }>(
      await agent.req({ method: "GET", url: "/app/api/notification-preferences" }),
    );
    expect(mine.preferences["conversation.human_alert"]).toEqual({ email: false, app: true });
    await unanswerable(acc.apiKey);
    await until("the agent's bell", async () => (await bell(agent)).data.length === 1);
    await sleep(1000);
    expect(mailsTo(agentEmail).filter((m) => /needs a human/.test(m.subject))).toHaveLength(0);
    expect((await bell(owner)).data).toHaveLength(1);
  });

  it("a storm of 100 alerts is one e-mail per person that lists them all", async () => {
    // Gathered for a minute after the first alert; once the 100 are raised the test moves the clock
    // on (the rows' times and the digest job's run_at), so a slow machine cannot split the storm.
    const storm = await startTestApp({
      SMTP_URL: smtp.url,
      NOTIFICATION_GATHER_SECONDS: "60",
      NOTIFICATION_DIGEST_SECONDS: String(DIGEST_SECONDS),
      PUBLIC_URL: "https://parley.example.com",
    });
    try {
      storm.parley.worker.start();
      const { acc, owner, ownerEmail, agentEmail } = await team(100, storm);
      for (let i = 0; i < 100; i++) await unanswerable(acc.apiKey, storm);
      await until(
        "100 bell notifications",
        async () => (await bell(owner, "?limit=100")).unreadCount === 100,
        30_000,
      );
      const isStorm = (m: { subject: string }) => /need(s)? a human/.test(m.subject);
      // Nothing yet: the minute has not passed. Then the clock moves on by that minute.
      await sleep(300);
      expect(mailsTo(ownerEmail).filter(isStorm)).toHaveLength(0);
      const db = storm.parley.db.kysely;
      await db
        .updateTable("notification_emails")
        .set((eb) => ({ created_at: eb("created_at", "-", 60_000) }))
        .where("account_id", "=", acc.accountId)
        .execute();
      await db
        .updateTable("jobs")
        .set({ run_at: Date.now() })
        .where("account_id", "=", acc.accountId)
        .where("type", "=", "notifications.digest")
        .execute();
      const mail = await smtp.waitFor((m) => m.to.includes(ownerEmail) && isStorm(m), 30_000);
      expect(mail.subject).toBe("100 conversations need a human");
      expect(mail.text).toContain("100 conversations need a human since the last e-mail:");
      expect(mail.text.match(/^- /gm)).toHaveLength(20);
      expect(mail.text).toContain("and 80 more.");
      const agentMail = await smtp.waitFor((m) => m.to.includes(agentEmail) && isStorm(m), 10_000);
      expect(agentMail.subject).toBe("100 conversations need a human");
      await sleep(DIGEST_SECONDS * 1000 + 500);
      expect(mailsTo(ownerEmail).filter(isStorm)).toHaveLength(1);
      expect(mailsTo(agentEmail).filter(isStorm)).toHaveLength(1);
    } finally {
      await storm.close();
    }
  }, 90_000);

  it("assigning a conversation tells the assignee, not the person who assigned it", async () => {
    const { acc, owner, agent, agentEmail } = await team();
    await unanswerable(acc.apiKey);
    const alert = await until("the alert", async () => (await bell(agent)).data[0]);
    const conversationId = alert.link?.split("/inbox/")[1] as string;
    await owner.req({ method: "POST", url: "/app/api/notifications/read", payload: {} });
    await agent.req({ method: "POST", url: "/app/api/notifications/read", payload: {} });

    const res = await owner.req({
      method: "PATCH",
      url: `/app/api/conversations/${conversationId}`,
      payload: { assigneeId: agent.session.user.id },
    });
    expect(res.statusCode, res.body).toBe(200);
    const n = await until("the assignee's notification", async () =>
      (await bell(agent)).data.find((x) => x.kind === "conversation.assigned"),
    );
    expect(n.title).toMatch(/assigned you a conversation/);
    expect(n.link).toBe(`/inbox/${conversationId}`);
    await smtp.waitFor((m) => m.to.includes(agentEmail) && /assigned you a conversation/.test(m.subject));
    // Assigning it to them again, or to oneself, tells nobody.
    await owner.req({
      method: "PATCH",
      url: `/app/api/conversations/${conversationId}`,
      payload: { assigneeId: agent.session.user.id },
    });
    await owner.req({
      method: "PATCH",
      url: `/app/api/conversations/${conversationId}`,
      payload: { assigneeId: owner.session.user.id },
    });
    await sleep(300);
    expect((await bell(agent)).data.filter((x) => x.kind === "conversation.assigned")).toHaveLength(1);
    expect((await bell(owner)).unreadCount).toBe(0);
  });

  it("the bell pages, marks one or all read, and never touches another person's", async () => {
    const { acc, owner, agent } = await team();
    for (let i = 0; i < 3; i++) await unanswerable(acc.apiKey);
    await until("three alerts", async () => (await bell(owner)).unreadCount === 3);
    const first = await bell(owner, "?limit=2");
    expect(first.data).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const second = await bell(owner, `?limit=2&before=${first.nextCursor}`);
    expect(second.data).toHaveLength(1);
    expect(second.nextCursor).toBeNull();

    // The agent's ids sent by the owner change nothing.
    const agentIds = (await bell(agent)).data.map((x) => x.id);
    let res = await owner.req({
      method: "POST",
      url: "/app/api/notifications/read",
      payload: { ids: agentIds },
    });
    expect(res.statusCode).toBe(204);
    expect((await bell(agent)).unreadCount).toBe(3);

    res = await owner.req({
      method: "POST",
      url: "/app/api/notifications/read",
      payload: { ids: [first.data[0]!.id] },
    });
    expect(res.statusCode).toBe(204);
    const after = await bell(owner);
    expect(after.unreadCount).toBe(2);
    expect(after.data.find((x) => x.id === first.data[0]!.id)?.readAt).not.toBeNull();
    res = await owner.req({ method: "POST", url: "/app/api/notifications/read", payload: {} });
    expect((await bell(owner)).unreadCount).toBe(0);
    expect((await bell(agent)).unreadCount).toBe(3);
    // Signed out: 401.
    const anon = await t.inject({ method: "GET", url: "/app/api/notifications" });
    expect(anon.statusCode).toBe(401);
  });

  it("credits falling below the threshold warn the owners and admins once, and the agency for its client", async () => {
    const { acc, owner, agent } = await team(3);
    await owner.req({
      method: "PUT",
      url: "/app/api/settings/notifications",
      payload: { creditsLowThreshold: 2 },
    });
    // A metered account: each bot reply costs one credit (3 → 2 → 1 → 0 crosses 2 once).
    const metered = await startTestApp({
      SMTP_URL: smtp.url,
      BOT_METERING: "all",
      BOT_REPLY_COST: "1",
      NOTIFICATION_DIGEST_SECONDS: String(DIGEST_SECONDS),
      NOTIFICATION_GATHER_SECONDS: "0",
    });
    try {
      metered.parley.worker.start();
      const shop = await metered.account({ credits: 3 });
      const shopOwner = await signIn(metered, await emailOf(metered, shop.userId));
      let res = await shopOwner.req({
        method: "PUT",
        url: "/app/api/settings/notifications",
        payload: { creditsLowThreshold: 2 },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(json<{ creditsLowThreshold: number }>(res).creditsLowThreshold).toBe(2);
      await updateSettings(metered.parley.db, shop.accountId, { webhook_url: events.url });
      for (const body of ["hello", "hi there", "good morning"]) {
        res = await callWithKey(metered, "POST", "/v1/incoming_custom_channel_message", shop.apiKey, {
          customData: { messageSid: `c-${++seq}`, fromId: `+1666${seq}`, toId: "shop", channel: "sms", body },
        });
        expect(res.statusCode).toBe(200);
      }
      const warn = await until("the low-credits warning", async () => {
        const r = await shopOwner.req({ method: "GET", url: "/app/api/notifications" });
        return json<Bell>(r).data.find((x) => x.kind === "credits.low");
      });
      expect(warn.title).toMatch(/^Credits are low: 1\.00 left$/);
      await sleep(500);
      const all = json<Bell>(await shopOwner.req({ method: "GET", url: "/app/api/notifications" })).data;
      expect(all.filter((x) => x.kind === "credits.low")).toHaveLength(1);

      // An agency's threshold watches its clients too.
      const agency = await newAgency(metered);
      const agencyOwner = await signIn(metered, agency.email);
      await agencyOwner.req({
        method: "PUT",
        url: "/app/api/settings/notifications",
        payload: { creditsLowThreshold: 1.5 },
      });
      const client = await metered.account({
        kind: "subaccount",
        parentAccountId: agency.accountId,
        credits: 2,
        name: "ACME",
      });
      await updateSettings(metered.parley.db, client.accountId, { webhook_url: events.url });
      res = await callWithKey(metered, "POST", "/v1/incoming_custom_channel_message", client.apiKey, {
        customData: {
          messageSid: `c-${++seq}`,
          fromId: "+16660001",
          toId: "shop",
          channel: "sms",
          body: "hello",
        },
      });
      const agencyWarn = await until("the agency's warning", async () => {
        const r = await agencyOwner.req({ method: "GET", url: "/app/api/notifications" });
        return json<Bell>(r).data.find((x) => x.kind === "credits.low");
      });
      expect(agencyWarn.title).toBe("ACME is low on credits: 1.00 left");
      expect(agencyWarn.link).toBe(`/agency/${client.accountId}`);
    } finally {
      await metered.close();
    }
    // The agent of the first team is not a manager: nothing about credits there.
    expect((await bell(agent)).data.filter((x) => x.kind === "credits.low")).toHaveLength(0);
    expect(acc.accountId).toBeTruthy();
  }, 60_000);

  it("an outgoing campaign that finishes, or is paused, tells the owners and admins", async () => {
    const { acc, owner, agent } = await team();
    await updateSettings(t.parley.db, acc.accountId, { webhook_url: `${events.url}/replies` });
    const call = (method: "POST" | "GET", url: string, body?: unknown) =>
      callWithKey(t, method, url, acc.apiKey, body);
    const list = json<{ id: string }>(await call("POST", "/v1/lists", { name: "Spring" }));
    for (const phone of ["+14155550101", "+14155550102"]) {
      const c = json<{ id: string }>(await call("POST", "/v1/contacts", { firstName: "Ann", phone }));
      await call("POST", `/v1/lists/${list.id}/contacts`, { contactId: c.id });
    }
    const made = await call("POST", "/v1/campaigns", {
      name: "Spring sale",
      status: "live",
      outgoing: { message: "Hi {{firstName}}!", listId: list.id, channel: "sms", ratePerMinute: 6000 },
    });
    expect(made.statusCode, made.body).toBe(201);
    const campaignId = json<{ id: string }>(made).id;
    expect((await call("POST", `/v1/campaigns/${campaignId}/start`)).statusCode).toBe(200);
    const done = await until("the finished notification", async () =>
      (await bell(owner)).data.find((x) => x.kind === "campaign.finished"),
    );
    expect(done).toMatchObject({ title: '"Spring sale" finished', link: `/campaigns/${campaignId}` });
    expect((await bell(agent)).data.filter((x) => x.kind === "campaign.finished")).toHaveLength(0);

    // Started again and paused at once (a slow rate keeps it running): the pause is told too.
    const slow = await call("POST", "/v1/campaigns", {
      name: "Slow sale",
      status: "live",
      outgoing: { message: "Hi slow", listId: list.id, channel: "sms", ratePerMinute: 1 },
    });
    const slowId = json<{ id: string }>(slow).id;
    await call("POST", `/v1/campaigns/${slowId}/start`);
    expect((await call("POST", `/v1/campaigns/${slowId}/pause`)).statusCode).toBe(200);
    const paused = await until("the paused notification", async () =>
      (await bell(owner)).data.find((x) => x.kind === "campaign.paused"),
    );
    expect(paused.title).toBe('"Slow sale" was paused');
  });

  it("a webhook that keeps failing warns the owners once, and the events webhook gets delivery.failing", async () => {
    const failing = await startReceiver((res) => {
      res.writeHead(500);
      res.end("down");
    });
    try {
      const { acc, owner, agent } = await team();
      await updateSettings(t.parley.db, acc.accountId, { webhook_url: failing.url });
      // Replies to 3 customers: 3 messages × up to 7 attempts, all refused.
      for (let i = 0; i < 3; i++) {
        await callWithKey(t, "POST", "/v1/incoming_custom_channel_message", acc.apiKey, {
          customData: {
            messageSid: `f-${++seq}`,
            fromId: `+1777${seq}`,
            toId: "shop",
            channel: "sms",
            body: "hello",
          },
        });
      }
      const n = await until(
        "the failing warning",
        async () => (await bell(owner)).data.find((x) => x.kind === "delivery.failing"),
        15_000,
      );
      const host = new URL(failing.url).host;
      expect(n.title).toBe(`Deliveries to ${host} keep failing`);
      // Owners and admins only, and once (the check runs every second).
      await sleep(2500);
      expect((await bell(owner)).data.filter((x) => x.kind === "delivery.failing")).toHaveLength(1);
      expect((await bell(agent)).data.filter((x) => x.kind === "delivery.failing")).toHaveLength(0);
      const event = await until("the delivery.failing event", async () =>
        events.received.find((r) => r.body.includes('"delivery.failing"') && r.body.includes(failing.url)),
      );
      expect(JSON.parse(event.body)).toMatchObject({ type: "delivery.failing", url: failing.url });
    } finally {
      await failing.close();
    }
  }, 30_000);
});

describe("outside business hours", () => {
  it("a needs-a-human alert shows in the inbox at once, but tells people at the next opening", async () => {
    const { acc, owner, ownerEmail } = await team();
    // Open all week in UTC, except today, a holiday: the next opening is tomorrow at 00:00 UTC.
    const today = new Date().toISOString().slice(0, 10);
    const allDay = [{ open: "00:00", close: "24:00" }];
    const days = Object.fromEntries(
      ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"].map((d) => [d, allDay]),
    );
    const res = await callWithKey(t, "PUT", "/v1/account/business-hours", acc.apiKey, {
      businessHours: { timezone: "UTC", days, holidays: [today] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const tomorrow = Date.parse(`${today}T00:00:00Z`) + 86_400_000;

    await unanswerable(acc.apiKey);
    const held = await until("the held notification", async () => {
      const rows = await t.parley.db.kysely
        .selectFrom("jobs")
        .select(["run_at", "payload"])
        .where("account_id", "=", acc.accountId)
        .where("type", "=", "notifications.notify")
        .execute();
      return rows[0];
    });
    expect(Number(held.run_at)).toBe(tomorrow);
    expect(JSON.parse(held.payload)).toMatchObject({ kind: "conversation.human_alert" });
    const conversation = await t.parley.db.kysely
      .selectFrom("conversations")
      .select("human_alert")
      .where("account_id", "=", acc.accountId)
      .executeTakeFirstOrThrow();
    expect(conversation.human_alert).toBe(1);
    await sleep(500);
    expect((await bell(owner)).data).toHaveLength(0);
    expect(mailsTo(ownerEmail).filter((m) => /needs a human/.test(m.subject))).toHaveLength(0);
    expect(await eventsOf(acc.accountId)).toEqual([]);
  });
});

describe("e-mail when the SMTP server fails", () => {
  it("retries a refused e-mail until it goes out, while requests answer at once", async () => {
    const flaky = await startSmtpStandIn({ refuseFirst: 2 });
    const app = await startTestApp({
      SMTP_URL: flaky.url,
      NOTIFICATION_DIGEST_SECONDS: "1",
      NOTIFICATION_GATHER_SECONDS: "0",
    });
    try {
      app.parley.worker.start();
      const acc = await app.account({ credits: 10 });
      const ownerEmail = (await emailOf(app, acc.userId)).toLowerCase();
      const started = Date.now();
      const res = await callWithKey(app, "POST", "/v1/incoming_custom_channel_message", acc.apiKey, {
        customData: {
          messageSid: `s-${++seq}`,
          fromId: "+18880001",
          toId: "shop",
          channel: "sms",
          body: UNANSWERABLE,
        },
      });
      expect(res.statusCode).toBe(200);
      const answeredIn = Date.now() - started;
      const mail = await flaky.waitFor((m) => m.to.includes(ownerEmail), 20_000);
      expect(mail.subject).toMatch(/needs a human$/);
      // The request did not wait for the two refusals and their retries (1 s, then 2 s apart).
      expect(answeredIn).toBeLessThan(Date.now() - started);
      // The job ends once the worker has recorded the send, a moment after the server took the mail.
      await expect
        .poll(
          async () =>
            (
              await app.parley.db.kysely
                .selectFrom("jobs")
                .select("id")
                .where("type", "=", "email.send")
                .execute()
            ).length,
          { timeout: 10_000 },
        )
        .toBe(0);
      expect(flaky.messages.filter((m) => m.to.includes(ownerEmail))).toHaveLength(1);
    } finally {
      await app.close();
      await flaky.close();
    }
  }, 40_000);
});

// Business hours (issue 35, docs/automation.md): the account's hours (time zone, weekdays, holidays),
// their arithmetic across daylight-saving changes and holidays, the API and its web app twin, and what
// campaigns do outside them, end to end through the real worker (started, polling every 20 ms): the
// away message once per closed period, the bot answering when open, a follow-up and an outgoing
// campaign held until the opening. "Closed now" is a holiday today (UTC): the next opening is
// tomorrow's midnight, whatever the time the test runs.
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  type BusinessHours,
  formatOpeningTime,
  isOpen,
  nextOpening,
  validateBusinessHours,
} from "../src/modules/accounts/business-hours.ts";
import { updateSettings } from "../src/modules/accounts/service.ts";
import type { MessageRow } from "../src/platform/db/schema.ts";
import { type Browser, signIn, teammate } from "./app-helpers.ts";
import { balanceOf, json, startTestApp, type TestApp } from "./helpers.ts";
import { type Receiver, startReceiver } from "./receiver.ts";

const KNOWLEDGE = [{ question: "Do you deliver?", answer: "Yes, we deliver every day." }];
const ASK = "do you deliver?";
const AWAY = "We are closed, {{firstName|friend}}. We open {{openingTime}}.";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const at = (isoTime: string) => Date.parse(isoTime);
const iso = (ms: number) => new Date(ms).toISOString();

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const weekdays = (ranges: { open: string; close: string }[]) => ({
  monday: ranges,
  tuesday: ranges,
  wednesday: ranges,
  thursday: ranges,
  friday: ranges,
});
const NINE_TO_FIVE = weekdays([{ open: "09:00", close: "17:00" }]);
const ALL_DAY = [{ open: "00:00", close: "24:00" }];
const ALWAYS = {
  timezone: "UTC",
  days: { ...weekdays(ALL_DAY), saturday: ALL_DAY, sunday: ALL_DAY },
};
const today = () => iso(Date.now()).slice(0, 10);
const tomorrow = () => iso(Date.now() + 86_400_000).slice(0, 10);
/** Open every day but closed today (a holiday): the next opening is tomorrow 00:00 UTC. */
const closedToday = () => ({ ...ALWAYS, holidays: [today()] });

// --- The arithmetic (no database) ---

describe("business hours arithmetic", () => {
  it("no hours set: always open", ({ expect }) => {
    const now = Date.now();
    expect(isOpen(null, now)).toBe(true);
    expect(nextOpening(null, now)).toBe(now);
    expect(formatOpeningTime(null, now)).toBe("now");
  });

  it("Europe/Berlin across the spring change (2026-03-29): 09:00 is 08:00 UTC before it, 07:00 UTC after", ({
    expect,
  }) => {
    const berlin = validateBusinessHours({ timezone: "Europe/Berlin", days: NINE_TO_FIVE });
    // Friday before the change: CET, UTC+1.
    expect(isOpen(berlin, at("2026-03-27T07:59:59Z"))).toBe(false);
    expect(isOpen(berlin, at("2026-03-27T08:00:00Z"))).toBe(true);
    expect(isOpen(berlin, at("2026-03-27T15:59:59Z"))).toBe(true);
    expect(isOpen(berlin, at("2026-03-27T16:00:00Z"))).toBe(false);
    // Closed over the weekend; Monday's 09:00 is CEST, UTC+2.
    expect(iso(nextOpening(berlin, at("2026-03-27T16:00:00Z")))).toBe("2026-03-30T07:00:00.000Z");
    expect(formatOpeningTime(berlin, at("2026-03-27T16:00:00Z"))).toBe("Monday 09:00");
    expect(isOpen(berlin, at("2026-03-30T06:59:59Z"))).toBe(false);
    expect(isOpen(berlin, at("2026-03-30T07:00:00Z"))).toBe(true);
    expect(isOpen(berlin, at("2026-03-30T14:59:59Z"))).toBe(true);
    expect(isOpen(berlin, at("2026-03-30T15:00:00Z"))).toBe(false);
    // A night shift through the change: Saturday 22:00–24:00, Sunday 00:00–04:00 (local 04:00 is 02:00 UTC).
    const night = validateBusinessHours({
      timezone: "Europe/Berlin",
      days: { saturday: [{ open: "22:00", close: "24:00" }], sunday: [{ open: "00:00", close: "04:00" }] },
    });
    expect(isOpen(night, at("2026-03-28T20:59:00Z"))).toBe(false);
    expect(isOpen(night, at("2026-03-28T21:00:00Z"))).toBe(true);
    expect(isOpen(night, at("2026-03-29T01:30:00Z"))).toBe(true);
    expect(isOpen(night, at("2026-03-29T02:00:00Z"))).toBe(false);
    expect(iso(nextOpening(night, at("2026-03-29T02:00:00Z")))).toBe("2026-04-04T20:00:00.000Z");
  });

  it("America/New_York across the autumn change (2026-11-01): Friday's 09:00 is 13:00 UTC, Monday's 14:00 UTC", ({
    expect,
  }) => {
    const ny = validateBusinessHours({ timezone: "America/New_York", days: NINE_TO_FIVE });
    expect(isOpen(ny, at("2026-10-30T13:00:00Z"))).toBe(true);
    expect(isOpen(ny, at("2026-10-30T21:00:00Z"))).toBe(false);
    expect(iso(nextOpening(ny, at("2026-10-30T21:00:00Z")))).toBe("2026-11-02T14:00:00.000Z");
    expect(isOpen(ny, at("2026-11-02T13:59:59Z"))).toBe(false);
    expect(isOpen(ny, at("2026-11-02T14:00:00Z"))).toBe(true);
    expect(isOpen(ny, at("2026-11-02T21:59:59Z"))).toBe(true);
    expect(isOpen(ny, at("2026-11-02T22:00:00Z"))).toBe(false);
    // 01:30 happens twice that night: it counts the second time (EST, 06:30 UTC).
    const early = validateBusinessHours({
      timezone: "America/New_York",
      days: { sunday: [{ open: "01:30", close: "03:00" }] },
    });
    expect(iso(nextOpening(early, at("2026-11-01T04:00:00Z")))).toBe("2026-11-01T06:30:00.000Z");
  });

  it("a holiday is closed all day in the account's zone, and the next opening skips it", ({ expect }) => {
    const berlin = validateBusinessHours({
      timezone: "Europe/Berlin",
      days: NINE_TO_FIVE,
      holidays: ["2026-04-03", "2026-04-06"], // Good Friday, Easter Monday
    });
    expect(isOpen(berlin, at("2026-04-02T10:00:00Z"))).toBe(true);
    expect(isOpen(berlin, at("2026-04-03T10:00:00Z"))).toBe(false);
    expect(isOpen(berlin, at("2026-04-06T10:00:00Z"))).toBe(false);
    // Thursday after closing: Friday and Monday are holidays, the next opening is Tuesday 09:00 CEST.
    expect(iso(nextOpening(berlin, at("2026-04-02T15:00:00Z")))).toBe("2026-04-07T07:00:00.000Z");
    expect(formatOpeningTime(berlin, at("2026-04-02T15:00:00Z"))).toBe("Tuesday 09:00");
    // The holiday is the local date: 23:30 UTC on the 2nd is already the 3rd in Berlin.
    const late = validateBusinessHours({
      timezone: "Europe/Berlin",
      days: { ...weekdays(ALL_DAY) },
      holidays: ["2026-04-03"],
    });
    expect(isOpen(late, at("2026-04-02T21:59:00Z"))).toBe(true);
    expect(isOpen(late, at("2026-04-02T22:00:00Z"))).toBe(false);
    // A week or more away, the date is written too.
    const rare = validateBusinessHours({
      timezone: "UTC",
      days: { monday: [{ open: "10:00", close: "11:00" }] },
      holidays: ["2026-04-06"],
    });
    expect(formatOpeningTime(rare, at("2026-04-06T09:00:00Z"))).toBe("Monday 13 April 10:00");
  });
});

// --- Through the server ---

interface Shop {
  t: TestApp;
  accountId: string;
  apiKey: string;
  campaignId: string;
  browser: Browser;
}

let app: TestApp;
let receiver: Receiver;
let seq = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startTestApp({ BOT_METERING: "all" });
  app.parley.worker.start();
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

function call(shop: Shop, method: "GET" | "POST" | "PATCH" | "PUT", url: string, payload?: unknown) {
  return shop.t.inject({
    method,
    url,
    headers: { "x-api-key": shop.apiKey },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function ok<T = Record<string, unknown>>(
  shop: Shop,
  method: "GET" | "POST" | "PATCH" | "PUT",
  url: string,
  payload?: unknown,
): Promise<T> {
  const res = await call(shop, method, url, payload);
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return json<T>(res);
}

/** An account with 100 credits, its webhook on the receiver, its owner signed in. */
async function shopWith(campaign: Record<string, unknown> = {}): Promise<Shop> {
  const acc = await app.account({ credits: 100 });
  const user = await app.parley.db.kysely
    .selectFrom("users")
    .select("email")
    .where("id", "=", acc.userId)
    .executeTakeFirstOrThrow();
  await updateSettings(app.parley.db, acc.accountId, { webhook_url: receiver.url });
  const shop: Shop = {
    t: app,
    accountId: acc.accountId,
    apiKey: acc.apiKey,
    campaignId: "",
    browser: await signIn(app, user.email),
  };
  const page = await ok<{ data: { id: string; isDefault: boolean }[] }>(shop, "GET", "/v1/campaigns");
  shop.campaignId = page.data.find((c) => c.isDefault)!.id;
  await ok(shop, "PATCH", `/v1/campaigns/${shop.campaignId}`, { knowledge: KNOWLEDGE, ...campaign });
  return shop;
}

const setHours = (shop: Shop, businessHours: unknown) =>
  ok<HoursJson>(shop, "PUT", "/v1/account/business-hours", { businessHours });

interface HoursJson {
  businessHours: BusinessHours | null;
  openNow: boolean;
  nextOpening: string;
  openingTime: string;
}

async function say(shop: Shop, body: string, fromId: string, firstName?: string): Promise<string> {
  const res = await ok<{ messageId: string }>(shop, "POST", "/v1/incoming_custom_channel_message", {
    customData: {
      messageSid: `bh-${++seq}-${Date.now()}`,
      fromId,
      toId: "shop",
      channel: "webchat",
      body,
      ...(firstName ? { firstName } : {}),
    },
  });
  return res.messageId;
}

const botMessages = (shop: Shop, conversationId: string) =>
  shop.t.parley.db.kysely
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", shop.accountId)
    .where("conversation_id", "=", conversationId)
    .where("sender", "=", "bot")
    .orderBy("id")
    .execute();

const messageById = (shop: Shop, id: string) =>
  shop.t.parley.db.kysely
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", shop.accountId)
    .where("id", "=", id)
    .executeTakeFirstOrThrow();

/** Until the bot job of the inbound message has run (nothing of its kind queued or running). */
async function botDone(shop: Shop, inboundId: string): Promise<void> {
  await until("the bot job to run", async () => {
    const jobs = await shop.t.parley.db.kysely
      .selectFrom("jobs")
      .select("id")
      .where("type", "=", "bot.reply")
      .where("subject_id", "=", inboundId)
      .execute();
    return jobs.length === 0;
  });
}

async function conversationOf(shop: Shop, inboundId: string): Promise<string> {
  return (await messageById(shop, inboundId)).conversation_id;
}

describe.concurrent("business hours", () => {
  it("PUT/GET /v1/account/business-hours: saved normalised; a bad zone, time or overlap is 400 naming the field, and nothing changes", async ({
    expect,
  }) => {
    const shop = await shopWith();
    const unset = await ok<HoursJson>(shop, "GET", "/v1/account/business-hours");
    expect(unset).toMatchObject({ businessHours: null, openNow: true, openingTime: "now" });

    const saved = await setHours(shop, {
      timezone: "Europe/Berlin",
      days: {
        monday: [
          { open: "14:00", close: "18:00" },
          { open: "09:00", close: "12:30" },
        ],
        friday: [{ open: "09:00", close: "24:00" }],
      },
      holidays: ["2026-12-25", "2026-12-24", "2026-12-25"],
    });
    const expected = {
      timezone: "Europe/Berlin",
      days: {
        monday: [
          { open: "09:00", close: "12:30" },
          { open: "14:00", close: "18:00" },
        ],
        tuesday: [],
        wednesday: [],
        thursday: [],
        friday: [{ open: "09:00", close: "24:00" }],
        saturday: [],
        sunday: [],
      },
      holidays: ["2026-12-24", "2026-12-25"],
    };
    expect(saved.businessHours).toEqual(expected);
    expect(saved.openNow).toBe(isOpen(expected, Date.now()));

    const refused = async (businessHours: unknown, field: string) => {
      const res = await call(shop, "PUT", "/v1/account/business-hours", { businessHours });
      expect(res.statusCode, res.body).toBe(400);
      const error = json<{ error: { code: string; message: string } }>(res).error;
      expect(error.code).toBe("VALIDATION_ERROR");
      expect(error.message).toContain(field);
    };
    await refused({ timezone: "Mars/Olympus_Mons", days: NINE_TO_FIVE }, "timezone");
    await refused(
      { timezone: "Europe/Berlin", days: { monday: [{ open: "09:00", close: "25:00" }] } },
      "days.monday[0].close",
    );
    await refused(
      { timezone: "Europe/Berlin", days: { monday: [{ open: "9:00", close: "17:00" }] } },
      "days.monday[0].open",
    );
    await refused(
      { timezone: "Europe/Berlin", days: { monday: [{ open: "17:00", close: "09:00" }] } },
      "days.monday[0]",
    );
    await refused(
      {
        timezone: "Europe/Berlin",
        days: {
          tuesday: [
            { open: "09:00", close: "13:00" },
            { open: "12:00", close: "17:00" },
          ],
        },
      },
      "days.tuesday",
    );
    await refused({ timezone: "Europe/Berlin", days: NINE_TO_FIVE, holidays: ["2026-02-30"] }, "holidays[0]");
    await refused({ timezone: "Europe/Berlin", days: {} }, "days");
    await refused({ days: NINE_TO_FIVE }, "timezone");
    const after = await ok<HoursJson>(shop, "GET", "/v1/account/business-hours");
    expect(after.businessHours).toEqual(expected);

    // null clears them: always open.
    expect(await setHours(shop, null)).toMatchObject({ businessHours: null, openNow: true });
  });

  it("the web app's twins: owners and admins read and set them, agents may not", async ({ expect }) => {
    const shop = await shopWith();
    const put = await shop.browser.req({
      method: "PUT",
      url: "/app/api/settings/business-hours",
      payload: { businessHours: closedToday() },
    });
    expect(put.statusCode, put.body).toBe(200);
    const got = json<HoursJson>(
      await shop.browser.req({ method: "GET", url: "/app/api/settings/business-hours" }),
    );
    expect(got).toMatchObject({ openNow: false, nextOpening: `${tomorrow()}T00:00:00.000Z` });
    expect(got.businessHours?.holidays).toEqual([today()]);
    const bad = await shop.browser.req({
      method: "PUT",
      url: "/app/api/settings/business-hours",
      payload: { businessHours: { timezone: "Nowhere/City", days: NINE_TO_FIVE } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("timezone");
    const agent = await teammate(app, shop.browser, "agent");
    const denied = await agent.req({ method: "GET", url: "/app/api/settings/business-hours" });
    expect(denied.statusCode).toBe(403);
    const admin = await teammate(app, shop.browser, "admin");
    const cleared = await admin.req({
      method: "PUT",
      url: "/app/api/settings/business-hours",
      payload: { businessHours: null },
    });
    expect(json<HoursJson>(cleared).businessHours).toBeNull();
  });

  it("campaign fields: outsideHours, awayMessage (required for away, ≤ 1,000), followUpsInHours; refused changes nothing", async ({
    expect,
  }) => {
    const shop = await shopWith();
    const url = `/v1/campaigns/${shop.campaignId}`;
    expect(await ok(shop, "GET", url)).toMatchObject({
      outsideHours: "answer",
      awayMessage: null,
      followUpsInHours: false,
    });
    const noMessage = await call(shop, "PATCH", url, { outsideHours: "away" });
    expect(noMessage.statusCode).toBe(400);
    expect(noMessage.body).toContain("awayMessage");
    const tooLong = await call(shop, "PATCH", url, { outsideHours: "away", awayMessage: "x".repeat(1001) });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.body).toContain("awayMessage");
    expect(await ok(shop, "GET", url)).toMatchObject({ outsideHours: "answer", awayMessage: null });
    const saved = await ok(shop, "PATCH", url, {
      outsideHours: "away",
      awayMessage: `  ${AWAY}  `,
      followUpsInHours: true,
    });
    expect(saved).toMatchObject({ outsideHours: "away", awayMessage: AWAY, followUpsInHours: true });
    // Clearing the message of an away campaign is refused; through the web app too.
    const cleared = await shop.browser.req({
      method: "PATCH",
      url: `/app/api/campaigns/${shop.campaignId}`,
      payload: { awayMessage: null },
    });
    expect(cleared.statusCode).toBe(400);
    const viaApp = await shop.browser.req({
      method: "PATCH",
      url: `/app/api/campaigns/${shop.campaignId}`,
      payload: { outsideHours: "answer", followUpsInHours: false },
    });
    expect(json(viaApp)).toMatchObject({
      outsideHours: "answer",
      awayMessage: AWAY,
      followUpsInHours: false,
    });
    const created = await ok(shop, "POST", "/v1/campaigns", {
      name: "Nights",
      outsideHours: "away",
      awayMessage: "Back {{openingTime}}",
    });
    expect(created).toMatchObject({ outsideHours: "away", awayMessage: "Back {{openingTime}}" });
  });

  it("closed, with an away message: sent once per closed period (not again that period), paid as a bot reply, a human alert; open: the bot answers", async ({
    expect,
  }) => {
    const shop = await shopWith({ status: "live", outsideHours: "away", awayMessage: AWAY });
    const hours = await setHours(shop, closedToday());
    expect(hours).toMatchObject({ openNow: false, nextOpening: `${tomorrow()}T00:00:00.000Z` });
    const credits = await balanceOf(app, shop.accountId);

    const first = await say(shop, ASK, "night-1", "Nora");
    const conversationId = await conversationOf(shop, first);
    const [away] = (await until("the away message", async () => {
      const rows = await botMessages(shop, conversationId);
      return rows.length > 0 ? rows : undefined;
    })) as [MessageRow];
    const opening = Date.parse(`${tomorrow()}T00:00:00.000Z`);
    expect(away).toMatchObject({
      bot_outcome: "away",
      external_id: `away:${conversationId}:${opening}`,
      direction: "outbound",
      to_id: "night-1",
      campaign_id: shop.campaignId,
    });
    expect(away.body).toBe(
      `We are closed, Nora. We open ${formatOpeningTime(validateBusinessHours(closedToday()), Date.now())}.`,
    );
    // A second message in the same closed period: no second away message, no answer.
    const second = await say(shop, "hello again?", "night-1");
    await botDone(shop, second);
    expect((await botMessages(shop, conversationId)).map((m) => m.id)).toEqual([away.id]);
    // Delivered and paid like a bot reply (one credit, BOT_METERING=all); a person is alerted.
    await until(
      "the away message delivered",
      async () => (await messageById(shop, away.id)).status === "sent",
    );
    expect(await balanceOf(app, shop.accountId)).toBe(credits - 100);
    const conversation = await ok<{ humanAlert: boolean; humanAlertReason: string }>(
      shop,
      "GET",
      `/v1/conversations/${conversationId}`,
    );
    expect(conversation).toMatchObject({ humanAlert: true, humanAlertReason: "outside_hours" });

    // Another closed period (the next opening moves to the day after tomorrow): a new away message.
    await setHours(shop, { ...ALWAYS, holidays: [today(), tomorrow()] });
    const third = await say(shop, "anyone?", "night-1");
    await botDone(shop, third);
    const awayRows = (await botMessages(shop, conversationId)).filter((m) => m.bot_outcome === "away");
    expect(awayRows).toHaveLength(2);
    expect(awayRows[1]!.external_id).toBe(`away:${conversationId}:${opening + 86_400_000}`);

    // Open: the bot answers as usual.
    await setHours(shop, ALWAYS);
    const daytime = await say(shop, ASK, "night-1");
    const reply = await until("the bot's answer", () =>
      shop.t.parley.db.kysely
        .selectFrom("messages")
        .selectAll()
        .where("account_id", "=", shop.accountId)
        .where("external_id", "=", `bot:${daytime}`)
        .executeTakeFirst(),
    );
    expect(reply).toMatchObject({ bot_outcome: "answer", body: "Yes, we deliver every day." });
  });

  it("closed: three messages at once get one away message", async ({ expect }) => {
    const shop = await shopWith({ status: "live", outsideHours: "away", awayMessage: AWAY });
    await setHours(shop, closedToday());
    const first = await say(shop, "one", "rush-1");
    const more = await Promise.all([say(shop, "two", "rush-1"), say(shop, "three", "rush-1")]);
    for (const id of [first, ...more]) await botDone(shop, id);
    const rows = await botMessages(shop, await conversationOf(shop, first));
    expect(rows.map((m) => m.bot_outcome)).toEqual(["away"]);
  });

  it("closed, on a campaign that answers anyway (the default): the bot answers", async ({ expect }) => {
    const shop = await shopWith({ status: "live" });
    await setHours(shop, closedToday());
    const inbound = await say(shop, ASK, "owl-1");
    const reply = await until("the bot's answer", () =>
      shop.t.parley.db.kysely
        .selectFrom("messages")
        .selectAll()
        .where("account_id", "=", shop.accountId)
        .where("external_id", "=", `bot:${inbound}`)
        .executeTakeFirst(),
    );
    expect(reply.bot_outcome).toBe("answer");
  });

  it("a follow-up held to business hours waits for the opening, then goes out once", async ({ expect }) => {
    const shop = await shopWith({
      status: "live",
      followUpsInHours: true,
      followUps: [{ after: "PT1S", message: "Still there, {{firstName|friend}}? (open: {{openingTime}})" }],
    });
    await setHours(shop, closedToday());
    const inbound = await say(shop, ASK, "held-1", "Hal");
    const conversationId = await conversationOf(shop, inbound);
    const reply = await until("the bot's answer", () =>
      shop.t.parley.db.kysely
        .selectFrom("messages")
        .selectAll()
        .where("account_id", "=", shop.accountId)
        .where("external_id", "=", `bot:${inbound}`)
        .executeTakeFirst(),
    );
    const jobOf = () =>
      shop.t.parley.db.kysely
        .selectFrom("jobs")
        .select(["id", "status", "run_at"])
        .where("type", "=", "bot.follow_up")
        .where("subject_id", "=", reply.id)
        .executeTakeFirst();
    // Due after a second, but closed: the job is put back to the next opening, nothing is sent.
    const opening = Date.parse(`${tomorrow()}T00:00:00.000Z`);
    const held = await until("the follow-up held to the opening", async () => {
      const job = await jobOf();
      return job && job.status === "queued" && Number(job.run_at) === opening ? job : undefined;
    });
    expect((await botMessages(shop, conversationId)).filter((m) => m.bot_outcome === "follow_up")).toEqual(
      [],
    );
    // The opening comes (the hours open now, and the job's time is brought to now): sent once.
    await setHours(shop, ALWAYS);
    await shop.t.parley.db.kysely
      .updateTable("jobs")
      .set({ run_at: Date.now() })
      .where("id", "=", held.id)
      .execute();
    await until("the held job to run", async () => (await jobOf()) === undefined);
    const followUps = (await botMessages(shop, conversationId)).filter((m) => m.bot_outcome === "follow_up");
    expect(followUps).toHaveLength(1);
    expect(followUps[0]).toMatchObject({
      body: "Still there, Hal? (open: now)",
      external_id: `followup:${reply.id}:1`,
    });
  });

  it("an outgoing campaign held to business hours sends nothing while closed and resumes at the opening", async ({
    expect,
  }) => {
    const shop = await shopWith({ status: "live" });
    const list = await ok<{ id: string }>(shop, "POST", "/v1/lists", { name: "Held" });
    for (const fromId of ["out-1", "out-2"]) {
      const m = await messageById(shop, await say(shop, "hello", fromId, "Olga"));
      await ok(shop, "POST", `/v1/lists/${list.id}/contacts`, { contactId: m.contact_id });
    }
    await setHours(shop, closedToday());
    const campaign = await ok<{ id: string; outgoing: { onlyInHours: boolean } }>(
      shop,
      "POST",
      "/v1/campaigns",
      {
        name: "Held sale",
        status: "live",
        outgoing: {
          message: "Hi {{firstName|there}}, we are open {{openingTime}}",
          listId: list.id,
          channel: "sms",
          ratePerMinute: 6000,
          onlyInHours: true,
        },
      },
    );
    expect(campaign.outgoing.onlyInHours).toBe(true);
    await ok(shop, "POST", `/v1/campaigns/${campaign.id}/start`);
    const sendJob = () =>
      shop.t.parley.db.kysely
        .selectFrom("jobs")
        .select(["id", "run_at", "status"])
        .where("type", "=", "outgoing.send")
        .where("subject_id", "=", campaign.id)
        .executeTakeFirst();
    // The first tick finds the shop closed and comes back later (within a minute, to look again).
    const waiting = await until("the tick put off", async () => {
      const job = await sendJob();
      return job && job.status === "queued" && Number(job.run_at) > Date.now() + 30_000 ? job : undefined;
    });
    const firstMessages = () =>
      shop.t.parley.db.kysely
        .selectFrom("messages")
        .select(["body", "to_id"])
        .where("account_id", "=", shop.accountId)
        .where("campaign_id", "=", campaign.id)
        .where("direction", "=", "outbound")
        .execute();
    expect(await firstMessages()).toEqual([]);
    const stats = await ok<{ state: string; resumesAt: string | null; queued: number }>(
      shop,
      "GET",
      `/v1/campaigns/${campaign.id}/stats`,
    );
    expect(stats).toMatchObject({ state: "running", resumesAt: `${tomorrow()}T00:00:00.000Z`, queued: 2 });
    // Opening time: the tick runs and sends everyone.
    await setHours(shop, ALWAYS);
    await shop.t.parley.db.kysely
      .updateTable("jobs")
      .set({ run_at: Date.now() })
      .where("id", "=", waiting.id)
      .execute();
    const sent = await until("the first messages", async () => {
      const rows = await firstMessages();
      return rows.length === 2 ? rows : undefined;
    });
    expect(sent.map((m) => m.body)).toEqual(["Hi Olga, we are open now", "Hi Olga, we are open now"]);
    const done = await until("the campaign done", async () => {
      const s = await ok<{ state: string; resumesAt: null }>(
        shop,
        "GET",
        `/v1/campaigns/${campaign.id}/stats`,
      );
      return s.state === "done" ? s : undefined;
    });
    expect(done.resumesAt).toBeNull();
  });
});

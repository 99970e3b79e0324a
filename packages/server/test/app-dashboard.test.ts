// The dashboard: messages per day in and out, deliveries, bot answers against fallbacks, credits used,
// open conversations waiting for a person; finished days are computed once and kept.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboard } from "../src/modules/reports/service.ts";
import { settleActiveAccounts, settleDaysJob } from "../src/modules/reports/settle.ts";
import { enqueueJobs, recurringJobId } from "../src/platform/jobs.ts";
import { ownerBrowser } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { callWithKey, json, startTestApp, type TestApp } from "./helpers.ts";

interface Dash {
  days: Array<{
    date: string;
    inbound: number;
    outbound: number;
    botAnswers: number;
    botFallbacks: number;
    failed: number;
  }>;
  totals: {
    inbound: number;
    outbound: number;
    botAnswers: number;
    botFallbacks: number;
    failed: number;
    deliverySuccessRate: number | null;
  };
  waitingForPerson: number;
}

describe("app api: dashboard", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it("counts today's messages, the bot's answers and fallbacks, and who waits for a person", async () => {
    const { acc, browser } = await ownerBrowser(t);
    const campaigns = json<{ data: Array<{ id: string; isDefault: boolean }> }>(
      await callWithKey(t, "GET", "/v1/campaigns", acc.apiKey),
    );
    const def = campaigns.data.find((c) => c.isDefault)?.id;
    await callWithKey(t, "PATCH", `/v1/campaigns/${def}`, acc.apiKey, {
      knowledge: [{ question: "What are your opening hours?", answer: "9 to 5." }],
    });
    await postIncoming(t, acc.apiKey, {
      customData: customData({ fromId: "a", body: "What are your opening hours?" }),
    });
    await postIncoming(t, acc.apiKey, {
      customData: customData({ fromId: "b", body: "Tell me a joke about ducks" }),
    });
    await t.parley.worker.drain();
    const res = await browser.req({ method: "GET", url: "/app/api/dashboard" });
    expect(res.statusCode, res.body).toBe(200);
    const d = json<Dash>(res);
    expect(d.days).toHaveLength(30);
    const today = d.days.at(-1);
    expect(today?.date).toBe(new Date().toISOString().slice(0, 10));
    expect(today).toMatchObject({ inbound: 2, outbound: 2, botAnswers: 1, botFallbacks: 1 });
    // No webhook URL: both replies failed.
    expect(d.totals).toMatchObject({ inbound: 2, outbound: 2, failed: 2, deliverySuccessRate: 0 });
    expect(d.waitingForPerson).toBe(1);
    expect((await t.inject({ method: "GET", url: "/app/api/dashboard" })).statusCode).toBe(401);
    expect((await browser.req({ method: "GET", url: "/app/api/dashboard?days=0" })).statusCode).toBe(400);
    // Another account sees none of it.
    const other = (await ownerBrowser(t)).browser;
    expect(json<Dash>(await other.req({ method: "GET", url: "/app/api/dashboard" })).totals.inbound).toBe(0);
  });

  it("keeps a finished day's figures once computed", async () => {
    const { acc } = await ownerBrowser(t);
    await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "c", body: "hello" }) });
    const later = Date.now() + 5 * 86_400_000;
    const first = await dashboard(t.parley.ctx, acc.accountId, 30, later);
    const day = new Date().toISOString().slice(0, 10);
    expect(first.days.find((x) => x.date === day)?.inbound).toBe(1);
    const stored = await t.parley.db.kysely
      .selectFrom("dashboard_days")
      .select(["day", "figures"])
      .where("account_id", "=", acc.accountId)
      .execute();
    expect(stored.length).toBeGreaterThanOrEqual(1);
    // The kept figures answer the next time, even after new messages carry today's date.
    await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "d", body: "hello again" }) });
    const second = await dashboard(t.parley.ctx, acc.accountId, 30, later);
    expect(second.days.find((x) => x.date === day)?.inbound).toBe(1);
  });

  it("counts the finished days ahead in an hourly job, so the dashboard reads them", async () => {
    const { acc } = await ownerBrowser(t);
    const quiet = await t.account();
    await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "e", body: "hello" }) });
    await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "f", body: "hi" }) });
    const day = Math.floor(Date.now() / 86_400_000);
    const storedFor = async (accountId: string) =>
      t.parley.db.kysely
        .selectFrom("dashboard_days")
        .select(["day", "figures"])
        .where("account_id", "=", accountId)
        .execute();
    // Today is still live: nothing is stored for it.
    await settleActiveAccounts(t.parley.ctx, Date.now());
    expect((await storedFor(acc.accountId)).some((r) => Number(r.day) === day)).toBe(false);
    // Three days later today is finished: the job stores it; an account without messages is skipped.
    const later = Date.now() + 3 * 86_400_000;
    await settleActiveAccounts(t.parley.ctx, later);
    const kept = (await storedFor(acc.accountId)).find((r) => Number(r.day) === day);
    expect(JSON.parse(kept!.figures)).toMatchObject({ inbound: 2 });
    expect(await storedFor(quiet.accountId)).toEqual([]);
    // The dashboard answers from the stored day (a message written since would not change it).
    const dash = await dashboard(t.parley.ctx, acc.accountId, 30, later);
    expect(dash.days.find((x) => x.date === new Date().toISOString().slice(0, 10))?.inbound).toBe(2);
  });

  it("counts the live days ahead in the same job: the next dashboard adds only what came since, then recounts", async () => {
    const { acc, browser } = await ownerBrowser(t);
    await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "h", body: "hello" }) });
    await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "i", body: "hi" }) });
    const today = Math.floor(Date.now() / 86_400_000);
    await settleActiveAccounts(t.parley.ctx, Date.now());
    const ahead = await t.parley.db.kysely
      .selectFrom("dashboard_live")
      .selectAll()
      .where("account_id", "=", acc.accountId)
      .executeTakeFirstOrThrow();
    expect([Number(ahead.from_day), Number(ahead.to_day)]).toEqual([today - 1, today + 1]);
    const counted = JSON.parse(ahead.figures) as Record<string, { inbound: number }>;
    expect(counted[today]).toMatchObject({ inbound: 2 });
    expect(counted[today - 1]).toMatchObject({ inbound: 0 });
    // Which count answers shows in the figures: make the job's count say 40 messages came in today.
    await t.parley.db.kysely
      .updateTable("dashboard_live")
      .set({ figures: JSON.stringify({ ...counted, [today]: { ...counted[today], inbound: 40 } }) })
      .where("account_id", "=", acc.accountId)
      .execute();
    await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "j", body: "one more" }) });
    const todayOf = async () => {
      const d = json<Dash>(await browser.req({ method: "GET", url: "/app/api/dashboard" }));
      return d.days.at(-1)?.inbound;
    };
    // The first call: the job's count plus the message written since, without counting the day again.
    expect(await todayOf()).toBe(41);
    // The recount that call started replaces it with the day counted from the messages.
    await expect.poll(todayOf).toBe(3);
  });

  it("uses the job's count across midnight: the new day is all in what came since", async () => {
    const { acc } = await ownerBrowser(t);
    await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "m", body: "hello" }) });
    const today = Math.floor(Date.now() / 86_400_000);
    // The job ran a minute before midnight; the dashboard opens two minutes later, on a new day.
    const beforeMidnight = (today + 1) * 86_400_000 - 60_000;
    await settleActiveAccounts(t.parley.ctx, beforeMidnight);
    const ahead = await t.parley.db.kysely
      .selectFrom("dashboard_live")
      .selectAll()
      .where("account_id", "=", acc.accountId)
      .executeTakeFirstOrThrow();
    const counted = JSON.parse(ahead.figures) as Record<string, { inbound: number }>;
    expect(counted[today]).toMatchObject({ inbound: 1 });
    await t.parley.db.kysely
      .updateTable("dashboard_live")
      .set({ figures: JSON.stringify({ ...counted, [today]: { ...counted[today], inbound: 7 } }) })
      .where("account_id", "=", acc.accountId)
      .execute();
    const dash = await dashboard(t.parley.ctx, acc.accountId, 30, beforeMidnight + 120_000);
    const date = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);
    // Yesterday (the job's today) from the job's count; the new day from the messages since: none.
    expect(dash.days.find((x) => x.date === date(today))?.inbound).toBe(7);
    expect(dash.days.at(-1)).toMatchObject({ date: date(today + 1), inbound: 0 });
  });

  it("answers past the cache's 15 seconds from the earlier count plus the messages written since", async () => {
    const { acc } = await ownerBrowser(t);
    await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "k", body: "hello" }) });
    const start = Date.now();
    const day = new Date(start).toISOString().slice(0, 10);
    const inboundAt = async (now: number) =>
      (await dashboard(t.parley.ctx, acc.accountId, 30, now)).days.find((x) => x.date === day)?.inbound;
    expect(await inboundAt(start)).toBe(1);
    await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "l", body: "again" }) });
    // Within 15 seconds the cached count answers as it is.
    expect(await inboundAt(start + 5_000)).toBe(1);
    // Past them the new message is counted on top at once (and a recount starts behind the answer).
    expect(await inboundAt(start + 20_000)).toBe(2);
  });

  it("runs the job through the worker, which keeps one run queued for the next hour", async () => {
    const { acc } = await ownerBrowser(t);
    await postIncoming(t, acc.apiKey, { customData: customData({ fromId: "g", body: "hello" }) });
    const jobs = t.parley.db.kysely.selectFrom("jobs").select(["id", "run_at", "status"]);
    const [queued] = await t.parley.db.write((trx) =>
      enqueueJobs(trx, [settleDaysJob.create({}, { accountId: null })]),
    );
    await t.parley.worker.drain();
    expect(await jobs.where("id", "=", queued!).execute()).toEqual([]);
    const next = await jobs.where("id", "=", recurringJobId(settleDaysJob.type)).executeTakeFirst();
    expect(next?.status).toBe("queued");
    expect(Number(next?.run_at)).toBeGreaterThan(Date.now() + 50 * 60_000);
  });
});

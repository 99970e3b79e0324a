// The dashboard: messages per day in and out, deliveries, bot answers against fallbacks, credits used,
// open conversations waiting for a person; finished days are computed once and kept.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboard } from "../src/modules/reports/service.ts";
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
});

// "Try it": POST /v1/campaigns/{id}/preview and its /app/api twin answer what the bot would say, the
// entry it used and its confidence, or the fallback; nothing is sent, stored or charged.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { ownerBrowser, teammate } from "./app-helpers.ts";
import { countRows } from "./fixtures/incoming.ts";
import { balanceOf, callWithKey, errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

interface Preview {
  engine: string;
  outcome: "answer" | "fallback";
  reply: string;
  entry: { index: number; question: string | null } | null;
  confidence: number | null;
  reason: string | null;
  closest: { index: number; question: string | null; confidence: number } | null;
}

describe("campaign preview (Try it)", () => {
  let t: TestApp;
  let acc: CreatedAccount;
  let campaignId: string;
  beforeAll(async () => {
    t = await startTestApp();
    acc = await t.account();
    const created = await callWithKey(t, "POST", "/v1/campaigns", acc.apiKey, {
      name: "Shop",
      status: "draft",
      knowledge: [
        { question: "What are your opening hours?", answer: "We are open 9 to 5, Monday to Friday." },
        { question: "Do you ship to Canada?", answer: "Yes, in 5 to 7 days." },
      ],
    });
    expect(created.statusCode, created.body).toBe(201);
    campaignId = json<{ id: string }>(created).id;
  });
  afterAll(async () => t?.close());

  it("answers with the entry and its confidence, falls back on an unrelated message, changes nothing", async () => {
    const before = {
      messages: await countRows(t, "messages", acc.accountId),
      balance: await balanceOf(t, acc.accountId),
      jobs: (await t.parley.db.kysely.selectFrom("jobs").select("id").execute()).length,
    };
    const hit = await callWithKey(t, "POST", `/v1/campaigns/${campaignId}/preview`, acc.apiKey, {
      message: "when are you open??",
    });
    expect(hit.statusCode, hit.body).toBe(200);
    const p = json<Preview>(hit);
    expect(p).toMatchObject({
      engine: "builtin",
      outcome: "answer",
      reply: "We are open 9 to 5, Monday to Friday.",
      entry: { index: 0, question: "What are your opening hours?" },
      reason: null,
    });
    expect(p.confidence).toBeGreaterThan(0);
    expect(p.confidence).toBeLessThanOrEqual(1);
    const miss = json<Preview>(
      await callWithKey(t, "POST", `/v1/campaigns/${campaignId}/preview`, acc.apiKey, {
        message: "my cat is orange",
      }),
    );
    expect(miss).toMatchObject({ outcome: "fallback", entry: null, reason: "no_answer", closest: null });
    expect(miss.reply).toMatch(/team member/);
    // A near miss names the entry that came closest, below the threshold (what Save as knowledge offers).
    const near = json<Preview>(
      await callWithKey(t, "POST", `/v1/campaigns/${campaignId}/preview`, acc.apiKey, {
        message: "what is the weather in canada",
      }),
    );
    expect(near).toMatchObject({ outcome: "fallback", confidence: null, reason: "no_answer" });
    expect(near.closest).toMatchObject({ index: 1, question: "Do you ship to Canada?" });
    expect(near.closest?.confidence).toBeGreaterThan(0);
    expect(near.closest?.confidence).toBeLessThan(0.5);
    expect(p.closest).toBeNull();
    expect({
      messages: await countRows(t, "messages", acc.accountId),
      balance: await balanceOf(t, acc.accountId),
      jobs: (await t.parley.db.kysely.selectFrom("jobs").select("id").execute()).length,
    }).toEqual(before);
  });

  it("refuses an empty message and another account's campaign", async () => {
    const empty = await callWithKey(t, "POST", `/v1/campaigns/${campaignId}/preview`, acc.apiKey, {
      message: "  ",
    });
    expect(errorCode(empty)).toBe("VALIDATION_ERROR");
    const other = await t.account();
    const foreign = await callWithKey(t, "POST", `/v1/campaigns/${campaignId}/preview`, other.apiKey, {
      message: "hi",
    });
    expect(errorCode(foreign)).toBe("CAMPAIGN_NOT_FOUND");
  });

  it("the web app's campaigns: every role tries, owners and admins edit", async () => {
    const { acc: a, browser: owner } = await ownerBrowser(t);
    const list = json<{ data: Array<{ id: string; isDefault: boolean }> }>(
      await owner.req({ method: "GET", url: "/app/api/campaigns" }),
    );
    const def = list.data.find((c) => c.isDefault);
    expect(def).toBeDefined();
    const patched = await owner.req({
      method: "PATCH",
      url: `/app/api/campaigns/${def?.id}`,
      payload: { knowledge: [{ question: "Where are you?", answer: "At 1 Main Street." }] },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const agent = await teammate(t, owner, "agent");
    const tried = await agent.req({
      method: "POST",
      url: `/app/api/campaigns/${def?.id}/preview`,
      payload: { message: "Where are you?" },
    });
    expect(json<Preview>(tried)).toMatchObject({ outcome: "answer", reply: "At 1 Main Street." });
    const refused = await agent.req({
      method: "PATCH",
      url: `/app/api/campaigns/${def?.id}`,
      payload: { name: "x" },
    });
    expect(refused.statusCode).toBe(403);
    const stranger = (await ownerBrowser(t)).browser;
    for (const [method, url, payload] of [
      ["GET", `/app/api/campaigns/${def?.id}`],
      ["PATCH", `/app/api/campaigns/${def?.id}`, { name: "taken" }],
      ["POST", `/app/api/campaigns/${def?.id}/preview`, { message: "hi" }],
    ] as const) {
      expect((await stranger.req({ method, url, ...(payload ? { payload } : {}) })).statusCode, url).toBe(
        404,
      );
    }
    expect(a.accountId).toBeTruthy();
  });
});

// /app/api for agencies: sub-accounts with balances, grants through the /v1 grant code (ledger row
// and balance in one transaction), history, auto-recharge; not for standard accounts or agents.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, ownerBrowser, signIn, teammate } from "./app-helpers.ts";
import { balanceOf, errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

interface Sub {
  id: string;
  email: string;
  credits: number;
  autoRecharge: { threshold: number; rechargeAmount: number } | null;
}

describe("app api: agency", () => {
  let t: TestApp;
  let agency: Browser;
  beforeAll(async () => {
    t = await startTestApp();
    const email = `agency-${Date.now()}@example.com`;
    await t.account({ email, kind: "agency" });
    agency = await signIn(t, email);
  });
  afterAll(async () => t?.close());

  it("creates a sub-account, grants credits with a description, shows the history and the balance", async () => {
    const created = await agency.req({
      method: "POST",
      url: "/app/api/subaccounts",
      payload: { email: "client-a@example.com", name: "Client A" },
    });
    expect(created.statusCode, created.body).toBe(201);
    const sub = json<Sub & { apiKey?: string }>(created);
    expect(sub.apiKey).toBeUndefined();
    expect(sub.credits).toBe(0);
    const bad = await agency.req({
      method: "POST",
      url: `/app/api/subaccounts/${sub.id}/credits`,
      payload: { amount: -5 },
    });
    expect(errorCode(bad)).toBe("INVALID_AMOUNT");
    const grant = await agency.req({
      method: "POST",
      url: `/app/api/subaccounts/${sub.id}/credits`,
      payload: { amount: 25.5, description: "November top-up" },
    });
    expect(json(grant)).toMatchObject({
      success: true,
      sub_account_id: sub.id,
      credits_added: 25.5,
      new_balance: 25.5,
    });
    expect(await balanceOf(t, sub.id)).toBe(2550); // hundredths of a credit
    const history = json<{ data: Array<{ amount: number; description: string; kind: string }> }>(
      await agency.req({ method: "GET", url: `/app/api/subaccounts/${sub.id}/transactions` }),
    );
    expect(history.data).toMatchObject([{ amount: 25.5, description: "November top-up", kind: "grant" }]);
    const list = json<{ data: Sub[] }>(await agency.req({ method: "GET", url: "/app/api/subaccounts" }));
    expect(list.data.find((s) => s.id === sub.id)?.credits).toBe(25.5);
    const auto = await agency.req({
      method: "PUT",
      url: `/app/api/subaccounts/${sub.id}/auto-recharge`,
      payload: { threshold: 5, rechargeAmount: 20 },
    });
    expect(json<Sub>(auto).autoRecharge).toEqual({ threshold: 5, rechargeAmount: 20 });
    const off = await agency.req({ method: "DELETE", url: `/app/api/subaccounts/${sub.id}/auto-recharge` });
    expect(json<Sub>(off).autoRecharge).toBeNull();
  });

  it("a standard account gets 403 NOT_AGENCY, an agent 403, another agency 404", async () => {
    const sub = json<Sub>(
      await agency.req({
        method: "POST",
        url: "/app/api/subaccounts",
        payload: { email: "client-b@example.com" },
      }),
    );
    const standard = (await ownerBrowser(t)).browser;
    const refused = await standard.req({ method: "GET", url: "/app/api/subaccounts" });
    expect(refused.statusCode).toBe(403);
    expect(errorCode(refused)).toBe("NOT_AGENCY");
    const agent = await teammate(t, agency, "agent");
    expect((await agent.req({ method: "GET", url: "/app/api/subaccounts" })).statusCode).toBe(403);
    const otherEmail = `agency2-${Date.now()}@example.com`;
    await t.account({ email: otherEmail, kind: "agency" });
    const otherAgency = await signIn(t, otherEmail);
    for (const [method, url, payload] of [
      ["POST", `/app/api/subaccounts/${sub.id}/credits`, { amount: 5 }],
      ["GET", `/app/api/subaccounts/${sub.id}/transactions`],
      ["PUT", `/app/api/subaccounts/${sub.id}/auto-recharge`, { threshold: 1, rechargeAmount: 2 }],
    ] as const) {
      const res = await otherAgency.req({ method, url, ...(payload ? { payload } : {}) });
      expect(res.statusCode, url).toBe(404);
    }
    expect(await balanceOf(t, sub.id)).toBe(0);
  });
});

// Usage per client (issue 38), in Chromium against a real `parley serve`: a client's contact writes and
// the bot replies (made through the public API); the agency opens the client's page, reads the usage
// charts and totals, and downloads the CSV, which the test opens.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signIn, useBrowserSuite } from "./harness.ts";

describe.skipIf(Boolean(process.env.DATABASE_URL))("the web app: a client's usage", () => {
  const s = useBrowserSuite();

  it("shows the agency a client's usage charts and totals, and downloads them as CSV", async () => {
    const created = JSON.parse(
      await s.parley.cli([
        "account",
        "create",
        "--email",
        "owner@usage-agency.test",
        "--password",
        "agency password 1",
        "--agency",
      ]),
    ) as { apiKey: string };
    const agency = { "x-api-key": created.apiKey };
    const subRes = await s.api.post("/v1/subaccounts", {
      headers: agency,
      data: { email: "owner@acme.test", name: "ACME" },
    });
    expect(subRes.status(), await subRes.text()).toBe(201);
    const sub = (await subRes.json()) as { id: string; apiKey: string };
    await s.api.post("/v1/subaccounts/credits", {
      headers: agency,
      data: { email: "owner@acme.test", amount: 20 },
    });
    const incoming = await s.api.post(`/v1/incoming_custom_channel_message?apiKey=${sub.apiKey}`, {
      data: { customData: { messageSid: "SM-usage-1", fromId: "visitor-1", toId: "biz", body: "Hello?" } },
    });
    expect(incoming.status(), await incoming.text()).toBe(200);
    // The bot's reply is debited in the same transaction that stores it.
    const debited = async () => {
      const res = await s.api.get("/v1/credits/transactions", { headers: { "x-api-key": sub.apiKey } });
      return ((await res.json()) as { data: Array<{ kind: string }> }).data.some(
        (t) => t.kind === "bot_reply",
      );
    };
    for (const until = Date.now() + 15_000; !(await debited()); ) {
      if (Date.now() > until) throw new Error("the bot did not reply");
      await new Promise((r) => setTimeout(r, 100));
    }

    const page = s.page;
    await signIn(page, s.parley.url, "owner@usage-agency.test", "agency password 1");
    await page.getByRole("link", { name: "Agency", exact: true }).click();
    await page.getByRole("table", { name: "Sub-accounts" }).getByRole("link", { name: "ACME" }).click();
    const usage = page.getByRole("region", { name: "Usage, last 30 days" });
    const totals = usage.getByRole("table", { name: "Usage totals, last 30 days" });
    const total = (name: string) =>
      totals
        .getByRole("row")
        .filter({ has: page.getByRole("rowheader", { name, exact: true }) })
        .getByRole("cell");
    await total("Messages in").waitFor();
    expect(await total("Messages in").textContent()).toBe("1");
    expect(await total("Bot replies").textContent()).toBe("1");
    expect(await total("Credits used").textContent()).toBe("1");
    for (const chart of [
      "Messages per day",
      "Bot replies per day",
      "Credits used per day",
      "Deliveries per day",
    ]) {
      await usage.getByRole("figure", { name: chart }).waitFor();
    }
    await expectAccessible(page, "a sub-account's usage");
    await screenshot(page, "agency-usage");

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      usage.getByRole("link", { name: "Download usage (CSV)" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^usage-acc_.+\.csv$/);
    const lines = fs
      .readFileSync((await download.path()) ?? "", "utf8")
      .trimEnd()
      .split("\n");
    expect(lines[0]).toBe(
      "date,messages_in,messages_out,bot_replies,credits_used,deliveries_succeeded,deliveries_failed",
    );
    expect(lines).toHaveLength(31);
    const today = new Date().toISOString().slice(0, 10);
    expect(lines.at(-1)).toMatch(new RegExp(`^${today},1,1,1,1\\.00,0,[01]$`));
  });
});

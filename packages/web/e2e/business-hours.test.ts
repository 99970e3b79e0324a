// Business hours, end to end: an owner sets the account's time zone, opening hours (a lunch break, a
// Saturday) and a holiday on the settings page, is told about a day that closes before it opens, and
// finds the hours through the API; on the campaign page the default campaign gets an away message and
// holds its follow-ups, and an outgoing message is held to business hours. Then, closed today, a
// customer's question gets the away message in the inbox. Against a real `parley serve` on SQLite and
// Chromium. With PARLEY_SCREENSHOTS=1 it refreshes the screenshots of docs/automation.md.
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, expectAccessible, useBrowserSuite } from "./harness.ts";

const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../docs/screenshots");
const AWAY = "Thanks, {{firstName|there}}! We are closed right now and back {{openingTime}}.";

/** One region of the page as docs/screenshots/<name>.png (PARLEY_SCREENSHOTS=1 only). */
async function shoot(page: Page, region: Locator, name: string, { tall = true } = {}): Promise<void> {
  if (process.env.PARLEY_SCREENSHOTS !== "1") return;
  // A page tall enough to need no scrolling: the app's fixed header would cover a scrolled region.
  const viewport = page.viewportSize();
  if (tall) {
    await page.setViewportSize({ width: 1280, height: 4000 });
    await page.evaluate(() => window.scrollTo(0, 0));
  }
  await region.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
  if (viewport) await page.setViewportSize(viewport);
}

/** Today's date in Berlin, YYYY-MM-DD. */
const berlinToday = () =>
  new Intl.DateTimeFormat("en-CA", {
    timeZone: "Europe/Berlin",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(new Date());

describe.skipIf(Boolean(process.env.DATABASE_URL))(
  "business hours on the settings and campaign pages",
  () => {
    const suite = useBrowserSuite({ business: "Berlin Bikes", receiver: "saved" });
    const v1 = suite.v1;
    let campaignId = "";

    const hours = () => suite.page.getByRole("region", { name: "Business hours" });

    beforeAll(async () => {
      const campaigns = await v1<{ data: { id: string; isDefault: boolean }[] }>("GET", "/v1/campaigns");
      campaignId = campaigns.data.find((c) => c.isDefault)?.id ?? "";
    });

    it("sets the time zone, the hours of each weekday and a holiday on the settings page", async () => {
      await hours().getByText("Not set", { exact: false }).waitFor();
      // The time zone, found by typing part of it.
      const zone = hours().getByRole("combobox", { name: "Time zone" });
      await zone.click();
      await zone.fill("Berlin");
      await suite.page.getByRole("option", { name: "Europe/Berlin" }).click();
      // Monday with a lunch break: 09:00–12:30 and 13:30–18:00.
      await hours().getByLabel("Monday closes").fill("12:30");
      await hours().getByRole("button", { name: "Add hours on Monday" }).click();
      await hours().getByLabel("Monday opens (2)").fill("13:30");
      await hours().getByLabel("Monday closes (2)").fill("18:00");
      // Open on Saturday morning; closed on Friday.
      await hours().getByRole("checkbox", { name: "Open on Saturday" }).check();
      await hours().getByLabel("Saturday opens").fill("10:00");
      await hours().getByLabel("Saturday closes").fill("14:00");
      await hours().getByRole("checkbox", { name: "Open on Friday" }).uncheck();
      // A day that closes before it opens is pointed out, and nothing is sent.
      await hours().getByLabel("Tuesday closes").fill("08:00");
      await hours().getByRole("button", { name: "Save business hours" }).click();
      await hours().getByText("Closes before it opens").waitFor();
      await hours().getByLabel("Tuesday closes").fill("17:00");
      // A holiday.
      await hours().getByLabel("Holiday").fill("2026-12-25");
      await hours().getByRole("button", { name: "Add holiday" }).click();
      await hours().getByRole("list", { name: "Holidays" }).getByText("Fri, 25 Dec 2026").waitFor();
      await hours().getByRole("button", { name: "Save business hours" }).click();
      await suite.page.getByText("Business hours saved").waitFor();
      await hours()
        .getByRole("status")
        .getByText(/Open now|Closed now/)
        .waitFor();

      const saved = await v1<{ businessHours: unknown }>("GET", "/v1/account/business-hours");
      expect(saved.businessHours).toEqual({
        timezone: "Europe/Berlin",
        days: {
          monday: [
            { open: "09:00", close: "12:30" },
            { open: "13:30", close: "18:00" },
          ],
          tuesday: [{ open: "09:00", close: "17:00" }],
          wednesday: [{ open: "09:00", close: "17:00" }],
          thursday: [{ open: "09:00", close: "17:00" }],
          friday: [],
          saturday: [{ open: "10:00", close: "14:00" }],
          sunday: [],
        },
        holidays: ["2026-12-25"],
      });
      await expectAccessible(suite.page, "settings: business hours");
      await suite.page.reload();
      expect(await hours().getByLabel("Monday opens (2)").inputValue()).toBe("13:30");
      expect(await hours().getByRole("combobox", { name: "Time zone" }).inputValue()).toBe("Europe/Berlin");
      await shoot(suite.page, hours(), "business-hours-settings");
    });

    it("gives the campaign an away message and holds its follow-ups; holds an outgoing message to business hours", async () => {
      await suite.page.goto(`${suite.parley.url}/campaigns/${campaignId}`);
      const section = suite.page.getByRole("region", { name: "Business hours" });
      await section.getByRole("radio", { name: "Send an away message" }).check();
      // No message yet: said next to the field, nothing is sent.
      await suite.page.getByRole("button", { name: "Save campaign" }).click();
      await section.getByText("Write the away message, or answer as usual").waitFor();
      await section.getByRole("textbox", { name: "Away message" }).fill(AWAY);
      await section.getByRole("switch", { name: "Hold follow-ups to business hours" }).check();
      await suite.page.getByRole("button", { name: "Save campaign" }).click();
      await suite.page.getByText("Campaign saved").waitFor();
      const campaign = await v1<Record<string, unknown>>("GET", `/v1/campaigns/${campaignId}`);
      expect(campaign).toMatchObject({ outsideHours: "away", awayMessage: AWAY, followUpsInHours: true });
      await expectAccessible(suite.page, "campaign: business hours");
      await shoot(suite.page, section, "business-hours-campaign");

      // The outgoing message, only during business hours.
      const list = await v1<{ id: string }>("POST", "/v1/lists", { name: "Newsletter" });
      await suite.page.reload();
      const outgoing = suite.page.getByRole("region", { name: "Outgoing message" });
      await outgoing.getByRole("combobox", { name: "To the list" }).click();
      await suite.page.getByRole("option", { name: /Newsletter/ }).click();
      await outgoing.getByRole("switch", { name: "Only send during business hours" }).check();
      await outgoing.getByRole("button", { name: "Save outgoing message" }).click();
      await suite.page.getByText("Outgoing message saved").waitFor();
      const withOutgoing = await v1<{ outgoing: { listId: string; onlyInHours: boolean } }>(
        "GET",
        `/v1/campaigns/${campaignId}`,
      );
      expect(withOutgoing.outgoing).toMatchObject({ listId: list.id, onlyInHours: true });
    });

    it("closed today: a customer's question gets the away message, marked in the inbox", async () => {
      const current = await v1<{ businessHours: { holidays: string[] } }>(
        "GET",
        "/v1/account/business-hours",
      );
      await v1("PUT", "/v1/account/business-hours", {
        businessHours: {
          ...current.businessHours,
          holidays: [...current.businessHours.holidays, berlinToday()],
        },
      });
      await suite.incoming({
        messageSid: "sid-bh-1",
        fromId: "nina-1",
        toId: "shop",
        body: "Do you repair e-bikes?",
        firstName: "Nina",
      });
      const away = await eventually(
        () => suite.receiver.received.find((r) => String(r.body.body ?? "").startsWith("Thanks, Nina!")),
        30_000,
      );
      // {{openingTime}}: the next opening in Berlin, like "Monday 09:00".
      expect(String(away.body.body)).toMatch(
        /^Thanks, Nina! We are closed right now and back \w+day .*\d\d:\d\d\.$/,
      );
      const conversations = await v1<{ data: { id: string }[] }>("GET", "/v1/conversations");
      await suite.page.goto(`${suite.parley.url}/inbox/${conversations.data[0]?.id}`);
      const thread = suite.page.getByRole("list", { name: "Messages" });
      await thread.getByText("Away message · sent outside business hours", { exact: false }).waitFor();
      await expectAccessible(suite.page, "conversation with an away message");
      await shoot(suite.page, suite.page.locator("main"), "business-hours-away-inbox", { tall: false });
    });
  },
);

// The bell and the notification preferences, end to end: a customer asks for a person through /v1,
// the bot hands over, and the owner's bell rings (its name counts the unread); opening the
// notification marks it read and opens the conversation; "Mark all as read" clears the rest. Then the
// owner's own preferences (account page) and the account's defaults with the low-credits warning
// (settings) are saved and read back after a reload. Against a real `parley serve` on SQLite and Chromium.
import { describe, expect, it } from "vitest";
import { expectAccessible, screenshot, useBrowserSuite } from "./harness.ts";

// The switches have no visible label of their own (the table's row and column say it), so their track
// covers the input: `force` clicks it where a person would.
describe.skipIf(Boolean(process.env.DATABASE_URL))("notifications", () => {
  const suite = useBrowserSuite({ business: "Bell Books" });

  /** The bell by its exact name ("Notifications", "Notifications, 2 unread"), or whatever it counts. */
  const bell = (name?: string) =>
    suite.page.getByRole("button", name ? { name, exact: true } : { name: /^Notifications/ });
  const panel = () => suite.page.getByRole("dialog");
  const askForAPerson = (fromId: string, messageSid: string) =>
    suite.incoming({ messageSid, fromId, toId: "bell-books", body: "I want to talk to a human" });

  it("starts with an empty bell", async () => {
    await bell("Notifications").click();
    await panel().getByText("No notifications yet").waitFor();
    expect(await panel().getByRole("button", { name: "Mark all as read" }).isDisabled()).toBe(true);
    await expectAccessible(suite.page, "bell: empty");
    await suite.page.keyboard.press("Escape");
    await panel().waitFor({ state: "hidden" });
  });

  it("rings when a conversation needs a human; opening it marks it read and opens the conversation", async () => {
    await askForAPerson("wren-501", "bell-sid-1");
    // The live stream nudges the bell (no reload, well before the 15 s poll).
    await bell("Notifications, 1 unread").waitFor({ timeout: 10_000 });
    await bell().click();
    const item = panel().getByRole("button", { name: /^Unread: .*needs a human/ });
    await item.waitFor();
    await panel().getByText("The customer asked to talk to a person.").waitFor();
    await expectAccessible(suite.page, "bell: one unread");
    await screenshot(suite.page, "notifications-bell", { fullPage: false });

    await item.click();
    await suite.page.waitForURL(/\/inbox\/cv_/);
    await panel().waitFor({ state: "hidden" });
    await bell("Notifications").waitFor();
    await bell().click();
    await panel()
      .getByRole("button", { name: /needs a human/ })
      .waitFor();
    expect(
      await panel()
        .getByRole("button", { name: /^Unread:/ })
        .count(),
    ).toBe(0);
    await suite.page.keyboard.press("Escape");
  });

  it("marks everything read at once", async () => {
    await askForAPerson("kit-502", "bell-sid-2");
    await askForAPerson("ola-503", "bell-sid-3");
    await bell("Notifications, 2 unread").waitFor({ timeout: 10_000 });
    await bell().click();
    await expect
      .poll(() =>
        panel()
          .getByRole("button", { name: /^Unread:/ })
          .count(),
      )
      .toBe(2);
    await panel().getByRole("button", { name: "Mark all as read" }).click();
    await bell("Notifications").waitFor();
    expect(
      await panel()
        .getByRole("button", { name: /^Unread:/ })
        .count(),
    ).toBe(0);
    // Read on the server too, not only on this page.
    await suite.page.reload();
    await bell("Notifications").waitFor();
    await suite.page.keyboard.press("Escape");
  });

  it("saves a person's own preferences on the account page", async () => {
    await suite.page.goto(`${suite.parley.url}/account`);
    const section = suite.page.getByRole("region", { name: "Notifications" });
    const email = section.getByRole("switch", { name: "E-mail: A conversation needs a human" });
    const app = section.getByRole("switch", { name: "In the app: An outgoing campaign finished" });
    await email.waitFor();
    expect(await email.isChecked()).toBe(true);
    await email.uncheck({ force: true });
    await app.uncheck({ force: true });
    await expectAccessible(suite.page, "account: notification preferences");
    // From the top: a full-page capture of a scrolled page would cut the fixed header into its middle.
    await suite.page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(suite.page, "notification-preferences");
    await section.getByRole("button", { name: "Save notification preferences" }).click();
    await suite.page.getByText("Notification preferences saved").waitFor();

    await suite.page.reload();
    await email.waitFor();
    expect(await email.isChecked()).toBe(false);
    expect(await app.isChecked()).toBe(false);
    expect(
      await section.getByRole("switch", { name: "In the app: A conversation needs a human" }).isChecked(),
    ).toBe(true);
  });

  it("saves the account's defaults and the low-credits warning on the settings page", async () => {
    await suite.page.goto(`${suite.parley.url}/settings`);
    const section = suite.page.getByRole("region", { name: "Notification defaults" });
    const paused = section.getByRole("switch", { name: "E-mail: An outgoing campaign paused" });
    const threshold = section.getByLabel("Warn when credits fall below");
    await paused.waitFor();
    expect(await threshold.inputValue()).toBe("");
    await paused.uncheck({ force: true });
    await threshold.fill("50");
    await expectAccessible(suite.page, "settings: notification defaults");
    // The section under the fixed header, as much of it as the window shows.
    await section.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 72));
    await screenshot(suite.page, "notification-defaults", { fullPage: false });
    await section.getByRole("button", { name: "Save notification defaults" }).click();
    await suite.page.getByText("Notification defaults saved").waitFor();

    await suite.page.reload();
    await paused.waitFor();
    expect(await paused.isChecked()).toBe(false);
    expect(await threshold.inputValue()).toBe("50");
    // Emptied: the warning is off.
    await threshold.fill("");
    await section.getByRole("button", { name: "Save notification defaults" }).click();
    await suite.page.getByText("Notification defaults saved").last().waitFor();
    await suite.page.reload();
    await paused.waitFor();
    expect(await threshold.inputValue()).toBe("");
  });
});

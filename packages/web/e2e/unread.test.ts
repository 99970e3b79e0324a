// Unread per person, end to end in two browser contexts (the owner and a teammate): a new inbound
// message is unread for both; the owner opens it and only the owner's unread clears, the teammate's
// tab title still says "(1)". The teammate switched browser notifications on (Account page, "Alerts in
// this browser") and a new conversation raises one. The browser's Notification API is stubbed in the
// teammate's context to record what the app asks for. Against a real `parley serve` on SQLite.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, inviteTeammate, useBrowserSuite } from "./harness.ts";

const TEAMMATE = { name: "Ana Unread", email: "ana@unread.test", password: "teammate password 42" };

/** Records the notifications the app creates (the browser's API, not Parley's). */
const NOTIFICATION_STUB = `
  window.__notifications = [];
  class RecordedNotification {
    static permission = "granted";
    static requestPermission() { return Promise.resolve("granted"); }
    constructor(title, options) { window.__notifications.push({ title, body: options && options.body }); }
    close() {}
  }
  window.Notification = RecordedNotification;
`;

describe.skipIf(Boolean(process.env.DATABASE_URL))("unread per person", () => {
  const suite = useBrowserSuite({ business: "Unread Books" });
  let owner: Page;
  let mate: Page;

  const row = (p: Page) => p.getByRole("link", { name: /maria-3001/ });
  const notifications = (p: Page) =>
    p.evaluate(() => (window as unknown as { __notifications: { title: string }[] }).__notifications);

  beforeAll(async () => {
    owner = suite.page;
    mate = await suite.newPage("teammate");
    await mate.context().grantPermissions(["notifications"], { origin: suite.parley.url });
    await mate.context().addInitScript(NOTIFICATION_STUB);
  });

  it("the teammate joins and switches browser notifications on", async () => {
    await inviteTeammate(owner, mate, TEAMMATE);

    await mate.goto(`${suite.parley.url}/account`);
    await mate.getByRole("heading", { name: "Alerts in this browser" }).waitFor();
    const baseline = mate.waitForResponse((r) => r.url().includes("/app/api/conversations?limit=20"));
    await mate.getByRole("switch", { name: "Browser notifications" }).click({ force: true });
    await expect
      .poll(() => mate.getByRole("switch", { name: "Browser notifications" }).isChecked())
      .toBe(true);
    expect(await mate.getByRole("switch", { name: "Sound for new conversations" }).isChecked()).toBe(false);
    await baseline;
    await expectAccessible(mate, "account page with alerts");
  });

  it("a new conversation is unread for both and raises the teammate's notification", async () => {
    await owner.goto(`${suite.parley.url}/inbox`);
    await owner.getByRole("heading", { name: "Inbox" }).waitFor();
    await suite.incoming({ messageSid: "unread-1", fromId: "maria-3001", toId: "books", body: "Is it in?" });

    await expect.poll(() => notifications(mate)).toEqual([{ title: "New conversation", body: "maria-3001" }]);
    await row(owner).getByLabel("1 unread").waitFor();
    await mate.getByRole("link", { name: "Inbox" }).click();
    await row(mate).getByLabel("1 unread").waitFor();
    await expect.poll(() => mate.title()).toBe("(1) Inbox · Parley");
  });

  it("the owner opens it: only the owner's unread clears", async () => {
    await row(owner).click();
    await owner.getByRole("list", { name: "Messages" }).getByText("Is it in?").waitFor();
    await expect.poll(() => row(owner).getByLabel("1 unread").count()).toBe(0);
    await expect.poll(() => owner.title()).not.toMatch(/^\(/);

    await mate.reload();
    await row(mate).getByLabel("1 unread").waitFor();
    await expect.poll(() => mate.title()).toBe("(1) Inbox · Parley");
  });
});

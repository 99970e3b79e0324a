// Private notes with @mentions, end to end: the owner switches the reply box to "Private note", types
// "@Sa", picks the teammate from the suggestions and adds the note; it shows in the thread as a private
// note (yellow, "Private note by …", the mention highlighted) and never reaches the webhook (a reply
// sent afterwards does). The teammate, in their own browser, finds "… mentioned you in a note" in the
// bell and opens the conversation on it. Against a real `parley serve` on SQLite and Chromium.
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  apiClient,
  eventually,
  expectAccessible,
  launchBrowser,
  newPage,
  onboardWithKey,
  type Parley,
  screenshot,
  showFailure,
  startParley,
  startReceiver,
} from "./harness.ts";

const TEAMMATE = { name: "Sam Lee", email: "sam@note-books.test", password: "teammate password 42" };
const NOTE_TEXT = "she prefers a call in the morning.";

describe.skipIf(Boolean(process.env.DATABASE_URL))("private notes", () => {
  let parley: Parley;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser;
  let page: Page;
  let teammatePage: Page;
  let api: Awaited<ReturnType<typeof apiClient>>;
  let apiKey = "";
  let conversationUrl = "";

  const thread = (p: Page = page) => p.getByRole("list", { name: "Messages" });

  beforeAll(async () => {
    [parley, receiver, browser] = await Promise.all([startParley(), startReceiver(), launchBrowser()]);
    page = await newPage(browser);
    teammatePage = await newPage(browser);
    api = await apiClient(parley.url);
    apiKey = await onboardWithKey(page, parley.url, "Note Books");
  });
  afterAll(async () => {
    await api?.dispose();
    await browser?.close();
    await receiver?.close();
    await parley?.stop();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === "fail") {
      if (page) await showFailure(page, ctx.task.name);
      if (teammatePage) await showFailure(teammatePage, `${ctx.task.name} (teammate)`);
    }
  });

  it("sets up the webhook, a teammate and a conversation", async () => {
    await page.getByLabel("Webhook URL").fill(receiver.url);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Webhook URL saved").waitFor();

    await page.getByLabel("Invite by email").fill(TEAMMATE.email);
    await page.getByRole("button", { name: "Create invite link" }).click();
    const link = (await page.getByTestId("invite-link").textContent())?.trim() ?? "";
    expect(link).toContain("/invite/");
    await teammatePage.goto(`${parley.url}${new URL(link).pathname}`);
    await teammatePage.getByLabel("Your name").fill(TEAMMATE.name);
    await teammatePage.getByLabel("Password").fill(TEAMMATE.password);
    await teammatePage.getByRole("button", { name: "Join" }).click();
    await teammatePage.getByRole("heading", { name: "Inbox" }).waitFor();

    const res = await api.post(`/v1/incoming_custom_channel_message?apiKey=${apiKey}`, {
      data: {
        customData: { messageSid: "note-sid-1", fromId: "maria-2001", toId: "books", body: "Call me back?" },
      },
    });
    expect(res.status(), await res.text()).toBe(200);
    await page.getByRole("link", { name: "Inbox" }).click();
    await page.getByRole("link", { name: /maria-2001/ }).click();
    await thread().getByText("Call me back?").waitFor();
    conversationUrl = page.url();
    expect(conversationUrl).toMatch(/\/inbox\/cv_/);
  });

  it("the owner writes a note mentioning the teammate; it shows as a private note and never reaches the webhook", async () => {
    // The reply box is still the one field called "Reply".
    expect(await page.getByLabel("Reply").count()).toBe(1);
    const noteMode = page.getByRole("radio", { name: "Private note" });
    await noteMode.check();
    expect(await page.getByRole("radio", { name: "Reply" }).isChecked()).toBe(false);
    const box = page.getByPlaceholder("Write a private note… @ mentions a teammate");
    await box.waitFor();
    expect(await page.getByRole("button", { name: "Send", exact: true }).count()).toBe(0);

    // "@Sa" offers Sam Lee; picking inserts "@Sam Lee ".
    await box.pressSequentially("Please ring her back, @Sa", { delay: 20 });
    const option = page.getByRole("option", { name: /Sam Lee/ });
    await option.waitFor();
    await expectAccessible(page, "note with the teammate suggestions");
    await option.click();
    await expect.poll(() => box.inputValue()).toBe("Please ring her back, @Sam Lee ");
    await box.pressSequentially(NOTE_TEXT, { delay: 5 });
    await page.getByRole("button", { name: "Add note" }).click();

    const note = thread().getByRole("article", { name: /^Private note by / });
    await note.getByText(NOTE_TEXT, { exact: false }).waitFor();
    expect(await note.locator("[data-mention]").textContent()).toBe("@Sam Lee");
    await note.getByText("Only your team sees this").waitFor();
    await expect.poll(() => box.inputValue()).toBe("");
    // In time order: after the customer's message.
    const items = await thread().getByRole("listitem").allTextContents();
    const noteAt = items.findIndex((t) => t.includes(NOTE_TEXT));
    expect(noteAt).toBeGreaterThan(items.findIndex((t) => t.includes("Call me back?")));
    await expectAccessible(page, "conversation with a private note");
    // The picture: the note in the thread, and the note box offering the teammates after "@".
    await box.pressSequentially("Also @", { delay: 20 });
    await option.waitFor();
    await page.getByRole("button", { name: "Add note" }).scrollIntoViewIfNeeded();
    await screenshot(page, "inbox-private-note", { fullPage: false });
    await box.press("Escape");
    await box.fill("");

    // A reply sent afterwards reaches the webhook; the note never did.
    await page.getByRole("radio", { name: "Reply" }).check();
    await page.getByLabel("Reply").fill("We will call you tomorrow morning.");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await eventually(() =>
      receiver.received.find((r) => r.body.body === "We will call you tomorrow morning."),
    );
    const leaked = receiver.received.filter((r) =>
      /ring her back|prefers a call/.test(JSON.stringify(r.body)),
    );
    expect(leaked).toEqual([]);
  });

  it("the teammate is told in the bell and opens the conversation on it", async () => {
    const bell = teammatePage.getByRole("button", { name: /^Notifications/ });
    await bell.click();
    const item = teammatePage.getByRole("dialog").getByRole("button", { name: /mentioned you in a note/ });
    await item.waitFor({ timeout: 20_000 });
    await teammatePage
      .getByRole("dialog")
      .getByText(/Please ring her back, @Sam Lee/)
      .waitFor();
    await item.click();
    await teammatePage.waitForURL(conversationUrl);
    const note = thread(teammatePage).getByRole("article", { name: /^Private note by / });
    await note.getByText(NOTE_TEXT, { exact: false }).waitFor();
    await expectAccessible(teammatePage, "the teammate's view of the note");

    // The server says the same: the teammate has the note.mentioned notification.
    const bellJson = await teammatePage.evaluate(async () => {
      const res = await fetch("/app/api/notifications", { credentials: "same-origin" });
      return (await res.json()) as { data: { kind: string; link: string | null }[] };
    });
    const mentioned = bellJson.data.filter((n) => n.kind === "note.mentioned");
    expect(mentioned).toHaveLength(1);
    expect(conversationUrl.endsWith(mentioned[0]?.link ?? "?")).toBe(true);
  });
});

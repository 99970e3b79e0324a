// Private notes with @mentions, end to end: the owner switches the reply box to "Private note", types
// "@Sa", picks the teammate from the suggestions and adds the note; it shows in the thread as a private
// note (yellow, "Private note by …", the mention highlighted) and never reaches the webhook (a reply
// sent afterwards does). The teammate, in their own browser, finds "… mentioned you in a note" in the
// bell and opens the conversation on it. Against a real `parley serve` on SQLite and Chromium.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import {
  eventually,
  expectAccessible,
  inviteTeammate,
  saveWebhookUrl,
  screenshot,
  useBrowserSuite,
} from "./harness.ts";

const TEAMMATE = { name: "Sam Lee", email: "sam@note-books.test", password: "teammate password 42" };
const NOTE_TEXT = "she prefers a call in the morning.";

describe.skipIf(Boolean(process.env.DATABASE_URL))("private notes", () => {
  const suite = useBrowserSuite({ business: "Note Books", receiver: "started" });
  let teammatePage: Page;
  let conversationUrl = "";

  const thread = (p: Page = suite.page) => p.getByRole("list", { name: "Messages" });

  beforeAll(async () => {
    teammatePage = await suite.newPage("teammate");
  });

  it("sets up the webhook, a teammate and a conversation", async () => {
    await saveWebhookUrl(suite.page, suite.receiver.url);

    const link = await inviteTeammate(suite.page, teammatePage, TEAMMATE);
    expect(link).toContain("/invite/");

    await suite.incoming({
      messageSid: "note-sid-1",
      fromId: "maria-2001",
      toId: "books",
      body: "Call me back?",
    });
    await suite.page.getByRole("link", { name: "Inbox" }).click();
    await suite.page.getByRole("link", { name: /maria-2001/ }).click();
    await thread().getByText("Call me back?").waitFor();
    conversationUrl = suite.page.url();
    expect(conversationUrl).toMatch(/\/inbox\/cv_/);
  });

  it("the owner writes a note mentioning the teammate; it shows as a private note and never reaches the webhook", async () => {
    // The reply box is still the one field called "Reply".
    expect(await suite.page.getByLabel("Reply").count()).toBe(1);
    const noteMode = suite.page.getByRole("radio", { name: "Private note" });
    await noteMode.check();
    expect(await suite.page.getByRole("radio", { name: "Reply" }).isChecked()).toBe(false);
    const box = suite.page.getByPlaceholder("Write a private note… @ mentions a teammate");
    await box.waitFor();
    expect(await suite.page.getByRole("button", { name: "Send", exact: true }).count()).toBe(0);

    // "@Sa" offers Sam Lee; picking inserts "@Sam Lee ".
    await box.pressSequentially("Please ring her back, @Sa", { delay: 20 });
    const option = suite.page.getByRole("option", { name: /Sam Lee/ });
    await option.waitFor();
    await expectAccessible(suite.page, "note with the teammate suggestions");
    await option.click();
    await expect.poll(() => box.inputValue()).toBe("Please ring her back, @Sam Lee ");
    await box.pressSequentially(NOTE_TEXT, { delay: 5 });
    await suite.page.getByRole("button", { name: "Add note" }).click();

    const note = thread().getByRole("article", { name: /^Private note by / });
    await note.getByText(NOTE_TEXT, { exact: false }).waitFor();
    expect(await note.locator("[data-mention]").textContent()).toBe("@Sam Lee");
    await note.getByText("Only your team sees this").waitFor();
    await expect.poll(() => box.inputValue()).toBe("");
    // In time order: after the customer's message.
    const items = await thread().getByRole("listitem").allTextContents();
    const noteAt = items.findIndex((t) => t.includes(NOTE_TEXT));
    expect(noteAt).toBeGreaterThan(items.findIndex((t) => t.includes("Call me back?")));
    await expectAccessible(suite.page, "conversation with a private note");
    // The picture: the note in the thread, and the note box offering the teammates after "@".
    await box.pressSequentially("Also @", { delay: 20 });
    await option.waitFor();
    await suite.page.getByRole("button", { name: "Add note" }).scrollIntoViewIfNeeded();
    await screenshot(suite.page, "inbox-private-note", { fullPage: false });
    await box.press("Escape");
    await box.fill("");

    // A reply sent afterwards reaches the webhook; the note never did.
    await suite.page.getByRole("radio", { name: "Reply" }).check();
    await suite.page.getByLabel("Reply").fill("We will call you tomorrow morning.");
    await suite.page.getByRole("button", { name: "Send", exact: true }).click();
    await eventually(() =>
      suite.receiver.received.find((r) => r.body.body === "We will call you tomorrow morning."),
    );
    const leaked = suite.receiver.received.filter((r) =>
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

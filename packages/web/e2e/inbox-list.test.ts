// The conversation list a team reads all day (issue 33), at 1280 px and at 390 px: every row shows the
// contact's name (or, without one, its channel id and channel), the channel icon, the last message on
// one line with an ellipsis, a relative time and the unread / "Needs a human" markers, with nothing
// wider than its column; outgoing previews say who wrote ("Bot:", "Sam:", "You:"). On a phone the list
// and the conversation are two screens ("Back to conversations") and the filters fold behind "Filters".
// Against a real `parley serve` on SQLite and Chromium.
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  apiClient,
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

const SHOP = "https://shop.example";
const TEAMMATE = { name: "Sam Lee", email: "sam@row-books.test", password: "teammate password 42" };
const SAM_REPLY =
  "Sam here: your parcel left the depot this morning and should reach you by Friday afternoon.";
const OWN_REPLY = "Done: the new delivery address is saved and the courier has been told about the change.";

interface Row {
  id: string;
  contact: { fromId: string | null };
  lastMessage: { sender?: string } | null;
}

describe.skipIf(Boolean(process.env.DATABASE_URL))("the conversation list", () => {
  let parley: Parley;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser;
  let page: Page;
  let teammatePage: Page;
  let api: Awaited<ReturnType<typeof apiClient>>;
  let visitorId = "";

  const list = () => page.getByRole("list", { name: "Conversation list" });
  const rowOf = (name: string | RegExp) => list().getByRole("link", { name });

  /** The list as the owner's browser reads it (to wait for the bot's replies before a person's). */
  const rows = async (p: Page = page) =>
    ((await (await p.request.get(`${parley.url}/app/api/conversations`)).json()) as { data: Row[] }).data;
  /** A person's reply through the app's API, as the reply box sends it (the box is not this test's). */
  const replyAs = async (p: Page, fromId: string, body: string) => {
    const session = (await (await p.request.get(`${parley.url}/app/api/session`)).json()) as {
      csrfToken: string;
    };
    const id = (await rows(p)).find((r) => r.contact.fromId === fromId)?.id;
    const res = await p.request.post(`${parley.url}/app/api/conversations/${id}/messages`, {
      headers: { "x-csrf-token": session.csrfToken },
      data: { body },
    });
    expect(res.status(), await res.text()).toBe(201);
  };

  /** Every row fits its column: name, time and markers inside it, nothing scrolls sideways. */
  const expectRowsFit = async (what: string) => {
    const report = await list().evaluate((ul) => {
      const box = (el: Element | null) => el?.getBoundingClientRect();
      return {
        page: document.documentElement.scrollWidth - window.innerWidth,
        list: ul.scrollWidth - ul.clientWidth,
        rows: [...ul.querySelectorAll('[data-testid="conversation-row"]')].map((row) => {
          const r = box(row) as DOMRect;
          const inside = (sel: string) => {
            const b = box(row.querySelector(sel));
            return Boolean(b && b.width > 0 && b.left >= r.left - 0.5 && b.right <= r.right + 0.5);
          };
          return {
            text: row.textContent,
            overflow: row.scrollWidth - row.clientWidth,
            name: inside('[data-testid="conversation-name"]'),
            time: inside('[data-testid="conversation-time"]'),
            icon: inside('[data-testid="channel-icon"] svg'),
            timeText: row.querySelector('[data-testid="conversation-time"]')?.textContent ?? "",
          };
        }),
      };
    });
    expect(report.page, `${what}: page scrolls sideways`).toBeLessThanOrEqual(0);
    expect(report.list, `${what}: list scrolls sideways`).toBeLessThanOrEqual(0);
    expect(report.rows.length).toBe(4);
    for (const row of report.rows) {
      expect(row, what).toMatchObject({ overflow: 0, name: true, time: true, icon: true });
      expect(row.timeText, what).toMatch(/^(now|\d+ m)$/);
    }
  };

  /** The long preview ends in an ellipsis on one line (CSS text-overflow, not cut mid-word). */
  const expectEllipsis = async (name: RegExp) => {
    const preview = rowOf(name).getByTestId("conversation-preview");
    const style = await preview.evaluate((el) => {
      const s = getComputedStyle(el);
      return {
        textOverflow: s.textOverflow,
        whiteSpace: s.whiteSpace,
        clipped: el.scrollWidth > el.clientWidth,
      };
    });
    expect(style).toEqual({ textOverflow: "ellipsis", whiteSpace: "nowrap", clipped: true });
  };

  beforeAll(async () => {
    [parley, receiver, browser] = await Promise.all([startParley(), startReceiver(), launchBrowser()]);
    page = await newPage(browser);
    teammatePage = await newPage(browser);
    api = await apiClient(parley.url);
  });
  afterAll(async () => {
    await api?.dispose();
    await browser?.close();
    await receiver?.close();
    await parley?.stop();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === "fail" && page) await showFailure(page, ctx.task.name);
  });

  it("seeds a bot reply, a teammate's, the owner's and an unnamed website visitor", async () => {
    const apiKey = await onboardWithKey(page, parley.url, "Row Books");
    await page.getByLabel("Webhook URL").fill(receiver.url);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Webhook URL saved").waitFor();
    await page.getByLabel("Invite by email").fill(TEAMMATE.email);
    await page.getByRole("button", { name: "Create invite link" }).click();
    const link = (await page.getByTestId("invite-link").textContent())?.trim() ?? "";
    await teammatePage.goto(`${parley.url}${new URL(link).pathname}`);
    await teammatePage.getByLabel("Your name").fill(TEAMMATE.name);
    await teammatePage.getByLabel("Password").fill(TEAMMATE.password);
    await teammatePage.getByRole("button", { name: "Join" }).click();
    await teammatePage.getByRole("heading", { name: "Inbox" }).waitFor();

    const headers = { "x-api-key": apiKey };
    const channel = await api.post("/v1/channels", {
      headers,
      data: { type: "web", name: "Shop chat", config: { allowedOrigins: [SHOP] } },
    });
    expect(channel.status(), await channel.text()).toBe(201);
    const channelId = ((await channel.json()) as { id: string }).id;
    const visitor = await api.post(`/widget/v1/channels/${channelId}/visitors`, {
      headers: { origin: SHOP },
      data: {},
    });
    expect(visitor.status(), await visitor.text()).toBe(201);
    const v = (await visitor.json()) as { visitorToken: string; visitorId: string };
    visitorId = v.visitorId;
    const sent = await api.post(`/widget/v1/channels/${channelId}/messages`, {
      headers: { origin: SHOP, authorization: `Bearer ${v.visitorToken}` },
      data: { body: "Hello, is anyone there?", clientMessageId: "c-1" },
    });
    expect(sent.status(), await sent.text()).toBe(201);

    for (const [fromId, firstName, body] of [
      ["ada-1", "Ada", "Do you still have the first edition of the analytical engine notes in stock?"],
      ["bob-2", "Bob", "Where is my parcel? It was meant to arrive yesterday."],
      ["cleo-3", "Cleo", "Can I change my delivery address please?"],
    ]) {
      const res = await api.post(`/v1/incoming_custom_channel_message?apiKey=${apiKey}`, {
        data: { customData: { messageSid: `sid-${fromId}`, fromId, toId: "books", body, firstName } },
      });
      expect(res.status(), await res.text()).toBe(200);
    }
    // The bot answers each first (its fallback); then a teammate and the owner answer two of them.
    await expect
      .poll(
        async () =>
          (await rows()).filter(
            (c) => !c.contact.fromId?.startsWith("web:") && c.lastMessage?.sender === "bot",
          ).length,
        { timeout: 15_000 },
      )
      .toBe(3);
    await replyAs(teammatePage, "bob-2", SAM_REPLY);
    await replyAs(page, "cleo-3", OWN_REPLY);
  });

  it("shows every row whole at 1280 px, with who wrote the last message", async () => {
    await page.goto(`${parley.url}/inbox`);
    await rowOf(/Ada/).waitFor();
    // Sam's and the owner's replies arrived: all four previews are the final ones.
    await rowOf(/Cleo/).getByText(`You: ${OWN_REPLY}`).waitFor();
    await rowOf(/Ada/)
      .getByText(/^Bot: Thanks for your message/)
      .waitFor();
    await rowOf(/Bob/).getByText(`Sam: ${SAM_REPLY}`).waitFor();
    // The unnamed visitor: its widget id and the channel's name.
    const web = rowOf(new RegExp(visitorId));
    await web.getByText(`web:${visitorId}`).waitFor();
    await web.getByText("Shop chat").waitFor();
    await web.getByRole("img", { name: "Website chat" }).waitFor();
    // Markers: the bot's fallback asked for a person; the customers' messages are unread.
    await rowOf(/Ada/).getByText("Needs a human").waitFor();
    await rowOf(/Ada/).getByLabel("1 unread").waitFor();
    await expectRowsFit("1280 px");
    await expectEllipsis(/Ada/);
    await expectEllipsis(/Bob/);
    // Filters are open on a desktop, without a button to fold them.
    await page.getByRole("textbox", { name: "Contact label" }).waitFor();
    expect(await page.getByRole("button", { name: "Filters" }).count()).toBe(0);
    await expectAccessible(page, "inbox list at 1280 px");
    await screenshot(page, "inbox-list-desktop", { fullPage: false });
  });

  it("at 390 px: rows fit, filters fold, and a conversation is its own screen with a way back", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await rowOf(/Ada/).waitFor();
    await expectRowsFit("390 px");
    await expectEllipsis(/Bob/);

    const filters = page.getByRole("button", { name: "Filters" });
    expect(await filters.getAttribute("aria-expanded")).toBe("false");
    await expect.poll(() => page.getByRole("textbox", { name: "Contact label" }).isVisible()).toBe(false);
    await expectAccessible(page, "inbox list at 390 px");
    await screenshot(page, "inbox-list-phone", { fullPage: false });
    await filters.click();
    await page.getByRole("textbox", { name: "Contact label" }).waitFor();
    expect(await filters.getAttribute("aria-expanded")).toBe("true");
    await filters.click();
    await page.getByRole("textbox", { name: "Contact label" }).waitFor({ state: "hidden" });

    await rowOf(/Bob/).click();
    await page.getByRole("heading", { name: "Bob" }).first().waitFor();
    await expect.poll(() => list().isVisible()).toBe(false);
    const back = page.getByRole("button", { name: "Back to conversations" });
    await expectAccessible(page, "a conversation at 390 px");
    await back.click();
    await rowOf(/Bob/).waitFor();
    await expect.poll(() => back.isVisible()).toBe(false);

    // Back on a desktop the two sit side by side and the back button is gone.
    await page.setViewportSize({ width: 1280, height: 860 });
    await rowOf(/Bob/).click();
    await page.getByRole("heading", { name: "Bob" }).first().waitFor();
    expect(await list().isVisible()).toBe(true);
    expect(await back.isVisible()).toBe(false);
  });
});

// The conversation list a team reads all day (issue 33), at 1280 px and at 390 px: every row shows the
// contact's name (or, without one, its channel id and channel), the channel icon, the last message on
// one line with an ellipsis, a relative time and the unread / "Needs a human" markers, with nothing
// wider than its column; outgoing previews say who wrote ("Bot:", "Sam:", "You:"). On a phone the list
// and the conversation are two screens ("Back to conversations") and the filters fold behind "Filters".
// Against a real `parley serve` on SQLite and Chromium.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, inviteTeammate, screenshot, useBrowserSuite, visitorWrites } from "./harness.ts";

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
  const suite = useBrowserSuite({ business: "Row Books", receiver: "saved" });
  let teammatePage: Page;
  let visitorId = "";

  const list = () => suite.page.getByRole("list", { name: "Conversation list" });
  const rowOf = (name: string | RegExp) => list().getByRole("link", { name });

  /** The list as the owner's browser reads it (to wait for the bot's replies before a person's). */
  const rows = async (p: Page = suite.page) =>
    ((await (await p.request.get(`${suite.parley.url}/app/api/conversations`)).json()) as { data: Row[] })
      .data;
  /** A person's reply through the app's API, as the reply box sends it (the box is not this test's). */
  const replyAs = async (p: Page, fromId: string, body: string) => {
    const session = (await (await p.request.get(`${suite.parley.url}/app/api/session`)).json()) as {
      csrfToken: string;
    };
    const id = (await rows(p)).find((r) => r.contact.fromId === fromId)?.id;
    const res = await p.request.post(`${suite.parley.url}/app/api/conversations/${id}/messages`, {
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
    teammatePage = await suite.newPage("teammate");
  });

  it("seeds a bot reply, a teammate's, the owner's and an unnamed website visitor", async () => {
    await inviteTeammate(suite.page, teammatePage, TEAMMATE);

    const headers = { "x-api-key": suite.apiKey };
    const channel = await suite.api.post("/v1/channels", {
      headers,
      data: { type: "web", name: "Shop chat", config: { allowedOrigins: [SHOP] } },
    });
    expect(channel.status(), await channel.text()).toBe(201);
    const channelId = ((await channel.json()) as { id: string }).id;
    visitorId = (
      await visitorWrites(suite.api, channelId, SHOP, {
        body: "Hello, is anyone there?",
        clientMessageId: "c-1",
      })
    ).visitorId;

    for (const [fromId, firstName, body] of [
      ["ada-1", "Ada", "Do you still have the first edition of the analytical engine notes in stock?"],
      ["bob-2", "Bob", "Where is my parcel? It was meant to arrive yesterday."],
      ["cleo-3", "Cleo", "Can I change my delivery address please?"],
    ]) {
      await suite.incoming({ messageSid: `sid-${fromId}`, fromId, toId: "books", body, firstName });
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
    await replyAs(suite.page, "cleo-3", OWN_REPLY);
  });

  it("shows every row whole at 1280 px, with who wrote the last message", async () => {
    await suite.page.goto(`${suite.parley.url}/inbox`);
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
    await suite.page.getByRole("textbox", { name: "Contact label" }).waitFor();
    expect(await suite.page.getByRole("button", { name: "Filters" }).count()).toBe(0);
    await expectAccessible(suite.page, "inbox list at 1280 px");
    await screenshot(suite.page, "inbox-list-desktop", { fullPage: false });
  });

  it("at 390 px: rows fit, filters fold, and a conversation is its own screen with a way back", async () => {
    await suite.page.setViewportSize({ width: 390, height: 844 });
    await rowOf(/Ada/).waitFor();
    await expectRowsFit("390 px");
    await expectEllipsis(/Bob/);

    const filters = suite.page.getByRole("button", { name: "Filters" });
    expect(await filters.getAttribute("aria-expanded")).toBe("false");
    await expect
      .poll(() => suite.page.getByRole("textbox", { name: "Contact label" }).isVisible())
      .toBe(false);
    await expectAccessible(suite.page, "inbox list at 390 px");
    await screenshot(suite.page, "inbox-list-phone", { fullPage: false });
    await filters.click();
    await suite.page.getByRole("textbox", { name: "Contact label" }).waitFor();
    expect(await filters.getAttribute("aria-expanded")).toBe("true");
    await filters.click();
    await suite.page.getByRole("textbox", { name: "Contact label" }).waitFor({ state: "hidden" });

    await rowOf(/Bob/).click();
    await suite.page.getByRole("heading", { name: "Bob" }).first().waitFor();
    await expect.poll(() => list().isVisible()).toBe(false);
    const back = suite.page.getByRole("button", { name: "Back to conversations" });
    await expectAccessible(suite.page, "a conversation at 390 px");
    await back.click();
    await rowOf(/Bob/).waitFor();
    await expect.poll(() => back.isVisible()).toBe(false);

    // Back on a desktop the two sit side by side and the back button is gone.
    await suite.page.setViewportSize({ width: 1280, height: 860 });
    await rowOf(/Bob/).click();
    await suite.page.getByRole("heading", { name: "Bob" }).first().waitFor();
    expect(await list().isVisible()).toBe(true);
    expect(await back.isVisible()).toBe(false);
  });
});

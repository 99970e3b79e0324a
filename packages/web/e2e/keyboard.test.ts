// The inbox with the keyboard only (issue 33): j/k walk the list in its order and open each row (the
// row is current and focused), r focuses the reply box (where "j" is just a letter) and Ctrl+Enter sends,
// Esc leaves the box, a assigns to me, e resolves, ? opens the help dialog (Esc closes only it), Esc
// goes back to the list and / focuses the search. Against a real `parley serve` on SQLite and Chromium.
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
  showFailure,
  startParley,
  startReceiver,
} from "./harness.ts";

const REPLY = "just checking, one moment";

describe.skipIf(Boolean(process.env.DATABASE_URL))("inbox keyboard shortcuts", () => {
  let parley: Parley;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser;
  let page: Page;
  let api: Awaited<ReturnType<typeof apiClient>>;

  beforeAll(async () => {
    [parley, receiver, browser] = await Promise.all([startParley(), startReceiver(), launchBrowser()]);
    page = await newPage(browser);
    api = await apiClient(parley.url);
    const apiKey = await onboardWithKey(page, parley.url, "Key Board");
    await page.getByLabel("Webhook URL").fill(receiver.url);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Webhook URL saved").waitFor();
    for (const name of ["Ann", "Ben", "Cleo"]) {
      const res = await api.post(`/v1/incoming_custom_channel_message?apiKey=${apiKey}`, {
        data: {
          customData: {
            messageSid: `kb-${name}`,
            fromId: `kb-${name}`,
            toId: "shop",
            body: "Hello",
            firstName: name,
          },
        },
      });
      expect(res.status(), await res.text()).toBe(200);
    }
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

  const focused = () =>
    page.evaluate(() => {
      const el = document.activeElement;
      return el === document.body || !el
        ? "body"
        : `${el.tagName.toLowerCase()}:${el.getAttribute("aria-current") ?? ""}:${el.textContent?.slice(0, 40) ?? ""}`;
    });
  const title = () => page.locator("#conversation-title");
  // Under load a page answers in seconds, not the poll's default one.
  const poll = <T>(check: () => T | Promise<T>) => expect.poll(check, { timeout: 10_000 });

  it("works through a day's conversations without the mouse", async () => {
    await page.goto(`${parley.url}/inbox`);
    const rows = page.getByRole("list", { name: "Conversation list" }).getByRole("link");
    await rows.nth(2).waitFor();
    const names = (await rows.allTextContents()).map((t) =>
      ["Ann", "Ben", "Cleo"].find((n) => t.includes(n)),
    );

    await page.keyboard.press("j");
    await poll(() => title().textContent()).toBe(names[0]);
    await page.keyboard.press("j");
    await poll(() => title().textContent()).toBe(names[1]);
    await page.keyboard.press("k");
    await poll(() => title().textContent()).toBe(names[0]);
    // The opened row is current, focused, and the filters stayed in the address.
    await poll(focused).toMatch(new RegExp(`^a:page:.*${names[0]}`));

    await page.keyboard.press("r");
    const box = page.getByLabel("Reply");
    await poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type(REPLY);
    expect(await box.inputValue()).toBe(REPLY);
    expect(await title().textContent()).toBe(names[0]);
    await page.keyboard.press("Control+Enter");
    await page.getByRole("list", { name: "Messages" }).getByText(REPLY).waitFor();
    await eventually(() => receiver.received.find((r) => r.body.body === REPLY));

    await page.keyboard.press("Escape");
    await poll(focused).toBe("body");
    expect(page.url()).toMatch(/\/inbox\/\w+/);

    await page.keyboard.press("a");
    await poll(() => page.getByRole("combobox", { name: "Assignee" }).inputValue()).toMatch(/\(you\)$/);
    await page.getByText("Conversation assigned to you").waitFor();

    await page.keyboard.press("e");
    await page.getByRole("button", { name: "Reopen" }).waitFor();
    await page.getByText("Conversation resolved").waitFor();

    // Esc closes the help dialog only: the conversation stays open.
    await page.keyboard.press("?");
    const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await dialog.getByText("Assign the open conversation to you").waitFor();
    await expectAccessible(page, "inbox with the shortcuts dialog");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(page.url()).toMatch(/\/inbox\/\w+/);

    await page.keyboard.press("Escape");
    await poll(() => new URL(page.url()).pathname).toBe("/inbox");

    await page.keyboard.press("/");
    const search = page.getByLabel("Search conversations");
    await poll(() => search.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await search.inputValue()).toBe("");
    await page.keyboard.press("Escape");
    await poll(focused).toBe("body");
  });
});

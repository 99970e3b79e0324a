// Search that finds and shows (issue 33), end to end: a conversation with an older message holding
// the word; typing it in the inbox's search shows the results view with the contact and the matching
// message's snippet, the word in <mark>; clicking the hit opens the conversation at that message,
// highlighted and on screen. Against a real `parley serve` on SQLite and Chromium.
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  apiClient,
  expectAccessible,
  launchBrowser,
  newPage,
  onboardWithKey,
  type Parley,
  showFailure,
  startParley,
} from "./harness.ts";

describe.skipIf(Boolean(process.env.DATABASE_URL))("search", () => {
  let parley: Parley;
  let browser: Browser;
  let page: Page;
  let api: Awaited<ReturnType<typeof apiClient>>;
  let apiKey = "";

  beforeAll(async () => {
    [parley, browser] = await Promise.all([startParley(), launchBrowser()]);
    page = await newPage(browser);
    api = await apiClient(parley.url);
    apiKey = await onboardWithKey(page, parley.url, "Search Shop");
  });
  afterAll(async () => {
    await api?.dispose();
    await browser?.close();
    await parley?.stop();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === "fail" && page) await showFailure(page, ctx.task.name);
  });

  it("shows the matching message highlighted and opens the conversation at it", async () => {
    const post = async (sid: string, fromId: string, body: string) => {
      const res = await api.post(`/v1/incoming_custom_channel_message?apiKey=${apiKey}`, {
        data: { customData: { messageSid: sid, fromId, toId: "shop", body } },
      });
      expect(res.status(), await res.text()).toBe(200);
    };
    await post("s-1", "lena-1", "My umbrella arrived broken, can I get a refund?");
    // Later messages push the match out of the first screen of the thread.
    for (let i = 0; i < 25; i++) await post(`s-f${i}`, "lena-1", `Filler message number ${i}`);
    await post("s-2", "tom-2", "Where is my order?");

    await page.getByRole("link", { name: "Inbox" }).click();
    await page.getByLabel("Search conversations").fill("umbrella");
    const results = page.getByRole("list", { name: "Search results" });
    const hit = results.getByRole("link", { name: /lena-1/ });
    await hit.waitFor();
    expect(await results.getByRole("link").count()).toBe(1);
    expect(await hit.locator("mark").allTextContents()).toEqual(["umbrella"]);
    await expectAccessible(page, "inbox search results");

    await hit.click();
    const target = page.locator("[data-message-id][aria-current='true']");
    await target.waitFor();
    expect(await target.textContent()).toContain("My umbrella arrived broken");
    await expect.poll(() => target.isVisible()).toBe(true);
    await expect
      .poll(async () =>
        target.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return r.top >= 0 && r.bottom <= window.innerHeight;
        }),
      )
      .toBe(true);
  });
});

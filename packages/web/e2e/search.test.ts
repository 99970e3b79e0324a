// Search that finds and shows (issue 33), end to end: a conversation with an older message holding
// the word; typing it in the inbox's search shows the results view with the contact and the matching
// message's snippet, the word in <mark>; clicking the hit opens the conversation at that message,
// highlighted and on screen. Against a real `parley serve` on SQLite and Chromium.
import { describe, expect, it } from "vitest";
import { expectAccessible, useBrowserSuite } from "./harness.ts";

describe.skipIf(Boolean(process.env.DATABASE_URL))("search", () => {
  const suite = useBrowserSuite({ business: "Search Shop" });

  it("shows the matching message highlighted and opens the conversation at it", async () => {
    const post = (sid: string, fromId: string, body: string) =>
      suite.incoming({ messageSid: sid, fromId, toId: "shop", body });
    await post("s-1", "lena-1", "My umbrella arrived broken, can I get a refund?");
    // Later messages push the match out of the first screen of the thread.
    for (let i = 0; i < 25; i++) await post(`s-f${i}`, "lena-1", `Filler message number ${i}`);
    await post("s-2", "tom-2", "Where is my order?");

    await suite.page.getByRole("link", { name: "Inbox" }).click();
    await suite.page.getByLabel("Search conversations").fill("umbrella");
    const results = suite.page.getByRole("list", { name: "Search results" });
    const hit = results.getByRole("link", { name: /lena-1/ });
    await hit.waitFor();
    expect(await results.getByRole("link").count()).toBe(1);
    expect(await hit.locator("mark").allTextContents()).toEqual(["umbrella"]);
    await expectAccessible(suite.page, "inbox search results");

    await hit.click();
    const target = suite.page.locator("[data-message-id][aria-current='true']");
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

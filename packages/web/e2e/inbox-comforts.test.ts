// Issue 33's daily comforts, as a person sees them: no console error on the sign-in page, a tab
// title per page, a display name set on the account page, a link in a message that opens in a new
// tab, a failed reply that says when it is retried, "Needs a human" cleared by a person's reply
// with a line in the thread, and a sub-account's own balance. Real `parley serve` (SQLite), Chromium.
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
  startReceiver,
} from "./harness.ts";

describe.skipIf(Boolean(process.env.DATABASE_URL))("inbox comforts", () => {
  let parley: Parley;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser;
  let page: Page;
  let apiKey = "";

  beforeAll(async () => {
    [parley, receiver, browser] = await Promise.all([startParley(), startReceiver(), launchBrowser()]);
    page = await newPage(browser);
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await parley?.stop();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === "fail" && page) await showFailure(page, ctx.task.name);
  });

  it("the sign-in page logs no error in the console and names its tab", async () => {
    const signedOut = await newPage(browser);
    const errors: string[] = [];
    signedOut.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    await signedOut.goto(`${parley.url}/signin`);
    await signedOut.getByRole("button", { name: "Sign in" }).waitFor();
    await expect.poll(() => signedOut.title(), { timeout: 15_000 }).toBe("Sign in · Parley");
    expect(errors).toEqual([]);
    await signedOut.context().close();
  });

  it("the owner sets a display name on the account page", async () => {
    apiKey = await onboardWithKey(page, parley.url, "Comfy Books");
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe("Settings · Parley");
    await page.getByLabel("Webhook URL").fill(receiver.url);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Webhook URL saved").waitFor();
    await page.goto(`${parley.url}/account`);
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe("Your profile · Parley");
    await page.getByLabel("Display name").fill("Sam Owner");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.getByText("Display name saved.").waitFor();
    await expectAccessible(page, "account page");
  });

  it("a conversation: clickable link, retrying label, and a person's reply hands it back", async () => {
    // The receiver is down: the bot's fallback reply fails and is retried.
    receiver.state.failing = true;
    const api = await apiClient(parley.url);
    const res = await api.post(`/v1/incoming_custom_channel_message?apiKey=${apiKey}`, {
      data: {
        customData: {
          messageSid: "comfy-1",
          fromId: "maria-33",
          toId: "shop",
          body: "Where is my order? See https://example.com/orders/42.",
        },
      },
    });
    expect(res.status(), await res.text()).toBe(200);
    await api.dispose();
    await page.goto(`${parley.url}/inbox`);
    await expect.poll(() => page.title(), { timeout: 15_000 }).toMatch(/^(\(\d+\) )?Inbox · Parley$/);
    await page.getByRole("link", { name: /maria-33/ }).click();
    await expect.poll(() => page.title(), { timeout: 15_000 }).toMatch(/^(\(\d+\) )?maria-33.* · Parley$/);
    const thread = page.getByRole("list", { name: "Messages" });

    const link = thread.getByRole("link", { name: "https://example.com/orders/42" });
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");

    await page.getByRole("status").filter({ hasText: "Needs a human" }).waitFor();
    await thread.getByText(/^Failed, retrying at \d\d:\d\d \(attempt 2 of 8\)$/).waitFor();

    receiver.state.failing = false;
    await page.getByLabel("Reply").fill("Sam here, let me check.");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await thread.getByText("Handed back: Sam Owner replied", { exact: false }).waitFor();
    await page.getByRole("status").filter({ hasText: "Needs a human" }).waitFor({ state: "detached" });
    await expectAccessible(page, "conversation handed back");
  });

  it("a sub-account sees its own credit balance", async () => {
    await parley.cli([
      "account",
      "create",
      "--email",
      "agency@comfy.test",
      "--password",
      "agency pass 1",
      "--agency",
    ]);
    await parley.cli([
      "account",
      "create",
      "--email",
      "cafe@comfy.test",
      "--password",
      "cafe password 1",
      "--parent",
      "agency@comfy.test",
      "--credits",
      "25",
    ]);
    const sub = await newPage(browser);
    await sub.goto(`${parley.url}/signin`);
    await sub.getByLabel("Email").fill("cafe@comfy.test");
    await sub.getByLabel("Password").fill("cafe password 1");
    await sub.getByRole("button", { name: "Sign in" }).click();
    await sub.getByRole("button", { name: "Sign in" }).waitFor({ state: "detached" });
    await sub.goto(`${parley.url}/account`);
    const section = sub.getByRole("region", { name: "Credits" });
    await section.getByText("25", { exact: true }).waitFor();
    await expectAccessible(sub, "a sub-account's profile");
    await sub.context().close();
  });
});

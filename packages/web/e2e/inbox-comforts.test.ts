// Issue 33's daily comforts, as a person sees them: no console error on the sign-in page, a tab
// title per page, a display name set on the account page, a link in a message that opens in a new
// tab, a failed reply that says when it is retried, "Needs a human" cleared by a person's reply
// with a line in the thread, and a sub-account's own balance. Real `parley serve` (SQLite), Chromium.
import { describe, expect, it } from "vitest";
import {
  createAccount,
  expectAccessible,
  onboardWithKey,
  saveWebhookUrl,
  signIn,
  useBrowserSuite,
} from "./harness.ts";

describe.skipIf(Boolean(process.env.DATABASE_URL))("inbox comforts", () => {
  // Onboarding is a test of its own: the first one looks at the sign-in page of a fresh server.
  const suite = useBrowserSuite({ receiver: "started" });

  it("the sign-in page logs no error in the console and names its tab", async () => {
    const signedOut = await suite.newPage("signed out");
    const errors: string[] = [];
    signedOut.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    await signedOut.goto(`${suite.parley.url}/signin`);
    await signedOut.getByRole("button", { name: "Sign in" }).waitFor();
    await expect.poll(() => signedOut.title(), { timeout: 15_000 }).toBe("Sign in · Parley");
    expect(errors).toEqual([]);
    await signedOut.context().close();
  });

  it("the owner sets a display name on the account page", async () => {
    suite.apiKey = await onboardWithKey(suite.page, suite.parley.url, "Comfy Books");
    await expect.poll(() => suite.page.title(), { timeout: 15_000 }).toBe("Settings · Parley");
    await saveWebhookUrl(suite.page, suite.receiver.url);
    await suite.page.goto(`${suite.parley.url}/account`);
    await expect.poll(() => suite.page.title(), { timeout: 15_000 }).toBe("Your profile · Parley");
    await suite.page.getByLabel("Display name").fill("Sam Owner");
    await suite.page.getByRole("button", { name: "Save name" }).click();
    await suite.page.getByText("Display name saved.").waitFor();
    await expectAccessible(suite.page, "account page");
  });

  it("a conversation: clickable link, retrying label, and a person's reply hands it back", async () => {
    // The receiver is down: the bot's fallback reply fails and is retried.
    suite.receiver.state.failing = true;
    await suite.incoming({
      messageSid: "comfy-1",
      fromId: "maria-33",
      toId: "shop",
      body: "Where is my order? See https://example.com/orders/42.",
    });
    await suite.page.goto(`${suite.parley.url}/inbox`);
    await expect.poll(() => suite.page.title(), { timeout: 15_000 }).toMatch(/^(\(\d+\) )?Inbox · Parley$/);
    await suite.page.getByRole("link", { name: /maria-33/ }).click();
    await expect
      .poll(() => suite.page.title(), { timeout: 15_000 })
      .toMatch(/^(\(\d+\) )?maria-33.* · Parley$/);
    const thread = suite.page.getByRole("list", { name: "Messages" });

    const link = thread.getByRole("link", { name: "https://example.com/orders/42" });
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");

    await suite.page.getByRole("status").filter({ hasText: "Needs a human" }).waitFor();
    await thread.getByText(/^Failed, retrying at \d\d:\d\d \(attempt 2 of 8\)$/).waitFor();

    suite.receiver.state.failing = false;
    await suite.page.getByLabel("Reply").fill("Sam here, let me check.");
    await suite.page.getByRole("button", { name: "Send", exact: true }).click();
    await thread.getByText("Handed back: Sam Owner replied", { exact: false }).waitFor();
    await suite.page.getByRole("status").filter({ hasText: "Needs a human" }).waitFor({ state: "detached" });
    await expectAccessible(suite.page, "conversation handed back");
  });

  it("a sub-account sees its own credit balance", async () => {
    await createAccount(suite.parley, {
      email: "agency@comfy.test",
      password: "agency pass 1",
      agency: true,
    });
    await createAccount(suite.parley, {
      email: "cafe@comfy.test",
      password: "cafe password 1",
      parent: "agency@comfy.test",
      credits: 25,
    });
    const sub = await suite.newPage("sub-account");
    await signIn(sub, suite.parley.url, "cafe@comfy.test", "cafe password 1");
    await sub.goto(`${suite.parley.url}/account`);
    const section = sub.getByRole("region", { name: "Credits" });
    await section.getByText("25", { exact: true }).waitFor();
    await expectAccessible(sub, "a sub-account's profile");
    await sub.context().close();
  });
});

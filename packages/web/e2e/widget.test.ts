// The website chat widget end to end: a real `parley serve` (SQLite), a shop's page served from
// another local origin that embeds the snippet, a visitor in one Chromium context and the business's
// person in the inbox in another. The steps run in order, like one visitor's afternoon.
import http from "node:http";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectAccessible,
  listenOnLoopback,
  onboardWithKey,
  screenshot,
  useBrowserSuite,
} from "./harness.ts";

const QUESTION = "What are your opening hours?";
const ANSWER = "We are open 9 to 5, Monday to Friday.";
const FALLBACK = "Thanks! A person from the shop will answer you here shortly.";

/** The shop's page on two origins: one the business allowed, and another port it did not list. */
async function startShopSite(snippet: () => string) {
  const page = (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme Bikes</title>
<style>body{font-family:Georgia,serif;margin:0;background:#fdf6ec;color:#222} header{background:#7c2d12;color:#fff;padding:24px 32px}
main{padding:32px;max-width:720px} button{all:unset} * { box-sizing: content-box !important; }</style></head>
<body><header><h1>Acme Bikes</h1></header>
<main><h2>Repairs and rentals</h2><p>City bikes, carbon frames, same-week repairs. Ask us anything in the chat.</p></main>
${snippet()}
</body></html>`);
  };
  const [allowed, foreign] = await Promise.all([
    listenOnLoopback(http.createServer(page)),
    listenOnLoopback(http.createServer(page)),
  ]);
  return {
    allowed: `http://127.0.0.1:${allowed.port}`,
    foreign: `http://127.0.0.1:${foreign.port}`,
    close: () => Promise.all([allowed.close(), foreign.close()]),
  };
}

describe.skipIf(Boolean(process.env.DATABASE_URL))("the website chat widget", () => {
  // Onboarding is part of the first test.
  const suite = useBrowserSuite();
  /** The business's person, in the inbox. */
  let inbox: Page;
  let visitor: Page;
  let site: Awaited<ReturnType<typeof startShopSite>>;
  let channelId = "";
  let conversationId = "";

  const panel = () => visitor.getByRole("dialog", { name: "Chat with Acme Bikes" });

  beforeAll(async () => {
    site = await startShopSite(
      () => `<script src="${suite.parley.url}/widget.js" data-channel="${channelId}" async></script>`,
    );
    inbox = suite.page;
    visitor = await suite.newPage("visitor");
  });
  afterAll(async () => {
    await site?.close();
  });

  it("a business creates a web channel for its site, with knowledge for the bot", async () => {
    suite.apiKey = await onboardWithKey(inbox, suite.parley.url, "Acme Bikes");
    const headers = { "x-api-key": suite.apiKey };
    const campaigns = (await (await suite.api.get("/v1/campaigns", { headers })).json()) as {
      data: { id: string; isDefault: boolean }[];
    };
    const def = campaigns.data.find((c) => c.isDefault)!;
    const patched = await suite.api.patch(`/v1/campaigns/${def.id}`, {
      headers,
      data: { knowledge: [{ question: QUESTION, answer: ANSWER }], fallbackMessage: FALLBACK },
    });
    expect(patched.status(), await patched.text()).toBe(200);
    const res = await suite.api.post("/v1/channels", {
      headers,
      data: {
        type: "web",
        name: "Website",
        config: {
          allowedOrigins: [site.allowed],
          title: "Chat with Acme Bikes",
          greeting: "Hi! Ask us about repairs, rentals or opening hours.",
          color: "#1d4ed8",
          showAgentName: true,
        },
      },
    });
    expect(res.status(), await res.text()).toBe(201);
    const channel = (await res.json()) as { id: string; embedSnippet: string };
    channelId = channel.id;
    expect(channel.embedSnippet).toContain(`data-channel="${channelId}"`);
  });

  it("a visitor opens the chat on the shop's page, asks, and the bot answers from knowledge", async () => {
    await visitor.goto(site.allowed);
    const launcher = visitor.getByRole("button", { name: "Open chat" });
    await launcher.click();
    await panel().getByText("Hi! Ask us about repairs, rentals or opening hours.").waitFor();
    await visitor.getByRole("textbox", { name: "Message" }).fill(QUESTION);
    await visitor.getByRole("button", { name: "Send" }).click();
    await panel().getByText(QUESTION).waitFor();
    const started = Date.now();
    await panel().getByText(ANSWER).waitFor();
    console.error(
      `widget e2e: the bot's answer shown ${Date.now() - started} ms after the visitor's message was`,
    );
    // Keyboard: the textbox is focused after sending; Enter sends.
    await visitor.getByRole("textbox", { name: "Message" }).fill("Can I bring my own spaceship?");
    await visitor.keyboard.press("Enter");
    await panel().getByText(FALLBACK).waitFor();
    await expectAccessible(visitor, "the open widget on the shop's page");
    await screenshot(visitor, "widget", { fullPage: false });
  });

  it("a person answers from the inbox in another browser; the visitor sees typing… and the reply", async () => {
    const list = await inbox.request.get(`${suite.parley.url}/app/api/conversations`);
    expect(list.status()).toBe(200);
    const conversations = ((await list.json()) as { data: { id: string; channelId?: string | null }[] }).data;
    conversationId = conversations[0]!.id;
    await inbox.goto(`${suite.parley.url}/inbox/${conversationId}`);
    await inbox.getByText(QUESTION).first().waitFor();
    await inbox.getByLabel("Reply").pressSequentially("Sure, come by", { delay: 30 });
    // The inbox's reply box tells the visitor's widget (POST /app/api/conversations/{id}/typing).
    await panel().getByText("typing…").waitFor();
    await inbox.getByLabel("Reply").fill("Sure, come by any weekday before 5, I'm Maria.");
    await inbox.getByRole("button", { name: "Send", exact: true }).click();
    await panel().getByText("Sure, come by any weekday before 5, I'm Maria.").waitFor();
    await expect.poll(() => panel().getByText("typing…").count()).toBe(0);
    // The visitor has the panel open on screen: the inbox marks the person's reply Seen, live.
    await inbox
      .locator('[data-status="sent"]')
      .filter({ hasText: "I'm Maria." })
      .getByText("Seen", { exact: true })
      .waitFor();
    await screenshot(inbox, "inbox-website-chat");
    await screenshot(visitor, "widget-person-reply", { fullPage: false });
  });

  it("a reload keeps the conversation", async () => {
    await visitor.reload();
    await visitor.getByRole("button", { name: "Open chat" }).click();
    await panel().getByText(QUESTION).waitFor();
    await panel().getByText(ANSWER).waitFor();
    await panel().getByText("Sure, come by any weekday before 5, I'm Maria.").waitFor();
    // A new tab of the same site shares it too.
    const tab = await visitor.context().newPage();
    await tab.goto(site.allowed);
    await tab.getByRole("button", { name: "Open chat" }).click();
    await tab.getByText(ANSWER).waitFor();
    await tab.close();
  });

  it("a visitor attaches an image: the panel and the inbox show it; a file that is not what it says is refused", async () => {
    const file = panel().locator('input[type="file"]');
    // 1×1 transparent PNG.
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
      "base64",
    );
    await file.setInputFiles({ name: "frame.png", mimeType: "image/png", buffer: png });
    await panel().getByRole("button", { name: "Open attachment (image/png)" }).waitFor();
    await inbox.getByRole("img", { name: "Image attachment" }).waitFor();

    const before = await panel()
      .getByRole("button", { name: /^Open attachment/ })
      .count();
    await file.setInputFiles({
      name: "fake.png",
      mimeType: "image/png",
      buffer: Buffer.from("not a picture"),
    });
    await panel().getByRole("status").getByText("does not match its type", { exact: false }).waitFor();
    expect(
      await panel()
        .getByRole("button", { name: /^Open attachment/ })
        .count(),
    ).toBe(before);
  });

  it("a page on an origin the business did not list gets nothing", async () => {
    const page = await suite.newPage("another origin");
    const asked: string[] = [];
    const answered: number[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/widget/v1/")) asked.push(r.url());
    });
    // (The browser refuses the 403 for want of a CORS header: the page cannot even read it.)
    page.on("response", (r) => {
      if (r.url().includes("/widget/v1/")) answered.push(r.status());
    });
    await page.goto(site.foreign);
    await expect.poll(() => asked.length).toBeGreaterThan(0);
    await page.waitForTimeout(1000);
    expect(answered.filter((s) => s < 400)).toEqual([]);
    expect(asked.every((u) => u.endsWith("/config"))).toBe(true);
    expect(await page.getByRole("button", { name: "Open chat" }).count()).toBe(0);
    expect(await page.locator("[data-parley-widget]").count()).toBe(0);
    await page.context().close();
  });

  it("fits a phone-sized screen", async () => {
    const phone: BrowserContext = await suite.browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    const page = await phone.newPage();
    await page.goto(site.allowed);
    await page.getByRole("button", { name: "Open chat" }).click();
    const dialog = page.getByRole("dialog", { name: "Chat with Acme Bikes" });
    await dialog.getByText("Hi! Ask us about repairs").waitFor();
    const box = (await dialog.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(box.y).toBeGreaterThanOrEqual(0);
    const send = (await page.getByRole("button", { name: "Send" }).boundingBox())!;
    expect(send.x + send.width).toBeLessThanOrEqual(390);
    expect(send.y + send.height).toBeLessThanOrEqual(844);
    // No horizontal scrolling of the shop's page because of the widget.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, "the open widget on a phone");
    await screenshot(page, "widget-phone", { fullPage: false });
    await phone.close();
  });
});

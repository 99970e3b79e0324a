// The bot's "Did you mean" in the website chat widget, in Chromium against a real `parley serve`
// (SQLite): a shop's page on another local origin embeds the snippet; the visitor asks something the
// bot is unsure about, sees the choices as buttons under the bot's message (named by the questions),
// presses one, and gets that entry's answer; the buttons go once answered.
import http from "node:http";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, listenOnLoopback, useBrowserSuite } from "./harness.ts";

const KNOWLEDGE = [
  { question: "What are your opening hours on weekdays?", answer: "Monday to Friday 9:00 to 18:00." },
  { question: "What are your opening hours at weekends?", answer: "Saturday 10:00 to 16:00, closed Sunday." },
  { question: "How much does a bike service cost?", answer: "A full service is £60." },
  { question: "How much does a puncture repair cost?", answer: "A puncture repair is £12." },
  { question: "Where can I park?", answer: "Free parking behind the shop." },
];

describe.skipIf(Boolean(process.env.DATABASE_URL))("the widget's Did you mean buttons", () => {
  const suite = useBrowserSuite({ business: "Acme Bikes" });
  let visitor: Page;
  let site: { url: string; close: () => Promise<void> };
  let channelId = "";

  beforeAll(async () => {
    const server = await listenOnLoopback(
      http.createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme Bikes</title></head>
<body><main><h1>Acme Bikes</h1><p>Repairs and rentals.</p></main>
<script src="${suite.parley.url}/widget.js" data-channel="${channelId}" async></script></body></html>`);
      }),
    );
    site = { url: `http://127.0.0.1:${server.port}`, close: server.close };
    const campaigns = await suite.v1<{ data: { id: string; isDefault: boolean }[] }>("GET", "/v1/campaigns");
    const def = campaigns.data.find((c) => c.isDefault)!;
    await suite.v1("PATCH", `/v1/campaigns/${def.id}`, { knowledge: KNOWLEDGE, engine: "builtin" });
    const channel = await suite.v1<{ id: string }>("POST", "/v1/channels", {
      type: "web",
      name: "Website",
      config: { allowedOrigins: [site.url], title: "Chat with Acme Bikes" },
    });
    channelId = channel.id;
    visitor = await suite.newPage("visitor");
  });
  afterAll(async () => {
    await site?.close();
  });

  it("shows the choices as buttons under the bot's message; pressing one sends it and gets its answer", async () => {
    await visitor.goto(site.url);
    await visitor.getByRole("button", { name: "Open chat" }).click();
    const panel = visitor.getByRole("dialog", { name: "Chat with Acme Bikes" });
    await panel.getByRole("textbox", { name: "Message" }).fill("opening hours?");
    await panel.getByRole("button", { name: "Send" }).click();
    const choices = panel.getByRole("group", { name: "Suggested questions" });
    await choices.waitFor();
    expect(await choices.getByRole("button").allTextContents()).toEqual([
      KNOWLEDGE[0]!.question,
      KNOWLEDGE[1]!.question,
    ]);
    await panel.getByText("Reply with the number, or ask in other words.", { exact: false }).waitFor();
    await expectAccessible(visitor, "the widget showing the bot's choices");

    await choices.getByRole("button", { name: KNOWLEDGE[1]!.question }).click();
    // The press is the visitor's message (the question), and the bot answers that entry.
    await panel.locator(".me").getByText(KNOWLEDGE[1]!.question).waitFor();
    await panel.getByText(KNOWLEDGE[1]!.answer).waitFor();
    await expect.poll(() => choices.count()).toBe(0);
    // Focus stays in the chat, on the message box.
    expect(
      await visitor.evaluate(
        () =>
          (document.querySelector("[data-parley-widget]")?.shadowRoot?.activeElement as HTMLElement | null)
            ?.ariaLabel ?? null,
      ),
    ).toBe("Message");

    // After a reload the conversation is back; the choices, answered, stay gone.
    await visitor.reload();
    await visitor.getByRole("button", { name: "Open chat" }).click();
    await panel.getByText(KNOWLEDGE[1]!.answer).waitFor();
    expect(await panel.getByRole("group", { name: "Suggested questions" }).count()).toBe(0);
  });
});

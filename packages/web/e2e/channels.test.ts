// Settings → Channels end to end: an owner adds the website chat widget (type, settings beside the live
// preview, the snippet to copy), edits, pauses, resumes and deletes it; the inbox shows each
// conversation's channel and filters by it; the dashboard splits by channel; an agent only looks.
// Against a real `parley serve` on SQLite, in Chromium.
import { describe, expect, it } from "vitest";
import {
  type ChannelJson,
  expectAccessible,
  inviteTeammate,
  screenshot,
  useBrowserSuite,
  visitorWrites,
} from "./harness.ts";

const SHOP = "https://shop.example";
const AGENT = { name: "Alex Agent", email: "alex@bike-channels.test", password: "agent password 42" };

describe.skipIf(Boolean(process.env.DATABASE_URL))("Settings → Channels", () => {
  const suite = useBrowserSuite({
    business: "Bike Channels",
    permissions: ["clipboard-read", "clipboard-write"],
  });
  let channel: ChannelJson;
  let visitorId = "";

  /** The channel as the public API answers it (what the app saved, read back another way). */
  const v1Channel = async (id: string): Promise<ChannelJson> => {
    const res = await suite.api.get(`/v1/channels/${id}`, { headers: { "x-api-key": suite.apiKey } });
    expect(res.status(), await res.text()).toBe(200);
    return (await res.json()) as ChannelJson;
  };
  const row = (name: string | RegExp) =>
    suite.page.getByRole("table", { name: "Channels" }).getByRole("row", { name });

  it("Settings has a Channels page with an empty state, accessible", async () => {
    await suite.page
      .getByRole("navigation", { name: "Settings pages" })
      .getByRole("link", { name: "Channels" })
      .click();
    await suite.page.getByRole("heading", { name: "Channels", exact: true }).waitFor();
    expect(new URL(suite.page.url()).pathname).toBe("/settings/channels");
    await suite.page.getByText("No channels yet").waitFor();
    await expectAccessible(suite.page, "channels, empty");
  });

  it("an owner adds a website chat: type, settings with a live preview, then the snippet to copy", async () => {
    await suite.page.getByRole("button", { name: "Add channel" }).click();
    let dialog = suite.page.getByRole("dialog", { name: "Add channel" });
    // Every type can be picked: the website chat and the providers (channels-providers.test.ts adds those).
    await dialog.getByRole("button", { name: /WhatsApp/ }).waitFor();
    expect(await dialog.getByRole("button", { name: /WhatsApp/ }).isDisabled()).toBe(false);
    expect(await dialog.getByText("Coming soon").count()).toBe(0);
    await expectAccessible(suite.page, "add channel: the type");
    await dialog.getByRole("button", { name: /Website chat/ }).click();
    dialog = suite.page.getByRole("dialog", { name: "Add channel: Website chat" });

    // Nothing filled in: the form says what is missing under each field and sends nothing.
    await dialog.getByRole("button", { name: "Create channel" }).click();
    await dialog.getByText("Give the channel a name").waitFor();
    await dialog.getByText("Add at least one website").waitFor();
    await dialog.getByLabel("Channel name").fill("Shop chat");
    await dialog.getByLabel("Allowed websites").fill(`${SHOP}/contact`);
    await dialog.getByRole("button", { name: "Create channel" }).click();
    await dialog.getByText("only the scheme and host").waitFor();
    await dialog.getByLabel("Allowed websites").fill(`${SHOP}\nhttps://www.shop.example`);

    // The preview follows the settings as they are typed.
    const preview = dialog.getByTestId("widget-preview");
    await preview.getByText("Hi! How can we help?").waitFor();
    await dialog.getByLabel("Greeting").fill("Hello from the shop! Ask us anything.");
    await preview.getByText("Hello from the shop! Ask us anything.").waitFor();
    await dialog.getByLabel("Title").fill("Bike Shop");
    await preview.getByTestId("preview-title").getByText("Bike Shop").waitFor();
    await dialog.getByLabel("Colour").fill("#0f766e");
    await dialog.getByLabel("Bottom left").check();
    const launcher = preview.getByTestId("preview-launcher");
    await expect
      .poll(() => launcher.evaluate((el) => getComputedStyle(el).backgroundColor), { timeout: 10_000 })
      .toBe("rgb(15, 118, 110)");
    expect(await launcher.getAttribute("data-position")).toBe("left");
    const box = await launcher.boundingBox();
    const frame = await preview.boundingBox();
    expect(box && frame && box.x - frame.x < frame.width / 2).toBe(true);
    await dialog.getByLabel("Ask for an e-mail when no one answers").check();
    await preview.getByText("Leave your e-mail").waitFor();
    await expectAccessible(suite.page, "add channel: the settings and preview");
    // A taller window, so the picture holds the whole dialog.
    await suite.page.setViewportSize({ width: 1280, height: 1040 });
    await screenshot(suite.page, "channel-add", { fullPage: false });
    await suite.page.setViewportSize({ width: 1280, height: 860 });

    await dialog.getByRole("button", { name: "Create channel" }).click();
    const done = suite.page.getByRole("dialog", { name: "Shop chat is ready" });
    const snippet = (await done.getByTestId("embed-snippet").textContent()) ?? "";
    expect(snippet).toMatch(
      /^<script src="https:\/\/[^"]+\/widget\.js" data-channel="ch_[^"]+" async><\/script>$/,
    );
    await done.getByRole("button", { name: "Copy snippet" }).click();
    await done.getByRole("button", { name: "Copied" }).waitFor();
    expect(await suite.page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
    await expectAccessible(suite.page, "add channel: the snippet");
    await done.getByRole("button", { name: "Done" }).click();

    await row(/Shop chat/)
      .getByText("Active")
      .waitFor();
    const id = /data-channel="(ch_[^"]+)"/.exec(snippet)?.[1] ?? "";
    channel = await v1Channel(id);
    expect(channel).toMatchObject({
      type: "web",
      name: "Shop chat",
      status: "active",
      embedSnippet: snippet,
    });
    expect(channel.config).toMatchObject({
      allowedOrigins: [SHOP, "https://www.shop.example"],
      title: "Bike Shop",
      greeting: "Hello from the shop! Ask us anything.",
      color: "#0f766e",
      position: "left",
      collectEmail: true,
      showAgentName: false,
    });
  });

  it("an owner edits the channel, pauses it and resumes it", async () => {
    await row(/Shop chat/)
      .getByRole("button", { name: "Edit" })
      .click();
    const dialog = suite.page.getByRole("dialog", { name: "Edit Shop chat" });
    // What was saved is in the form, and the snippet is there to copy again.
    expect(await dialog.getByLabel("Greeting").inputValue()).toBe("Hello from the shop! Ask us anything.");
    expect(await dialog.getByLabel("Bottom left").isChecked()).toBe(true);
    await dialog.getByTestId("embed-snippet").waitFor();
    await dialog.getByLabel("Title").fill("Talk to Bike Shop");
    await dialog.getByLabel("Show the first name of the person who answers").check();
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await suite.page.getByText("Shop chat saved").waitFor();
    await dialog.waitFor({ state: "detached" });
    expect((await v1Channel(channel.id)).config).toMatchObject({
      title: "Talk to Bike Shop",
      showAgentName: true,
      greeting: "Hello from the shop! Ask us anything.",
    });

    // Each click: the row shows the new status, and the API has it.
    for (const [button, shown] of [
      ["Pause", "Paused"],
      ["Resume", "Active"],
    ] as const) {
      await row(/Shop chat/)
        .getByRole("button", { name: button })
        .click();
      await row(/Shop chat/)
        .getByText(shown)
        .waitFor();
      expect((await v1Channel(channel.id)).status).toBe(shown.toLowerCase());
    }
    await expectAccessible(suite.page, "channels, one channel");
    // The page without the notifications of the last clicks over it.
    for (const dismiss of await suite.page.getByRole("button", { name: "Dismiss" }).all()) {
      await dismiss.click().catch(() => {});
    }
    await expect
      .poll(() => suite.page.getByRole("button", { name: "Dismiss" }).count(), { timeout: 10_000 })
      .toBe(0);
    await screenshot(suite.page, "channels");
  });

  it("the inbox shows each conversation's channel and filters by it; the dashboard splits by channel", async () => {
    // A visitor writes through the widget's public endpoints (as widget.js does from the shop's page)...
    visitorId = (
      await visitorWrites(suite.api, channel.id, SHOP, {
        body: "Do you repair e-bikes?",
        clientMessageId: "c-1",
      })
    ).visitorId;
    // ... and a customer through the business's own integration (the custom channel).
    await suite.incoming({ messageSid: "m-1", fromId: "maria-1001", toId: "shop", body: "Hello?" });

    await suite.page.getByRole("link", { name: "Inbox", exact: true }).click();
    const list = suite.page.getByRole("list", { name: "Conversation list" });
    // The visitor has no name: the row shows its widget id (web:<visitorId>).
    const webRow = list.getByRole("link", { name: new RegExp(visitorId) });
    const customRow = list.getByRole("link", { name: /maria-1001/ });
    await webRow.getByRole("img", { name: "Website chat" }).waitFor();
    await webRow.getByText("Shop chat").waitFor();
    await customRow.getByRole("img", { name: "Custom channel" }).waitFor();

    await suite.page.getByRole("combobox", { name: "Channel", exact: true }).click();
    await suite.page.getByRole("option", { name: "Shop chat" }).click();
    await expect
      .poll(() => new URL(suite.page.url()).searchParams.get("channelId"), { timeout: 10_000 })
      .toBe(channel.id);
    await customRow.waitFor({ state: "detached" });
    await webRow.waitFor();
    await suite.page.getByRole("combobox", { name: "Channel", exact: true }).click();
    await suite.page.getByRole("option", { name: "Custom channel", exact: true }).click();
    await expect
      .poll(() => new URL(suite.page.url()).searchParams.get("channelId"), { timeout: 10_000 })
      .toBe("custom");
    await webRow.waitFor({ state: "detached" });
    await customRow.waitFor();
    await expectAccessible(suite.page, "inbox filtered by channel");

    // Typing a reply in a website chat conversation tells the visitor's widget ("typing…").
    await suite.page.goto(`${suite.parley.url}/inbox?channelId=${channel.id}`);
    await webRow.click();
    const typing = suite.page.waitForResponse(
      (r) => r.url().endsWith("/typing") && r.request().method() === "POST",
    );
    await suite.page.getByLabel("Reply").fill("Yes, we do");
    expect((await typing).status()).toBe(204);

    await suite.page.getByRole("link", { name: "Dashboard", exact: true }).click();
    const table = suite.page.getByRole("table", { name: "Messages by channel" });
    // Each channel had one incoming message today (the bot's replies are outgoing): a row reads
    // "<channel> <incoming> <outgoing> ...".
    const rows = () =>
      table
        .locator("tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim() ?? "")),
        );
    await table.getByRole("row", { name: /Shop chat/ }).waitFor();
    // (The first cell's text starts with the icon's title: "Website chatShop chat".)
    const incomingOf = async (name: string) => (await rows()).find(([first]) => first?.endsWith(name))?.[1];
    expect(await incomingOf("Shop chat")).toBe("1");
    expect(await incomingOf("Custom channel")).toBe("1");
    await expectAccessible(suite.page, "dashboard with the channel split");
  });

  it("an agent sees the channels but cannot add or change one", async () => {
    await suite.page.getByRole("link", { name: "Settings", exact: true }).click();
    const agentPage = await suite.newPage("agent");
    try {
      await inviteTeammate(suite.page, agentPage, AGENT);
      await agentPage.goto(`${suite.parley.url}/settings/channels`);
      await agentPage.getByRole("heading", { name: "Channels", exact: true }).waitFor();
      await agentPage.getByRole("table", { name: "Channels" }).getByText("Shop chat").waitFor();
      await agentPage.getByText("Only owners and admins", { exact: false }).waitFor();
      expect(await agentPage.getByRole("button", { name: "Add channel" }).count()).toBe(0);
      expect(await agentPage.getByRole("button", { name: "Pause" }).count()).toBe(0);
      await expectAccessible(agentPage, "channels as an agent");
      // Nor behind the page's back: the session API refuses the agent's write.
      const status = await agentPage.evaluate(async () => {
        const session = (await (await fetch("/app/api/session")).json()) as { csrfToken: string };
        const res = await fetch("/app/api/channels", {
          method: "POST",
          headers: { "content-type": "application/json", "x-csrf-token": session.csrfToken },
          body: JSON.stringify({
            type: "web",
            name: "Agent's",
            config: { allowedOrigins: ["https://a.example"] },
          }),
        });
        return res.status;
      });
      expect(status).toBe(403);
    } finally {
      await agentPage.context().close();
    }
    const all = await suite.api.get("/v1/channels", { headers: { "x-api-key": suite.apiKey } });
    expect(((await all.json()) as { data: ChannelJson[] }).data.map((c) => c.name)).toEqual(["Shop chat"]);
  });

  it("an owner deletes the channel behind a confirmation; its conversation stays in the inbox", async () => {
    await suite.page
      .getByRole("navigation", { name: "Settings pages" })
      .getByRole("link", { name: "Channels" })
      .click();
    await row(/Shop chat/)
      .getByRole("button", { name: "Delete…" })
      .click();
    let dialog = suite.page.getByRole("dialog", { name: "Delete Shop chat?" });
    await expectAccessible(suite.page, "delete channel confirmation");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect((await v1Channel(channel.id)).status).toBe("active");

    await row(/Shop chat/)
      .getByRole("button", { name: "Delete…" })
      .click();
    dialog = suite.page.getByRole("dialog", { name: "Delete Shop chat?" });
    await dialog.getByRole("button", { name: "Delete channel" }).click();
    await suite.page.getByText("No channels yet").waitFor();
    const gone = await suite.api.get(`/v1/channels/${channel.id}`, {
      headers: { "x-api-key": suite.apiKey },
    });
    expect(gone.status()).toBe(404);

    await suite.page.getByRole("link", { name: "Inbox", exact: true }).click();
    await suite.page
      .getByRole("list", { name: "Conversation list" })
      .getByRole("link", { name: new RegExp(visitorId) })
      .getByRole("img", { name: "Deleted channel" })
      .waitFor();
  });
});

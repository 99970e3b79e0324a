// Settings → Channels for the provider channels, end to end: an owner adds a WhatsApp channel filling
// each field, gets the callback URL and the verify token to paste into Meta (and Meta's handshake
// answers with that token), sees the channel listed with its secrets masked (the full token is never on
// the page), edits it keeping the secrets; a Telegram channel whose setWebhook is refused (no Telegram
// is reachable: TELEGRAM_API_URL points at a closed port) is created in error, and its error shows in
// Settings → Channels and on the dashboard. The inbox shows a WhatsApp reply Delivered, then Read, as
// Meta reports them (a local stand-in of the Graph API takes the sends), and a contact who texted STOP
// to a Twilio number shows "Opted out of SMS". Against a real `parley serve` on SQLite, in Chromium.

import { getExpectedTwilioSignature } from "twilio/lib/webhooks/webhooks.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type MetaStandIn,
  metaSignature,
  startMetaStandIn,
  whatsappMessages,
  whatsappStatus,
} from "../../server/test/stand-ins/meta.ts";
import { type ChannelJson, eventually, expectAccessible, useBrowserSuite } from "./harness.ts";

/** The address providers reach Parley at: every inbound URL starts with it. */
const PUBLIC_URL = "https://parley.example.test";
const WHATSAPP = {
  name: "Shop WhatsApp",
  phoneNumberId: "106540352242922",
  accessToken: "EAAGm0PX4ZCpsBAFullAccessTokenThatMustNeverShowUp9wXyZ",
  appSecret: "4f1d2c3b4a5968778695a4b3c2d1e0f9",
};
const TELEGRAM = { name: "Support bot", botToken: "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw" };

describe.skipIf(Boolean(process.env.DATABASE_URL))("Settings → Channels: the provider channels", () => {
  let graph: MetaStandIn;
  beforeAll(async () => {
    graph = await startMetaStandIn();
    graph.tokens.add(WHATSAPP.accessToken);
  });
  afterAll(async () => {
    await graph?.close();
  });
  const suite = useBrowserSuite({
    // Nothing listens on port 9 (discard): Telegram's setWebhook is refused at once.
    env: () => ({ PUBLIC_URL, TELEGRAM_API_URL: "http://127.0.0.1:9", META_GRAPH_URL: graph.url }),
    business: "Bike Providers",
    permissions: ["clipboard-read", "clipboard-write"],
  });
  let whatsapp: ChannelJson;
  let verifyToken = "";

  const v1Channels = async (): Promise<ChannelJson[]> => {
    const res = await suite.api.get("/v1/channels", { headers: { "x-api-key": suite.apiKey } });
    expect(res.status(), await res.text()).toBe(200);
    return ((await res.json()) as { data: ChannelJson[] }).data;
  };
  const row = (name: string | RegExp) =>
    suite.page.getByRole("table", { name: "Channels" }).getByRole("row", { name });
  const openChannels = async () => {
    await suite.page.goto(`${suite.parley.url}/settings/channels`);
    await suite.page.getByRole("heading", { name: "Channels", exact: true }).waitFor();
  };
  /** Settings → Channels, "Add channel", the type picked: answers the dialog for its settings. */
  const addChannelOfType = async (type: "WhatsApp" | "Telegram") => {
    await openChannels();
    await suite.page.getByRole("button", { name: "Add channel" }).click();
    await suite.page
      .getByRole("dialog", { name: "Add channel" })
      .getByRole("button", { name: new RegExp(type) })
      .click();
    return suite.page.getByRole("dialog", { name: `Add channel: ${type}` });
  };
  const dismissNotifications = async () => {
    for (const dismiss of await suite.page.getByRole("button", { name: "Dismiss" }).all()) {
      await dismiss.click().catch(() => {});
    }
  };

  it("an owner adds a WhatsApp channel and gets the callback URL and verify token to paste into Meta", async () => {
    const dialog = await addChannelOfType("WhatsApp");

    // Nothing filled in: each missing field says so, and nothing is sent.
    await dialog.getByRole("button", { name: "Create channel" }).click();
    await dialog.getByText("Give the channel a name").waitFor();
    await dialog.getByText("Phone number ID is required").waitFor();
    await dialog.getByText("Access token is required").waitFor();
    await dialog.getByText("App secret is required").waitFor();
    expect(await v1Channels()).toEqual([]);

    await dialog.getByLabel("Channel name").fill(WHATSAPP.name);
    await dialog.getByLabel("Phone number ID").fill(WHATSAPP.phoneNumberId);
    await dialog.getByLabel("Access token").fill(WHATSAPP.accessToken);
    await dialog.getByLabel("App secret").fill(WHATSAPP.appSecret);
    // The secrets are password inputs; the verify token comes generated, to copy into Meta's console.
    for (const label of ["Access token", "App secret", "Verify token"]) {
      expect(await dialog.getByLabel(label).getAttribute("type")).toBe("password");
    }
    verifyToken = await dialog.getByLabel("Verify token").inputValue();
    expect(verifyToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    await dialog.getByRole("button", { name: "Generate another" }).click();
    const regenerated = await dialog.getByLabel("Verify token").inputValue();
    expect(regenerated).not.toBe(verifyToken);
    verifyToken = regenerated;
    await dialog.getByRole("button", { name: "Copy token" }).click();
    expect(await suite.page.evaluate(() => navigator.clipboard.readText())).toBe(verifyToken);
    expect(await dialog.getByLabel("Graph API version").getAttribute("placeholder")).toBe("v21.0");

    // What only the server knows is wrong comes back next to the form, and under the field it names.
    await dialog.getByLabel("Graph API version").fill("v21.10");
    await dialog.getByRole("button", { name: "Create channel" }).click();
    const refused = dialog.getByRole("alert").filter({ hasText: "Not saved" });
    await refused.getByText("config.graphVersion must look like v21.0").waitFor();
    await dialog.getByText("Graph API version must look like v21.0").waitFor();
    expect(await v1Channels()).toEqual([]);
    await expectAccessible(suite.page, "add a WhatsApp channel: a setting the server refused");
    await dialog.getByLabel("Graph API version").fill("");
    await expectAccessible(suite.page, "add a WhatsApp channel: the settings");

    await dialog.getByRole("button", { name: "Create channel" }).click();
    const ready = suite.page.getByRole("dialog", { name: `${WHATSAPP.name} is ready` });
    const inboundUrl = (await ready.getByTestId("inbound-url").textContent()) ?? "";
    expect(inboundUrl).toMatch(/^https:\/\/parley\.example\.test\/v1\/channels\/ch_[^/]+\/inbound$/);
    await ready.getByText("Callback URL", { exact: true }).waitFor();
    expect(await ready.getByTestId("verify-token").textContent()).toBe(verifyToken);
    await ready.getByText("subscribe to the messages field").waitFor();
    await ready.getByRole("button", { name: "Copy URL" }).click();
    await ready.getByRole("button", { name: "Copied" }).waitFor();
    expect(await suite.page.evaluate(() => navigator.clipboard.readText())).toBe(inboundUrl);
    await expectAccessible(suite.page, "add a WhatsApp channel: what to paste into Meta");
    await ready.getByRole("button", { name: "Done" }).click();
    await ready.waitFor({ state: "detached" });

    // Listed, active, with the secrets masked: never the full access token, app secret or verify token.
    await row(/Shop WhatsApp/)
      .getByText("Active", { exact: true })
      .waitFor();
    const last4 = WHATSAPP.accessToken.slice(-4);
    await row(/Shop WhatsApp/)
      .getByText(`••••${last4}`)
      .waitFor();
    await row(/Shop WhatsApp/)
      .getByText(WHATSAPP.phoneNumberId)
      .waitFor();
    const html = await suite.page.content();
    for (const secret of [WHATSAPP.accessToken, WHATSAPP.appSecret, verifyToken]) {
      expect(html.includes(secret), "a secret is on the page").toBe(false);
    }
    await dismissNotifications();
    await expectAccessible(suite.page, "channels with a WhatsApp channel");

    const channels = await v1Channels();
    expect(channels).toHaveLength(1);
    whatsapp = channels[0]!;
    expect(whatsapp).toMatchObject({ type: "whatsapp", name: WHATSAPP.name, status: "active", inboundUrl });
    expect(whatsapp.config).toMatchObject({
      phoneNumberId: WHATSAPP.phoneNumberId,
      accessToken: `••••${last4}`,
      appSecret: `••••${WHATSAPP.appSecret.slice(-4)}`,
      verifyToken: `••••${verifyToken.slice(-4)}`,
    });

    // What the person pastes into Meta works: Meta's handshake on the callback URL with the verify token
    // echoes the challenge (here on the server's own address; PUBLIC_URL is where Meta would call it).
    const path = new URL(inboundUrl).pathname;
    const ok = await suite.api.get(
      `${path}?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(verifyToken)}&hub.challenge=1158201444`,
    );
    expect(ok.status(), await ok.text()).toBe(200);
    expect(await ok.text()).toBe("1158201444");
    const wrong = await suite.api.get(`${path}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`);
    expect(wrong.status()).toBe(403);
  });

  it("an owner edits the WhatsApp channel: secrets left empty keep their value", async () => {
    await row(/Shop WhatsApp/)
      .getByRole("button", { name: "Edit" })
      .click();
    const dialog = suite.page.getByRole("dialog", { name: `Edit ${WHATSAPP.name}` });
    // The callback URL is there to copy again; the secrets are empty, their masks as placeholders.
    expect(await dialog.getByTestId("inbound-url").textContent()).toBe(whatsapp.inboundUrl);
    expect(await dialog.getByLabel("Phone number ID").inputValue()).toBe(WHATSAPP.phoneNumberId);
    expect(await dialog.getByLabel("Access token").inputValue()).toBe("");
    expect(await dialog.getByLabel("Access token").getAttribute("placeholder")).toBe(
      `••••${WHATSAPP.accessToken.slice(-4)}`,
    );
    await expectAccessible(suite.page, "edit a WhatsApp channel");
    await dialog.getByLabel("Phone number ID").fill("106540352242999");
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await suite.page.getByText(`${WHATSAPP.name} saved`).waitFor();
    await dialog.waitFor({ state: "detached" });
    const [saved] = await v1Channels();
    expect(saved?.config).toMatchObject({
      phoneNumberId: "106540352242999",
      accessToken: `••••${WHATSAPP.accessToken.slice(-4)}`,
      verifyToken: `••••${verifyToken.slice(-4)}`,
    });
    // The verify token kept: Meta's handshake still answers with it.
    const path = new URL(whatsapp.inboundUrl ?? "").pathname;
    const ok = await suite.api.get(
      `${path}?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=42`,
    );
    expect(await ok.text()).toBe("42");
  });

  it("the inbox shows a WhatsApp reply Delivered, then Read, as Meta reports them", async () => {
    const path = new URL(whatsapp.inboundUrl ?? "").pathname;
    /** A webhook post as Meta sends it: signed with the app secret over the raw body. */
    const fromMeta = async (payload: unknown) => {
      const raw = JSON.stringify(payload);
      const res = await suite.api.post(path, {
        headers: {
          "content-type": "application/json",
          "x-hub-signature-256": metaSignature(WHATSAPP.appSecret, raw),
        },
        data: raw,
      });
      expect(res.status(), await res.text()).toBe(200);
    };
    await fromMeta(
      whatsappMessages(WHATSAPP.phoneNumberId, { waId: "4915112345678", name: "Maria" }, [
        { type: "text", text: { body: "Is my bike ready?" } },
      ]),
    );

    await suite.page.goto(`${suite.parley.url}/inbox`);
    await suite.page
      .getByRole("list", { name: "Conversation list" })
      .getByRole("link", { name: /Maria/ })
      .click();
    // The message in the thread (the same words may also show in the list's preview or a summary).
    await suite.page.locator("[data-message-id]").filter({ hasText: "Is my bike ready?" }).waitFor();
    const reply = "Yes, come by at five.";
    await suite.page.getByLabel("Reply").fill(reply);
    await suite.page.getByRole("button", { name: "Send", exact: true }).click();
    const message = suite.page.locator("[data-message-id]").filter({ hasText: reply });
    await message.getByText("Sent", { exact: true }).waitFor();
    const out = await eventually(() =>
      graph.sends().find((r) => (r.body?.text as { body?: string } | undefined)?.body === reply),
    );
    expect(out.body?.to).toBe("4915112345678");
    const wamid = out.answeredId ?? "";
    const status = (s: "delivered" | "read") =>
      whatsappStatus(WHATSAPP.phoneNumberId, wamid, "4915112345678", s);
    await fromMeta(status("delivered"));
    await message.getByText("Delivered", { exact: true }).waitFor();
    await fromMeta(status("read"));
    await message.getByText("Read", { exact: true }).waitFor();
    expect(await message.getByText("Delivered", { exact: true }).count()).toBe(0);
    await expectAccessible(suite.page, "a WhatsApp conversation with a reply Read");
  });

  it("a contact who texted STOP to a Twilio number shows Opted out of SMS", async () => {
    const auth = { accountSid: `AC${"0123456789abcdef".repeat(2)}`, authToken: "f".repeat(32) };
    const created = await suite.api.post("/v1/channels", {
      headers: { "x-api-key": suite.apiKey },
      data: { type: "twilio_sms", name: "Shop SMS", config: { ...auth, from: "+14155550100" } },
    });
    expect(created.status(), await created.text()).toBe(201);
    const inboundUrl = ((await created.json()) as ChannelJson).inboundUrl ?? "";
    /** Twilio's form post, signed over the URL it called and the sorted parameters (HMAC-SHA1). */
    const fromTwilio = async (sid: string, body: string) => {
      const params: Record<string, string> = {
        AccountSid: auth.accountSid,
        MessageSid: sid,
        From: "+14155550199",
        To: "+14155550100",
        Body: body,
        NumMedia: "0",
      };
      const signature = getExpectedTwilioSignature(auth.authToken, inboundUrl, params);
      const res = await suite.api.post(new URL(inboundUrl).pathname, {
        headers: { "x-twilio-signature": signature },
        form: params,
      });
      expect(res.status(), await res.text()).toBe(200);
    };
    // The customer wrote before (so Parley knows the number as a contact), then texts STOP.
    await fromTwilio(`SM${"1".repeat(32)}`, "Do you have this in blue?");
    await expect
      .poll(
        async () => {
          const list = await suite.api.get("/v1/contacts?limit=100", {
            headers: { "x-api-key": suite.apiKey },
          });
          return ((await list.json()) as { data: { phone: string | null }[] }).data.some(
            (c) => c.phone === "+14155550199",
          );
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    await fromTwilio(`SM${"2".repeat(32)}`, "STOP");
    // The job takes the STOP in a moment: the contact (made from the number) is marked opted out.
    let contactId = "";
    await expect
      .poll(
        async () => {
          const list = await suite.api.get("/v1/contacts?limit=100", {
            headers: { "x-api-key": suite.apiKey },
          });
          const { data } = (await list.json()) as {
            data: { id: string; phone: string | null; smsOptedOutAt?: string | null }[];
          };
          contactId = data.find((c) => c.phone === "+14155550199" && c.smsOptedOutAt)?.id ?? "";
          return contactId;
        },
        { timeout: 15_000 },
      )
      .not.toBe("");
    await suite.page.goto(`${suite.parley.url}/contacts/${contactId}`);
    await suite.page.getByText("Opted out of SMS", { exact: true }).waitFor();
    await expectAccessible(suite.page, "a contact opted out of SMS");
  });

  it("a Telegram channel whose webhook Telegram did not take shows its error in Settings → Channels and on the dashboard", async () => {
    const dialog = await addChannelOfType("Telegram");
    await dialog.getByLabel("Channel name").fill(TELEGRAM.name);
    // A token as BotFather does not give it: the form says so before anything is sent.
    await dialog.getByLabel("Bot token").fill("not-a-token");
    await dialog.getByRole("button", { name: "Create channel" }).click();
    await dialog.getByText("A bot token like 123456789:AA…").waitFor();
    await dialog.getByLabel("Bot token").fill(TELEGRAM.botToken);
    await expectAccessible(suite.page, "add a Telegram channel");
    await dialog.getByRole("button", { name: "Create channel" }).click();

    const ready = suite.page.getByRole("dialog", { name: `${TELEGRAM.name} is ready` });
    await ready.getByText("Created, but not connected").waitFor();
    const telegram = (await v1Channels()).find((c) => c.type === "telegram");
    expect(telegram).toMatchObject({ name: TELEGRAM.name, status: "error" });
    const lastError = telegram?.lastError ?? "";
    expect(lastError).not.toBe("");
    await ready.getByText(lastError, { exact: false }).waitFor();
    await expectAccessible(suite.page, "a Telegram channel created in error");
    await ready.getByRole("button", { name: "Done" }).click();

    // The list: the status in words (not only red) and the error itself; the bot token masked.
    await row(/Support bot/)
      .getByText("Error", { exact: true })
      .waitFor();
    expect(
      await row(/Support bot/)
        .getByTestId("last-error")
        .textContent(),
    ).toBe(`Error: ${lastError}`);
    await row(/Support bot/)
      .getByText(`••••${TELEGRAM.botToken.slice(-4)}`)
      .waitFor();
    await suite.page.getByText(`${TELEGRAM.name} is in error`).waitFor();
    expect(await suite.page.content()).not.toContain(TELEGRAM.botToken);
    // Resume asks Telegram again: still unreachable, so the channel stays in error, and says so.
    await row(/Support bot/)
      .getByRole("button", { name: "Resume" })
      .click();
    await suite.page.getByText(`${TELEGRAM.name} is still in error`).waitFor();
    await row(/Support bot/)
      .getByText("Error", { exact: true })
      .waitFor();
    expect((await v1Channels()).find((c) => c.type === "telegram")?.status).toBe("error");
    await dismissNotifications();
    await expectAccessible(suite.page, "channels with a channel in error");

    // The dashboard names it, with its type and error, and links to Settings → Channels.
    await suite.page.getByRole("link", { name: "Dashboard", exact: true }).click();
    const alert = suite.page.getByRole("alert").filter({ hasText: "A channel is in error" });
    await alert.getByText(TELEGRAM.name).waitFor();
    await alert.getByText(`(Telegram): ${lastError}`, { exact: false }).waitFor();
    expect(await alert.getByText(WHATSAPP.name).count()).toBe(0);
    await expectAccessible(suite.page, "dashboard with a channel in error");
    await alert.getByRole("link", { name: "Open Settings → Channels" }).click();
    await suite.page.getByRole("heading", { name: "Channels", exact: true }).waitFor();
    expect(new URL(suite.page.url()).pathname).toBe("/settings/channels");
  });
});

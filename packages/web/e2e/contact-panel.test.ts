// The contact panel beside a conversation, end to end: a customer who texted two SMS numbers has two
// conversations; opening one shows the panel (name, phone, e-mail, the ids on each channel, labels,
// lists, the other conversation); a label added in the panel shows on the contact page, which lists
// the conversations and leads back. A website visitor without a name is shown by channel and id.
// At 390 px the panel opens from a "Contact details" button in a drawer. Real `parley serve` (SQLite).
import { getExpectedTwilioSignature } from "twilio/lib/webhooks/webhooks.js";
import { describe, expect, it } from "vitest";
import { expectAccessible, useBrowserSuite, visitorWrites } from "./harness.ts";

const PUBLIC_URL = "https://parley.example.test";
const SHOP = "https://shop.example";
const PHONE = "+14155550199";
const AUTH = { accountSid: `AC${"0123456789abcdef".repeat(2)}`, authToken: "f".repeat(32) };

describe.skipIf(Boolean(process.env.DATABASE_URL))("contact panel", () => {
  const suite = useBrowserSuite({
    env: { PUBLIC_URL, TWILIO_API_URL: "http://127.0.0.1:9" },
    business: "Panel Shop",
  });
  const v1 = suite.v1;
  const conversationIds: string[] = [];
  let widgetConversationId = "";
  let visitorId = "";

  const panel = () => suite.page.getByRole("region", { name: "Contact details" });

  it("sets up a contact on two SMS numbers, on a list, and a website visitor", async () => {
    const contact = await v1<{ id: string }>("POST", "/v1/contacts", {
      firstName: "Ana",
      lastName: "Ruiz",
      phone: PHONE,
      email: "ana@example.com",
      labels: ["vip"],
    });
    const list = await v1<{ id: string }>("POST", "/v1/lists", { name: "Newsletter" });
    await v1("POST", `/v1/lists/${list.id}/contacts`, { contactId: contact.id });
    for (const [name, from, sid] of [
      ["Shop SMS", "+14155550100", "1"],
      ["Support SMS", "+14155550101", "2"],
    ] as const) {
      const ch = await v1<{ inboundUrl: string }>("POST", "/v1/channels", {
        type: "twilio_sms",
        name,
        config: { ...AUTH, from },
      });
      const params: Record<string, string> = {
        AccountSid: AUTH.accountSid,
        MessageSid: `SM${sid.repeat(32)}`,
        From: PHONE,
        To: from,
        Body: `Hello ${name}`,
        NumMedia: "0",
      };
      const res = await suite.api.post(new URL(ch.inboundUrl).pathname, {
        headers: { "x-twilio-signature": getExpectedTwilioSignature(AUTH.authToken, ch.inboundUrl, params) },
        form: params,
      });
      expect(res.status(), await res.text()).toBe(200);
      // In order: the second number's conversation is the newest.
      await expect
        .poll(
          async () =>
            (await v1<{ data: unknown[] }>("GET", `/v1/conversations?contactId=${contact.id}`)).data.length,
          { timeout: 15_000 },
        )
        .toBe(sid === "1" ? 1 : 2);
    }
    const convs = await v1<{ data: { id: string; lastMessageAt: string }[] }>(
      "GET",
      `/v1/conversations?contactId=${contact.id}`,
    );
    conversationIds.push(
      ...convs.data.sort((a, b) => b.lastMessageAt.localeCompare(a.lastMessageAt)).map((c) => c.id),
    );

    const web = await v1<{ id: string }>("POST", "/v1/channels", {
      type: "web",
      name: "Website",
      config: { allowedOrigins: [SHOP] },
    });
    visitorId = (
      await visitorWrites(suite.api, web.id, SHOP, {
        body: "Is anyone there?",
        clientMessageId: "hello-1",
      })
    ).visitorId;
    const all = await v1<{ data: { id: string; channelId: string | null }[] }>("GET", "/v1/conversations");
    widgetConversationId = all.data.find((c) => c.channelId === web.id)?.id ?? "";
    expect(widgetConversationId).toMatch(/^cv_/);
  });

  it("shows the contact beside the conversation; a label added there shows on the contact page", async () => {
    const [newest, older] = conversationIds as [string, string];
    await suite.page.goto(`${suite.parley.url}/inbox/${newest}`);
    await panel().getByRole("heading", { name: "Ana Ruiz" }).waitFor();
    await panel().getByText(PHONE, { exact: true }).first().waitFor();
    await panel().getByText("ana@example.com").waitFor();
    const ids = panel().getByRole("list", { name: "Channel ids" });
    await ids.getByText("Support SMS").waitFor();
    await ids.getByText("Shop SMS").waitFor();
    expect(await ids.getByRole("img", { name: "SMS (Twilio)" }).count()).toBe(2);
    await panel().getByRole("list", { name: "Labels" }).getByText("vip").waitFor();
    await panel().getByRole("link", { name: "Newsletter" }).waitFor();
    const previous = panel().getByRole("list", { name: "Previous conversations" }).getByRole("link");
    await expect.poll(() => previous.count()).toBe(1);
    expect(await previous.getAttribute("href")).toBe(`/inbox/${older}`);
    await expectAccessible(suite.page, "inbox with the contact panel");

    await panel().getByLabel("New label").fill("callback");
    await panel().getByRole("button", { name: "Add label" }).click();
    await panel().getByRole("list", { name: "Labels" }).getByText("callback").waitFor();
    await panel().getByRole("button", { name: "Remove label vip" }).waitFor();
    await panel().getByRole("link", { name: "Open contact page" }).click();
    await suite.page.getByRole("heading", { level: 1, name: "Ana Ruiz" }).waitFor();
    await suite.page.getByText("callback").first().waitFor();
    const onPage = suite.page.getByRole("list", { name: "Conversations" }).getByRole("link");
    await expect.poll(() => onPage.count()).toBe(2);
    // Newest first.
    expect(await onPage.first().getAttribute("href")).toBe(`/inbox/${newest}`);
    await expectAccessible(suite.page, "contact page with its conversations");
    await onPage.nth(1).click();
    await suite.page.waitForURL(`**/inbox/${older}`);
    await suite.page.getByRole("list", { name: "Messages" }).getByText("Hello Shop SMS").waitFor();
  });

  it("names a website visitor without a name by channel and id, in the panel and the contacts table", async () => {
    await suite.page.goto(`${suite.parley.url}/inbox/${widgetConversationId}`);
    await panel()
      .getByRole("heading", { name: `Widget visitor · ${visitorId}` })
      .waitFor();
    await panel().getByRole("list", { name: "Channel ids" }).getByText(visitorId).waitFor();
    await suite.page.getByRole("link", { name: "Contacts", exact: true }).click();
    await suite.page.getByRole("link", { name: `Widget visitor · ${visitorId}` }).waitFor();
    await suite.page.getByRole("link", { name: `Widget visitor · ${visitorId}` }).click();
    await suite.page.getByRole("heading", { level: 1, name: `Widget visitor · ${visitorId}` }).waitFor();
  });

  it("at 390 px the Contact details button opens the panel in a drawer", async () => {
    await suite.page.setViewportSize({ width: 390, height: 844 });
    await suite.page.goto(`${suite.parley.url}/inbox/${conversationIds[0]}`);
    await suite.page.getByRole("list", { name: "Messages" }).getByText("Hello Support SMS").waitFor();
    expect(await panel().count()).toBe(0);
    await suite.page.getByRole("button", { name: "Contact details" }).click();
    const drawer = suite.page.getByRole("dialog", { name: "Contact details" });
    await drawer.getByRole("heading", { name: "Ana Ruiz" }).waitFor();
    await drawer.getByRole("link", { name: "Open contact page" }).waitFor();
    await expectAccessible(suite.page, "the contact panel in a drawer at 390 px");
  });
});

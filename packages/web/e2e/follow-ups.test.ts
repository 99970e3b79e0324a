// Follow-ups, end to end: an owner gives the default campaign two follow-up steps on the campaign page
// (a message, and one with a WhatsApp template for outside the 24-hour window), saves them and finds them
// after a reload. Then a customer on the custom channel asks a question, the bot answers and the customer
// goes quiet: two seconds later the follow-up arrives at the business's webhook and in the inbox thread,
// marked as a follow-up; the customer answers, and the campaign page counts it Sent and Answered.
// Against a real `parley serve` on SQLite and Chromium.
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, expectAccessible, screenshot, useBrowserSuite } from "./harness.ts";

const ANSWER = "Yes, we deliver every day between 8 and 8.";
const FOLLOW_UP = "Still there, Ann? Just reply here if you have a question.";

describe.skipIf(Boolean(process.env.DATABASE_URL))("follow-ups on the campaign page and in the inbox", () => {
  // Where replies go: the custom channel's webhook.
  const suite = useBrowserSuite({ business: "Ann's Deli", receiver: "saved" });
  let campaignId = "";

  const section = () => suite.page.getByRole("region", { name: "Follow-ups" });
  const step = (n: number) => section().getByRole("group", { name: `Follow-up ${n}` });
  /** A step's wait, its unit (picked from the list) and its message. */
  const fillStep = async (n: number, wait: string, unit: string, message: string) => {
    await step(n)
      .getByRole("textbox", { name: `Follow-up ${n}: wait` })
      .fill(wait);
    await step(n)
      .getByRole("combobox", { name: `Follow-up ${n}: unit` })
      .click();
    await suite.page.getByRole("option", { name: unit }).click();
    await step(n)
      .getByRole("textbox", { name: `Follow-up ${n}: message` })
      .fill(message);
  };
  const thread = () => suite.page.getByRole("list", { name: "Messages" });
  const incoming = (body: string, messageSid: string) =>
    suite.incoming({ messageSid, fromId: "ann-e2e", toId: "shop", body, firstName: "Ann" });

  beforeAll(async () => {
    // What the bot knows.
    const campaigns = (await (await suite.api.get(`/v1/campaigns?apiKey=${suite.apiKey}`)).json()) as {
      data: { id: string; isDefault: boolean }[];
    };
    campaignId = campaigns.data.find((c) => c.isDefault)?.id ?? "";
    const patched = await suite.api.patch(`/v1/campaigns/${campaignId}?apiKey=${suite.apiKey}`, {
      data: { knowledge: [{ question: "Do you deliver?", answer: ANSWER }] },
    });
    expect(patched.status(), await patched.text()).toBe(200);
  });

  it("adds a message step and a step with a WhatsApp template, saves them, and finds them after a reload", async () => {
    await suite.page.goto(`${suite.parley.url}/campaigns/${campaignId}`);
    await section().getByText("No follow-ups", { exact: false }).waitFor();
    await section().getByRole("button", { name: "Add follow-up" }).click();
    await section().getByRole("button", { name: "Add follow-up" }).click();

    // Step 1: two seconds after the bot's answer, the suggested message.
    await fillStep(
      1,
      "2",
      "seconds",
      "Still there, {{firstName|there}}? Just reply here if you have a question.",
    );
    // Step 2: a day later; on WhatsApp outside the window, the approved template.
    await fillStep(2, "1", "days", "Last call: 10% off today only.");
    await step(2).getByRole("textbox", { name: "Follow-up 2: WhatsApp template name" }).fill("last_call");
    await step(2).getByRole("textbox", { name: "Follow-up 2: template language" }).fill("en-US");
    await step(2)
      .getByRole("textbox", { name: "Follow-up 2: template parameters" })
      .fill("{{firstName|there}}\n10%");
    // A language code written the web's way: the server's refusal names the field, nothing is saved.
    await suite.page.getByRole("button", { name: "Save campaign" }).click();
    await suite.page
      .getByRole("alert")
      .getByText("followUps[1].whatsappTemplate.language must be a WhatsApp language code", {
        exact: false,
      })
      .waitFor();
    await expectAccessible(suite.page, "campaign: a follow-up's template refused");
    await step(2).getByRole("textbox", { name: "Follow-up 2: template language" }).fill("en_US");
    await suite.page.getByRole("button", { name: "Save campaign" }).click();
    await suite.page.getByText("Campaign saved").waitFor();

    const saved = (await (
      await suite.api.get(`/v1/campaigns/${campaignId}?apiKey=${suite.apiKey}`)
    ).json()) as {
      followUps: unknown[];
    };
    expect(saved.followUps).toEqual([
      {
        after: "PT2S",
        message: "Still there, {{firstName|there}}? Just reply here if you have a question.",
      },
      {
        after: "P1D",
        message: "Last call: 10% off today only.",
        whatsappTemplate: {
          name: "last_call",
          language: "en_US",
          parameters: ["{{firstName|there}}", "10%"],
        },
      },
    ]);

    await suite.page.reload();
    await step(2).waitFor();
    expect(await step(1).getByRole("textbox", { name: "Follow-up 1: wait" }).inputValue()).toBe("2");
    expect(await step(1).getByRole("combobox", { name: "Follow-up 1: unit" }).inputValue()).toBe("seconds");
    expect(await step(2).getByRole("combobox", { name: "Follow-up 2: unit" }).inputValue()).toBe("days");
    expect(await step(2).getByRole("textbox", { name: "Follow-up 2: message" }).inputValue()).toBe(
      "Last call: 10% off today only.",
    );
    expect(
      await step(2).getByRole("textbox", { name: "Follow-up 2: WhatsApp template name" }).inputValue(),
    ).toBe("last_call");
    expect(await step(2).getByRole("textbox", { name: "Follow-up 2: template language" }).inputValue()).toBe(
      "en_US",
    );
    expect(
      await step(2).getByRole("textbox", { name: "Follow-up 2: template parameters" }).inputValue(),
    ).toBe("{{firstName|there}}\n10%");
    // No template on step 1: its fields are empty.
    expect(
      await step(1).getByRole("textbox", { name: "Follow-up 1: WhatsApp template name" }).inputValue(),
    ).toBe("");
    await expectAccessible(suite.page, "campaign: two follow-ups");
  });

  it("a customer who goes quiet gets the follow-up, marked in the inbox; the campaign page counts it", async () => {
    await incoming("Do you deliver?", "sid-fu-1");
    await eventually(() => suite.receiver.received.find((r) => r.body.body === ANSWER), 30_000);
    const followUp = await eventually(
      () => suite.receiver.received.find((r) => r.body.body === FOLLOW_UP),
      30_000,
    );
    expect(followUp.body).toMatchObject({ sender: "bot", campaignId, toId: "ann-e2e" });
    const conversations = (await (
      await suite.api.get(`/v1/conversations?apiKey=${suite.apiKey}`)
    ).json()) as {
      data: { id: string }[];
    };
    expect(conversations.data).toHaveLength(1);
    const conversationId = conversations.data[0]?.id ?? "";

    await suite.page.goto(`${suite.parley.url}/inbox/${conversationId}`);
    await thread().getByText(FOLLOW_UP).waitFor();
    await thread().getByText("Follow-up · sent because the customer had not answered").waitFor();
    // In time order: the question, the answer, the follow-up.
    const items = await thread().locator(":scope > li").allTextContents();
    const at = (text: string) => items.findIndex((t) => t.includes(text));
    expect(at("Do you deliver?")).toBeLessThan(at(ANSWER));
    expect(at(ANSWER)).toBeLessThan(at(FOLLOW_UP));
    await expectAccessible(suite.page, "conversation with a follow-up");
    await screenshot(suite.page, "follow-up-inbox");

    // The customer answers the follow-up.
    await incoming("Great, thanks!", "sid-fu-2");
    await thread().getByText("Great, thanks!").waitFor();

    await suite.page.goto(`${suite.parley.url}/campaigns/${campaignId}`);
    const figures = section().getByLabel("Follow-up results");
    await figures.waitFor();
    expect((await figures.locator("p").allTextContents()).map((t) => t.trim())).toEqual([
      "Sent",
      "1",
      "Answered",
      "1",
    ]);
    await expectAccessible(suite.page, "campaign: follow-ups with their figures");
    // The whole section (figures and both steps) in one picture.
    await suite.page.setViewportSize({ width: 1280, height: 1400 });
    await section().scrollIntoViewIfNeeded();
    await suite.page.evaluate(() => {
      const el = document.getElementById("follow-ups-heading");
      if (el) window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 24);
    });
    await screenshot(suite.page, "follow-ups-campaign", { fullPage: false });
    await suite.page.setViewportSize({ width: 1280, height: 860 });
  });
});

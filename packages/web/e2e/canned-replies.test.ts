// Canned replies and the emoji picker, end to end: the owner adds a canned reply in Settings, types
// "/hou" at the start of a conversation's reply box, picks it with the keyboard; its {{firstName}} is
// the contact's first name. An emoji goes in at the caret from the lazily loaded picker; the reply is
// sent, shows in the thread and reaches the webhook. Against a real `parley serve` on SQLite and Chromium.
import { describe, expect, it } from "vitest";
import { eventually, expectAccessible, saveWebhookUrl, useBrowserSuite } from "./harness.ts";

describe.skipIf(Boolean(process.env.DATABASE_URL))("canned replies and emoji", () => {
  const suite = useBrowserSuite({ business: "Canned Goods", receiver: "started" });

  it("adds a canned reply in Settings", async () => {
    await saveWebhookUrl(suite.page, suite.receiver.url);

    const section = suite.page.getByRole("region", { name: "Canned replies" });
    await section.getByText("No canned replies yet").waitFor();
    await section.getByRole("button", { name: "Add a canned reply" }).click();
    await section.getByLabel("Shortcut").fill("Hours");
    expect(await section.getByLabel("Shortcut").inputValue()).toBe("hours");
    await section.getByLabel("Title").fill("Opening hours");
    await section.getByLabel("Text").fill("Hi {{firstName}}, we are open 9 to 5.");
    await section.getByRole("button", { name: "Add canned reply" }).click();
    await section.getByText("/hours · Opening hours").waitFor();
    await section.getByRole("button", { name: "Edit /hours" }).waitFor();
    await expectAccessible(suite.page, "settings with a canned reply");
  }, 120_000);

  it("inserts it by /shortcut in a reply, filled, adds an emoji at the caret and sends it", async () => {
    await suite.incoming({
      messageSid: "canned-1",
      fromId: "maria-3001",
      toId: "shop",
      body: "When are you open?",
      firstName: "Maria",
      lastName: "Lopez",
    });
    await suite.page.getByRole("link", { name: "Inbox" }).click();
    await suite.page.getByRole("link", { name: /Maria Lopez/ }).click();
    const thread = suite.page.getByRole("list", { name: "Messages" });
    await thread.getByText("When are you open?").waitFor();

    const box = suite.page.getByLabel("Reply");
    await box.pressSequentially("/hou", { delay: 20 });
    const option = suite.page.getByRole("option", { name: /\/hours · Opening hours/ });
    await option.waitFor();
    await expectAccessible(suite.page, "reply box with the canned replies");
    await box.press("ArrowDown");
    await box.press("Enter");
    await expect.poll(() => box.inputValue()).toBe("Hi Maria, we are open 9 to 5.");

    // The emoji goes where the caret is: after "Hi Maria,".
    await box.evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(9, 9));
    const emojiButton = suite.page.getByRole("button", { name: "Insert emoji" });
    await emojiButton.click();
    const picker = suite.page.getByRole("dialog");
    await picker.getByLabel("Type to search for an emoji").fill("waving hand");
    await picker.getByLabel("waving hand", { exact: true }).first().click();
    await expect.poll(() => box.inputValue()).toBe("Hi Maria,👋 we are open 9 to 5.");

    await suite.page.getByRole("button", { name: "Send", exact: true }).click();
    await thread.getByText("Hi Maria,👋 we are open 9 to 5.").waitFor();
    await eventually(() =>
      suite.receiver.received.find((r) => r.body.body === "Hi Maria,👋 we are open 9 to 5."),
    );
    await expect.poll(() => box.inputValue()).toBe("");
    await expectAccessible(suite.page, "conversation after the canned reply");
  }, 120_000);
});

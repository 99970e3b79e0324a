// An attachment in a person's reply (issue 33), end to end: a PNG is attached in the reply box (its name
// and a "Remove attachment" button show), sent with the text, shown as a thumbnail in the thread, and the
// webhook receiver gets the reply with `media` whose signed link serves the same bytes without a key.
// Against a real `parley serve` on SQLite and Chromium.
import { describe, expect, it } from "vitest";
import { eventually, expectAccessible, useBrowserSuite } from "./harness.ts";

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

describe.skipIf(Boolean(process.env.DATABASE_URL))("attachments in a reply", () => {
  const suite = useBrowserSuite({ business: "Attach Co", receiver: "saved" });

  it("attaches a PNG in the reply box, shows it in the thread and delivers it to the webhook", async () => {
    const { page } = suite;
    await suite.incoming({
      messageSid: "att-1",
      fromId: "pia-77",
      toId: "shop",
      body: "Send me the label",
      firstName: "Pia",
    });
    await page.getByRole("link", { name: "Inbox" }).click();
    await page.getByRole("link", { name: /Pia/ }).click();
    const thread = page.getByRole("list", { name: "Messages" });
    await thread.getByText("Send me the label").waitFor();

    await page.getByText("Image or PDF, up to 16 MB").waitFor();
    const chooser = page.waitForEvent("filechooser");
    await page.getByRole("button", { name: "Attach a file" }).click();
    await (await chooser).setFiles({ name: "label.png", mimeType: "image/png", buffer: PNG });
    await page.getByText("label.png").waitFor();
    await page.getByRole("button", { name: "Remove attachment" }).waitFor();
    await expectAccessible(page, "reply box with an attachment");

    await page.getByLabel("Reply").fill("Here is your label");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await thread.getByText("Here is your label").waitFor();
    const thumbnail = thread.getByRole("img", { name: "Image attachment" });
    await thumbnail.waitFor();
    await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    // The box is empty again, the file gone with the reply.
    await page.getByRole("button", { name: "Attach a file" }).waitFor();

    const delivered = await eventually(() =>
      suite.receiver.received.find((r) => r.body.body === "Here is your label"),
    );
    expect(delivered.body).toMatchObject({
      toId: "pia-77",
      sender: "human",
      media: { contentType: "image/png" },
    });
    const link = (delivered.body.media as { url: string }).url;
    const download = await suite.api.get(new URL(link).pathname + new URL(link).search);
    expect(download.status()).toBe(200);
    expect(Buffer.from(await download.body()).equals(PNG)).toBe(true);
  }, 120_000);
});

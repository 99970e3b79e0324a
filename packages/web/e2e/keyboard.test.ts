// The inbox with the keyboard only (issue 33): j/k walk the list in its order and open each row (the
// row is current and focused), r focuses the reply box (where "j" is just a letter) and Ctrl+Enter sends,
// Esc leaves the box, a assigns to me, e resolves, ? opens the help dialog (Esc closes only it), Esc
// goes back to the list and / focuses the search. Against a real `parley serve` on SQLite and Chromium.
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, expectAccessible, useBrowserSuite } from "./harness.ts";

const REPLY = "just checking, one moment";

describe.skipIf(Boolean(process.env.DATABASE_URL))("inbox keyboard shortcuts", () => {
  const suite = useBrowserSuite({ business: "Key Board", receiver: "saved" });
  beforeAll(async () => {
    for (const name of ["Ann", "Ben", "Cleo"]) {
      await suite.incoming({
        messageSid: `kb-${name}`,
        fromId: `kb-${name}`,
        toId: "shop",
        body: "Hello",
        firstName: name,
      });
    }
  });

  const focused = () =>
    suite.page.evaluate(() => {
      const el = document.activeElement;
      return el === document.body || !el
        ? "body"
        : `${el.tagName.toLowerCase()}:${el.getAttribute("aria-current") ?? ""}:${el.textContent?.slice(0, 40) ?? ""}`;
    });
  const title = () => suite.page.locator("#conversation-title");
  // Under load a page answers in seconds, not the poll's default one.
  const poll = <T>(check: () => T | Promise<T>) => expect.poll(check, { timeout: 10_000 });

  it("works through a day's conversations without the mouse", async () => {
    await suite.page.goto(`${suite.parley.url}/inbox`);
    const rows = suite.page.getByRole("list", { name: "Conversation list" }).getByRole("link");
    await rows.nth(2).waitFor();
    const names = (await rows.allTextContents()).map((t) =>
      ["Ann", "Ben", "Cleo"].find((n) => t.includes(n)),
    );

    await suite.page.keyboard.press("j");
    await poll(() => title().textContent()).toBe(names[0]);
    await suite.page.keyboard.press("j");
    await poll(() => title().textContent()).toBe(names[1]);
    await suite.page.keyboard.press("k");
    await poll(() => title().textContent()).toBe(names[0]);
    // The opened row is current, focused, and the filters stayed in the address.
    await poll(focused).toMatch(new RegExp(`^a:page:.*${names[0]}`));

    await suite.page.keyboard.press("r");
    const box = suite.page.getByLabel("Reply");
    await poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
    await suite.page.keyboard.type(REPLY);
    expect(await box.inputValue()).toBe(REPLY);
    expect(await title().textContent()).toBe(names[0]);
    await suite.page.keyboard.press("Control+Enter");
    await suite.page.getByRole("list", { name: "Messages" }).getByText(REPLY).waitFor();
    await eventually(() => suite.receiver.received.find((r) => r.body.body === REPLY));

    await suite.page.keyboard.press("Escape");
    await poll(focused).toBe("body");
    expect(suite.page.url()).toMatch(/\/inbox\/\w+/);

    await suite.page.keyboard.press("a");
    await poll(() => suite.page.getByRole("combobox", { name: "Assignee" }).inputValue()).toMatch(/\(you\)$/);
    await suite.page.getByText("Conversation assigned to you").waitFor();

    await suite.page.keyboard.press("e");
    await suite.page.getByRole("button", { name: "Reopen" }).waitFor();
    await suite.page.getByText("Conversation resolved").waitFor();

    // Esc closes the help dialog only: the conversation stays open.
    await suite.page.keyboard.press("?");
    const dialog = suite.page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await dialog.getByText("Assign the open conversation to you").waitFor();
    await expectAccessible(suite.page, "inbox with the shortcuts dialog");
    await suite.page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(suite.page.url()).toMatch(/\/inbox\/\w+/);

    await suite.page.keyboard.press("Escape");
    await poll(() => new URL(suite.page.url()).pathname).toBe("/inbox");

    await suite.page.keyboard.press("/");
    const search = suite.page.getByLabel("Search conversations");
    await poll(() => search.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await search.inputValue()).toBe("");
    await suite.page.keyboard.press("Escape");
    await poll(focused).toBe("body");
  });
});

// A team in one inbox (issue 33), in two browser contexts against a real `parley serve` on SQLite:
// the owner sees a teammate viewing and typing in the conversation they both have open (and the
// warning above the reply box); then bulk actions in the list: two conversations selected and
// resolved leave the open filter, and the one left is assigned to the teammate through the toolbar.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, inviteTeammate, useBrowserSuite } from "./harness.ts";

const MATE = { name: "Alex Mate", email: "alex@team-desk.test", password: "teammate password 42" };

describe.skipIf(Boolean(process.env.DATABASE_URL))("the inbox as a team", () => {
  const suite = useBrowserSuite({ business: "Team Desk" });
  let mate: Page;
  const row = (p: Page, who: string) =>
    p.getByRole("list", { name: "Conversation list" }).getByRole("link", { name: new RegExp(who) });

  beforeAll(async () => {
    mate = await suite.newPage("teammate");
    await inviteTeammate(suite.page, mate, MATE);
    for (const who of ["pia-1", "quin-2", "rex-3"]) {
      await suite.incoming({
        messageSid: `team-${who}`,
        fromId: who,
        toId: "desk",
        body: `Hello from ${who}`,
      });
    }
  });

  it("shows the owner who else is viewing and typing in the conversation", async () => {
    const owner = suite.page;
    await mate.goto(`${suite.parley.url}/inbox`);
    await row(mate, "pia-1").click();
    await mate.getByRole("list", { name: "Messages" }).getByText("Hello from pia-1").waitFor();

    await owner.goto(`${suite.parley.url}/inbox`);
    await row(owner, "pia-1").click();
    const presence = owner.getByRole("status", { name: "Teammates in this conversation" });
    await presence.getByText("Alex Mate is viewing").waitFor();
    // The teammate sees the owner, never themselves.
    await mate
      .getByRole("status", { name: "Teammates in this conversation" })
      .getByText(/is viewing/)
      .waitFor();
    expect(await mate.getByText("Alex Mate is viewing").count()).toBe(0);

    await mate.getByRole("textbox", { name: "Reply" }).pressSequentially("Let me check that");
    await presence.getByText("Alex Mate is typing…").waitFor();
    await owner.getByText("Alex Mate is typing a reply", { exact: false }).waitFor();
    // One axe pass (it is slow) for both: the presence lines and the list's bulk toolbar beside them.
    await owner.getByRole("checkbox", { name: "Select conversation with quin-2" }).check();
    await owner.getByRole("region", { name: "Bulk actions" }).getByText("1 conversation selected").waitFor();
    await expectAccessible(owner, "a conversation a teammate is typing in, a selection in the list");
  });

  it("resolves two selected conversations and assigns another through the toolbar", async () => {
    // Where the first test left the owner: a conversation open, quin-2 selected in the list beside it.
    const owner = suite.page;
    await owner.getByRole("checkbox", { name: "Select conversation with rex-3" }).check();
    const toolbar = owner.getByRole("region", { name: "Bulk actions" });
    await toolbar.getByText("2 conversations selected").waitFor();
    await toolbar.getByRole("button", { name: "Resolve" }).click();
    await owner.getByText("2 conversations resolved").waitFor();
    // The open filter no longer shows them, and the selection is gone.
    await expect.poll(() => row(owner, "quin-2|rex-3").count()).toBe(0);
    expect(await toolbar.count()).toBe(0);

    await owner.getByRole("checkbox", { name: "Select all shown" }).check();
    await toolbar.getByText("1 conversation selected").waitFor();
    await toolbar.getByRole("button", { name: "Assign" }).click();
    const dialog = owner.getByRole("dialog", { name: "Assign 1 conversation" });
    await dialog.getByRole("combobox", { name: "Assign to" }).click();
    await owner.getByRole("option", { name: "Alex Mate" }).click();
    await dialog.getByRole("button", { name: "Assign conversations" }).click();
    await owner.getByText("1 conversation assigned to Alex Mate").waitFor();
    await row(owner, "pia-1").getByText("Alex Mate").waitFor();
  });
});

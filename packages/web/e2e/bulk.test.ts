// Bulk actions (issue 33), clicked through in Chromium against a real `parley serve`: select three
// contacts, put them on a list, label them, delete two of them after confirming; then add several
// members to a list at once from the list's page.
import { beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, useBrowserSuite } from "./harness.ts";

describe.skipIf(Boolean(process.env.DATABASE_URL))("the web app: bulk actions", () => {
  const suite = useBrowserSuite({ business: "Bulk Shop" });
  const v1 = suite.v1;
  const ids: Record<string, string> = {};
  const lists: Record<string, string> = {};

  beforeAll(async () => {
    for (const name of ["Ada", "Bob", "Cy", "Dee", "Eve"]) {
      const c = await v1<{ id: string }>("POST", "/v1/contacts", {
        firstName: name,
        email: `${name.toLowerCase()}@example.com`,
      });
      ids[name] = c.id;
    }
    for (const name of ["Spring", "Autumn"]) {
      lists[name] = (await v1<{ id: string }>("POST", "/v1/lists", { name })).id;
    }
  });

  it("selects three contacts, adds them to a list, labels them, deletes two after confirming", async () => {
    await suite.page.getByRole("link", { name: "Contacts", exact: true }).click();
    const table = suite.page.getByRole("table", { name: "Contacts" });
    for (const name of ["Ada", "Bob", "Cy"])
      await table.getByRole("checkbox", { name: `Select ${name}` }).check();
    const toolbar = suite.page.getByRole("region", { name: "Bulk actions" });
    await toolbar.getByText("3 contacts selected").waitFor();
    await expectAccessible(suite.page, "contacts with a selection");

    await toolbar.getByRole("button", { name: "Add to list" }).click();
    const toList = suite.page.getByRole("dialog", { name: "Add 3 contacts to a list" });
    await toList.getByRole("combobox", { name: "List" }).click();
    await suite.page.getByRole("option", { name: "Spring" }).click();
    await toList.getByRole("button", { name: "Add contacts" }).click();
    await suite.page.getByText("3 contacts added to the list").waitFor();
    expect((await v1<{ memberCount: number }>("GET", `/v1/lists/${lists.Spring}`)).memberCount).toBe(3);

    await toolbar.getByRole("button", { name: "Add label" }).click();
    const labelDialog = suite.page.getByRole("dialog", { name: "Add a label to 3 contacts" });
    await labelDialog.getByLabel("Label").fill("spring-sale");
    await labelDialog.getByRole("button", { name: "Apply label" }).click();
    await suite.page.getByText('Label "spring-sale" added to 3 contacts').waitFor();
    const labelled = await v1<{ data: Array<{ firstName: string }> }>(
      "GET",
      "/v1/contacts?label=spring-sale",
    );
    expect(labelled.data.map((c) => c.firstName).sort()).toEqual(["Ada", "Bob", "Cy"]);

    await table.getByRole("checkbox", { name: "Select Ada" }).uncheck();
    await toolbar.getByRole("button", { name: "Delete selected" }).click();
    const confirm = suite.page.getByRole("dialog", { name: "Delete 2 contacts?" });
    await expectAccessible(suite.page, "delete confirmation");
    await confirm.getByRole("button", { name: "Delete contacts" }).click();
    await suite.page.getByText("2 contacts deleted with their conversations and messages").waitFor();
    await table.getByRole("link", { name: "Bob" }).waitFor({ state: "detached" });
    for (const name of ["Bob", "Cy"]) {
      expect((await suite.api.get(`/v1/contacts/${ids[name]}?apiKey=${suite.apiKey}`)).status()).toBe(404);
    }
    expect((await suite.api.get(`/v1/contacts/${ids.Ada}?apiKey=${suite.apiKey}`)).status()).toBe(200);

    // "Select all on this page" takes every row shown: Ada (still selected), Dee and Eve.
    await table.getByRole("checkbox", { name: "Select all on this page" }).check();
    await toolbar.getByText("3 contacts selected").waitFor();
    await toolbar.getByRole("button", { name: "Clear selection" }).click();
    await toolbar.waitFor({ state: "detached" });
  });

  it("adds several members to a list at once", async () => {
    await suite.page.getByRole("link", { name: "Lists", exact: true }).click();
    await suite.page.getByRole("table", { name: "Lists" }).getByRole("link", { name: "Autumn" }).click();
    await suite.page.getByRole("heading", { name: "Autumn" }).waitFor();
    await suite.page.getByRole("button", { name: "Add members" }).click();
    const dialog = suite.page.getByRole("dialog", { name: "Add members" });
    const picker = dialog.getByLabel("Contacts to add");
    for (const name of ["Dee", "Eve"]) {
      await picker.fill(name);
      await suite.page.getByRole("option", { name: new RegExp(`^${name}`) }).click();
    }
    await expectAccessible(suite.page, "add members");
    // The picker's dropdown stays open over the dialog's buttons until the focus leaves it.
    await dialog.getByRole("heading", { name: "Add members" }).click();
    await dialog.getByRole("button", { name: "Add 2 contacts" }).click();
    await suite.page.getByText("2 contacts added to the list").waitFor();
    const members = suite.page.getByRole("table", { name: "Members" });
    for (const name of ["Dee", "Eve"]) await members.getByRole("link", { name }).waitFor();
    await suite.page.getByText("2 members").waitFor();
  });
});

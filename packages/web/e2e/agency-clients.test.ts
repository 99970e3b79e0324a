// An agency runs a client from the app (issue 38): it creates the client, whose owner joins through the
// invitation link in their own browser (no password travels); it renames, suspends (the client's next
// page load says so) and resumes the client.
import { describe, it } from "vitest";
import { expectAccessible, signIn, useBrowserSuite } from "./harness.ts";

describe("agency clients", () => {
  const s = useBrowserSuite();

  it("creates a client who joins by the link, renames, suspends and resumes it", async () => {
    await s.parley.cli([
      "account",
      "create",
      "--email",
      "owner@agency.test",
      "--password",
      "agency password 1",
      "--name",
      "North Agency",
      "--agency",
    ]);
    const agency = s.page;
    await signIn(agency, s.parley.url, "owner@agency.test", "agency password 1");
    await agency.goto(`${s.parley.url}/agency`);
    await agency.getByRole("button", { name: "New sub-account" }).click();
    const create = agency.getByRole("dialog", { name: "New sub-account" });
    await create.getByLabel("Client name").fill("Acme Bikes");
    await create.getByLabel("Client email").fill("boss@acme.test");
    await create.getByRole("button", { name: "Create sub-account" }).click();
    const link = (await agency.getByTestId("owner-invite-link").textContent())?.trim() ?? "";

    // The client's owner, in their own browser: chooses a password and lands in their account.
    const client = await s.newPage("client");
    await client.goto(`${s.parley.url}${new URL(link).pathname}`);
    await client.getByLabel("Your name").fill("Ada Acme");
    await client.getByLabel("Password").fill("client password 1");
    await client.getByRole("button", { name: "Join" }).click();
    await client.getByRole("heading", { name: "Inbox" }).waitFor();

    const table = agency.getByRole("table", { name: "Sub-accounts" });
    const row = table.getByRole("row").filter({ hasText: "boss@acme.test" });
    await row.getByText("Active").waitFor();
    await row.getByRole("button", { name: "Rename" }).click();
    const rename = agency.getByRole("dialog", { name: "Rename Acme Bikes" });
    await rename.getByLabel("Name").fill("Acme Cycles");
    await rename.getByRole("button", { name: "Save" }).click();
    await row.getByRole("link", { name: "Acme Cycles" }).waitFor();

    await row.getByRole("button", { name: "Suspend" }).click();
    const confirm = agency.getByRole("dialog", { name: "Suspend Acme Cycles?" });
    await confirm.getByRole("button", { name: "Suspend" }).click();
    await confirm.waitFor({ state: "detached" });
    await row.getByText("Suspended").waitFor();
    await expectAccessible(agency, "agency page with a suspended client");

    await client.reload();
    await client.getByRole("heading", { name: "This account is suspended" }).waitFor();
    await expectAccessible(client, "suspended page");

    await row.getByRole("button", { name: "Resume" }).click();
    await row.getByText("Active").waitFor();
    await client.reload();
    await client.getByRole("heading", { name: "Inbox" }).waitFor();
  });
});

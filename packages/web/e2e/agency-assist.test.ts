// Agency assist (issue 38): the agency's owner assists one of two clients from the agency page (the
// banner says whose account it is), creates a contact there, moves to the other client with the header's
// switcher, returns to the agency; the first client's owner then reads the entry in Settings → Audit log.
import { describe, expect, it } from "vitest";
import { expectAccessible, signIn, useBrowserSuite } from "./harness.ts";

describe.skipIf(Boolean(process.env.DATABASE_URL))("agency assist", () => {
  const s = useBrowserSuite();

  it("assists a client, switches to another, returns, and the client reads the audit log", async () => {
    const made = await s.parley.cli([
      "account",
      "create",
      "--email",
      "owner@north.test",
      "--password",
      "agency password 1",
      "--name",
      "North Agency",
      "--agency",
    ]);
    const agencyKey = (JSON.parse(made) as { apiKey: string }).apiKey;
    // The clients through the agency's API; ACME's owner joins by the invitation link (no browser needed).
    const client = async (name: string, email: string) => {
      const res = await s.api.post("/v1/subaccounts", {
        headers: { "x-api-key": agencyKey },
        data: { name, email },
      });
      expect(res.status(), await res.text()).toBe(201);
      return ((await res.json()) as { ownerInvite: { url: string } }).ownerInvite.url;
    };
    const [acmeLink] = await Promise.all([
      client("ACME", "boss@acme.test"),
      client("Globex", "boss@globex.test"),
    ]);
    const joined = await s.api.post(`/app/api/invites/${acmeLink.split("/invite/")[1]}/accept`, {
      data: { name: "Boss", password: "client password 1" },
    });
    expect(joined.status(), await joined.text()).toBe(201);
    const page = s.page;
    await signIn(page, s.parley.url, "owner@north.test", "agency password 1");
    await page.goto(`${s.parley.url}/agency`);
    const row = page
      .getByRole("table", { name: "Sub-accounts" })
      .getByRole("row")
      .filter({ hasText: "boss@acme.test" });
    await row.getByRole("button", { name: "Assist" }).click();

    const banner = page.getByRole("region", { name: "Assist" });
    await banner.getByText("Assisting ACME, return to the agency").waitFor();
    await expectAccessible(page, "assisting a client");
    await page.getByRole("link", { name: "Contacts", exact: true }).click();
    await page.getByRole("button", { name: "New contact" }).click();
    const dialog = page.getByRole("dialog", { name: "New contact" });
    await dialog.getByLabel("First name").fill("Grace");
    await dialog.getByLabel("Phone").fill("+1 415 555 0142");
    await dialog.getByRole("button", { name: "Create", exact: true }).click();
    await page.getByRole("heading", { name: "Grace" }).waitFor();

    // The switcher: search, pick the other client.
    await page.getByRole("button", { name: "Switch client" }).click();
    await page.getByLabel("Search clients").fill("glo");
    await page
      .getByRole("group", { name: "Clients" })
      .getByRole("button", { name: /Globex/ })
      .click();
    await banner.getByText("Assisting Globex, return to the agency").waitFor();
    await page.getByRole("button", { name: "Switch client" }).click();
    await page.getByRole("button", { name: "Back to the agency" }).waitFor();
    await expectAccessible(page, "client switcher while assisting");
    await page.keyboard.press("Escape");
    await banner.getByRole("button", { name: "Return to the agency" }).click();
    await page.getByRole("table", { name: "Sub-accounts" }).waitFor();
    expect(await banner.count()).toBe(0);

    // The client's owner, in their own browser, reads who created what.
    const owner = await s.newPage("client");
    await signIn(owner, s.parley.url, "boss@acme.test", "client password 1");
    await owner.goto(`${s.parley.url}/settings`);
    const log = owner.getByRole("table", { name: "Audit log" });
    const entry = log.getByRole("row").filter({ hasText: "POST /app/api/contacts" });
    await entry.waitFor();
    expect(await entry.textContent()).toContain("owner@north.test");
    expect(await entry.textContent()).toContain("North Agency");
    await expectAccessible(owner, "settings with the audit log");
    // Three accounts, two browsers and six page loads: more than the default minute on a busy machine.
  }, 120_000);
});

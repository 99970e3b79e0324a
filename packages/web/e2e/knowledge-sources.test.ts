// Knowledge sources, end to end: on the default campaign's page an owner uploads a Markdown handbook and
// adds a web page served by a local "shop website"; each is read in the background and turns "Ready"
// with its passages, and "Try the bot" answers from the handbook. The page is re-synced (fetched again),
// given a daily re-sync, then deleted after a confirmation; a page that cannot be fetched shows "Error"
// and why. Against a real `parley serve` on SQLite and
// Chromium.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, listenOnLoopback, useBrowserSuite } from "./harness.ts";

const HANDBOOK = `# Harbor Books handbook

## Returns

You can return any book within 30 days of purchase for a full refund, as long as you keep the receipt.
Gift cards and magazines cannot be returned.

## Delivery

Orders over 40 euros ship free. Parcels leave the shop every weekday at 3 pm and arrive in two days.
`;

const HOURS_PAGE = `<!doctype html><html lang="en"><head><title>Opening hours</title></head><body>
<nav><a href="/">Home</a></nav>
<main><article><h1>Opening hours</h1>
<p>The Harbor Books shop on Quay Street is open Monday to Saturday from 9 am to 7 pm.</p>
<p>On Sundays we open from 11 am to 4 pm, and the café upstairs serves coffee all day long.</p>
<p>On public holidays the shop is closed, but orders placed online are still shipped the next weekday.</p>
</article></main></body></html>`;

/** The shop's website: one page, and how often it was fetched. */
async function startWebsite() {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    if (req.url === "/hours.html")
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(HOURS_PAGE);
    else res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  const { port, close } = await listenOnLoopback(server);
  return { origin: `http://127.0.0.1:${port}`, hits, close };
}

describe.skipIf(Boolean(process.env.DATABASE_URL))("knowledge sources", () => {
  let website: Awaited<ReturnType<typeof startWebsite>>;
  let dir = "";
  beforeAll(async () => {
    website = await startWebsite();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-sources-"));
    fs.writeFileSync(path.join(dir, "returns-handbook.md"), HANDBOOK);
  });
  afterAll(async () => {
    await website?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const suite = useBrowserSuite({ business: "Harbor Books" });

  const section = () => suite.page.getByRole("region", { name: "Knowledge sources" });
  const table = () => section().getByRole("table", { name: "Knowledge sources" });
  const row = (text: string) => table().getByRole("row").filter({ hasText: text });

  it("shows the default campaign's sources, none yet", async () => {
    await suite.page.getByRole("link", { name: "Campaigns", exact: true }).click();
    await suite.page.getByRole("table", { name: "Campaigns" }).getByRole("link", { name: "Default" }).click();
    await section().getByText("No sources yet: upload a handbook or add a web page.").waitFor();
    await expectAccessible(suite.page, "campaign: no knowledge sources");
  });

  it("uploads a Markdown handbook, which turns ready with its passages", async () => {
    const chooser = suite.page.waitForEvent("filechooser");
    await section().getByRole("button", { name: "Upload a file" }).click();
    await (await chooser).setFiles(path.join(dir, "returns-handbook.md"));
    const handbook = row("returns-handbook.md");
    await handbook.getByText("Ready", { exact: true }).waitFor({ timeout: 30_000 });
    const passages = (await handbook.getByText(/^\d+ passages?$/).textContent()) ?? "";
    expect(Number.parseInt(passages, 10)).toBeGreaterThan(0);
    expect(await handbook.getByRole("cell").nth(1).textContent()).toBe("File");
    // A file has no daily re-sync.
    expect(await handbook.getByRole("switch").count()).toBe(0);
    await expectAccessible(suite.page, "campaign: an uploaded handbook");
  });

  it("Try it answers from the handbook and names it", async () => {
    const tryIt = suite.page.getByRole("region", { name: "Try the bot" });
    await tryIt.getByRole("textbox", { name: "Try it" }).fill("Can I return a book I bought?");
    await tryIt.getByRole("button", { name: "Preview" }).click();
    const result = tryIt.getByRole("status").filter({ hasText: "The bot would" });
    await result.waitFor();
    const said = (await result.textContent()) ?? "";
    expect(said).toContain("The bot would answer");
    expect(said).toContain("within 30 days of purchase");
    expect(said).toContain("From the knowledge source returns-handbook.md");
  });

  it("adds a web page by its address, which turns ready; re-syncing fetches it again", async () => {
    const url = `${website.origin}/hours.html`;
    await section().getByRole("textbox", { name: "Page or sitemap URL" }).fill(url);
    await section().getByRole("radio", { name: "One page" }).check();
    await section().getByRole("button", { name: "Add URL" }).click();
    const page = row(url);
    await page.getByText("Ready", { exact: true }).waitFor({ timeout: 30_000 });
    await page.getByText(/^[1-9]\d* passages?$/).waitFor();
    expect(await page.getByRole("cell").nth(1).textContent()).toBe("Web page");
    expect(await section().getByRole("textbox", { name: "Page or sitemap URL" }).inputValue()).toBe("");
    const fetched = website.hits.filter((h) => h === "/hours.html").length;
    expect(fetched).toBeGreaterThan(0);
    await expectAccessible(suite.page, "campaign: a web page source");

    await page.getByRole("button", { name: /^Re-sync / }).click();
    await expect
      .poll(() => website.hits.filter((h) => h === "/hours.html").length, { timeout: 30_000 })
      .toBeGreaterThan(fetched);
    await page.getByText("Ready", { exact: true }).waitFor({ timeout: 30_000 });

    // The daily re-sync, on and kept after a reload.
    const daily = page.getByRole("switch", { name: /^Daily re-sync / });
    expect(await daily.isChecked()).toBe(false);
    await daily.click();
    await suite.page.getByText(/^Daily re-sync on for /).waitFor();
    await suite.page.reload();
    await expect
      .poll(() =>
        row(url)
          .getByRole("switch", { name: /^Daily re-sync / })
          .isChecked(),
      )
      .toBe(true);
  });

  it("a page that cannot be fetched shows Error with the reason", async () => {
    const url = `${website.origin}/gone.html`;
    await section().getByRole("textbox", { name: "Page or sitemap URL" }).fill(url);
    await section().getByRole("button", { name: "Add URL" }).click();
    const gone = row(url);
    await gone.getByText("Error", { exact: true }).waitFor({ timeout: 30_000 });
    const status = (await gone.getByRole("cell").nth(2).textContent()) ?? "";
    expect(status.length).toBeGreaterThan("Error".length + 5);
    expect(await gone.getByText("0 passages").count()).toBe(1);
    await expectAccessible(suite.page, "campaign: a source in error");
  });

  it("deletes the web page after a confirmation", async () => {
    const url = `${website.origin}/hours.html`;
    const name = (await row(url).getByRole("cell").first().locator("p").first().textContent()) ?? "";
    await row(url)
      .getByRole("button", { name: `Delete ${name}` })
      .click();
    const dialog = suite.page.getByRole("dialog", { name: `Delete ${name}?` });
    await dialog.getByText("This cannot be undone").waitFor();
    await expectAccessible(suite.page, "campaign: deleting a source");
    await dialog.getByRole("button", { name: "Delete", exact: true }).click();
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => row(url).count()).toBe(0);
    await row("returns-handbook.md").waitFor();
  });
});

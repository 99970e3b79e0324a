// Agency branding end to end (issue 38): an agency sets its brand in Settings; its client's app shows
// the brand's name, logo and colour; the client's website chat carries it; and the sign-in page
// reached through the agency's own address shows it. One server, one browser (which resolves the
// agency's address to this machine).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, expectAccessible, newPage, type Parley, showFailure, startParley } from "./harness.ts";

const AGENCY_HOST = "chat.northwind.test";
const PASSWORD = "a long enough password";
const BRAND_RGB = "rgb(124, 58, 237)"; // #7c3aed
// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** POSTs to /app/api from the page's own session (cookie and CSRF token). */
async function appPost(page: Page, base: string, path: string, data: unknown) {
  const state = (await (await page.request.get(`${base}/app/api/session/state`)).json()) as {
    session?: { csrfToken: string };
  };
  const res = await page.request.post(`${base}/app/api${path}`, {
    data: data as object,
    headers: { "x-csrf-token": state.session?.csrfToken ?? "" },
  });
  expect(res.status(), await res.text()).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

describe.skipIf(Boolean(process.env.DATABASE_URL))("an agency's brand", () => {
  let parley: Parley;
  let browser: Browser;
  let agency: Page;
  let client: Page;
  let port = "";
  let shop: http.Server;
  let shopUrl = "";
  let channelId = "";

  beforeAll(async () => {
    [parley, browser] = await Promise.all([
      startParley(),
      chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ["--no-sandbox", `--host-resolver-rules=MAP ${AGENCY_HOST} 127.0.0.1`],
      }),
    ]);
    port = new URL(parley.url).port;
    shop = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Client A</title></head>
<body><main><h1>Client A</h1></main>
<script src="${parley.url}/widget.js" data-channel="${channelId}" async></script></body></html>`);
    });
    await new Promise<void>((r) => shop.listen(0, "127.0.0.1", r));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    await parley.cli([
      "account",
      "create",
      "--email",
      "owner@northwind.test",
      "--password",
      PASSWORD,
      "--name",
      "Northwind",
      "--agency",
    ]);
    agency = await newPage(browser);
    client = await newPage(browser);
  });

  afterAll(async () => {
    shop?.closeAllConnections();
    shop?.close();
    await browser?.close();
    await parley?.stop();
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === "fail") {
      if (agency) await showFailure(agency, `${ctx.task.name} (agency)`);
      if (client) await showFailure(client, `${ctx.task.name} (client)`);
    }
  });

  it("the agency sets its name, colour, address and logo in Settings", async () => {
    await agency.goto(`${parley.url}/signin`);
    await agency.getByLabel("Email").fill("owner@northwind.test");
    await agency.getByLabel("Password").fill(PASSWORD);
    await agency.getByRole("button", { name: "Sign in" }).click();
    await agency.getByRole("heading", { name: "Dashboard" }).waitFor();
    await agency.goto(`${parley.url}/settings`);
    const section = agency.getByRole("region", { name: "Brand" });
    await section.getByLabel("Brand name").fill("Northwind Digital");
    await section.getByLabel("Brand colour").fill("#7c3aed");
    await section.getByLabel("Your address").fill(`https://${AGENCY_HOST}:${port}`);
    await section.getByRole("button", { name: "Save" }).click();
    await agency.getByText("Brand saved").waitFor();
    await section.getByLabel("Logo").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: PNG });
    await agency.getByText("Logo saved").waitFor();
    await expect(section.getByRole("button", { name: "Remove logo" }).isVisible()).resolves.toBe(true);
    await expectAccessible(agency, "settings with the brand section");
  });

  it("a client's people see the brand's name, logo and colour in their app", async () => {
    const created = await appPost(agency, parley.url, "/subaccounts", {
      email: "owner@client-a.test",
      name: "Client A",
    });
    const invite = new URL((created.ownerInvite as { url: string }).url);
    const token = invite.pathname.split("/invite/")[1];
    await client.goto(parley.url);
    await appPost(client, parley.url, `/invites/${token}/accept`, { name: "Ann Client", password: PASSWORD });
    await client.goto(`${parley.url}/dashboard`);
    const header = client.locator("header");
    await header.getByText("Northwind Digital").waitFor();
    expect(await header.getByText("Parley", { exact: true }).count()).toBe(0);
    const logo = header.getByTestId("brand-logo");
    expect(await logo.getAttribute("src")).toMatch(/^\/app\/api\/brand-logos\//);
    // The header shows before its logo has loaded (on a busy machine, long before): wait for the image
    // to load or fail, then check it is the uploaded 1×1 PNG.
    const loadedWidth = await logo.evaluate((img: HTMLImageElement) =>
      img.complete
        ? img.naturalWidth
        : new Promise<number>((resolve) => {
            img.addEventListener("load", () => resolve(img.naturalWidth), { once: true });
            img.addEventListener("error", () => resolve(0), { once: true });
          }),
    );
    expect(loadedWidth).toBe(1);
    const active = client.getByRole("link", { name: "Dashboard" });
    expect(await active.evaluate((a) => getComputedStyle(a).backgroundColor)).toBe(BRAND_RGB);
    await expect(client.title()).resolves.toContain("Northwind Digital");
    await expectAccessible(client, "a client's app with the agency's brand");
    const channel = await appPost(client, parley.url, "/channels", {
      type: "web",
      name: "Website",
      config: { allowedOrigins: [shopUrl], title: "Chat with Client A" },
    });
    channelId = String(channel.id);
  });

  it("the client's website chat carries the brand", async () => {
    const visitor = await newPage(browser);
    try {
      await visitor.goto(shopUrl);
      await visitor.getByRole("button", { name: "Open chat" }).click();
      const panel = visitor.getByRole("dialog", { name: "Chat with Client A" });
      await panel.getByText("Northwind Digital").waitFor();
      const headerColor = await panel.locator("header").evaluate((h) => getComputedStyle(h).backgroundColor);
      expect(headerColor).toBe(BRAND_RGB);
      expect(await panel.locator("img.logo").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
      await expectAccessible(visitor, "the client's website with the branded chat");
    } finally {
      await visitor.context().close();
    }
  });

  it("the sign-in page shows the brand on the agency's own address only", async () => {
    const page = await newPage(browser);
    try {
      await page.goto(`https://${AGENCY_HOST}:${port}/signin`);
      await page.getByRole("heading", { name: "Sign in to Northwind Digital" }).waitFor();
      await page.getByTestId("brand-logo").waitFor();
      await expectAccessible(page, "the sign-in page on the agency's address");
      await page.goto(`${parley.url}/signin`);
      await page.getByRole("heading", { name: "Sign in to Parley" }).waitFor();
    } finally {
      await page.context().close();
    }
  });
});

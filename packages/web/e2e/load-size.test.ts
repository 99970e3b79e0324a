// What a signed-in person's first load of /inbox costs on the wire: the scripts and styles, counted
// by Chromium as received (compressed bytes plus headers), with an empty cache. Pages are separate
// chunks (src/App.tsx) and the server sends the build's brotli files (vite.config.ts, static.ts), so
// the first load stays under 300 kB (docs/performance.md, "Web app size").
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useBrowserSuite } from "./harness.ts";

const BUDGET_BYTES = 300_000;
const DIST_ASSETS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/assets");

describe.skipIf(Boolean(process.env.DATABASE_URL))("first inbox load size", () => {
  const suite = useBrowserSuite({ business: "Light Loads" });

  it("builds a .br and a .gz next to every script and style", () => {
    const files = fs.readdirSync(DIST_ASSETS).filter((f) => /\.(js|css)$/.test(f));
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) {
      if (fs.statSync(path.join(DIST_ASSETS, file)).size < 1024) continue;
      expect(fs.existsSync(path.join(DIST_ASSETS, `${file}.br`)), file).toBe(true);
      expect(fs.existsSync(path.join(DIST_ASSETS, `${file}.gz`)), file).toBe(true);
    }
  });

  it("loads /inbox signed in with under 300 kB of script and style, brotli-compressed", async () => {
    // The same signed-in context, its cache turned off: what a first visit costs.
    const cdp = await suite.page.context().newCDPSession(suite.page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    const requests = new Map<string, { url: string; type: string; encoding?: string }>();
    const received = new Map<string, number>();
    cdp.on("Network.responseReceived", (e) => {
      const headers = Object.fromEntries(
        Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]),
      );
      requests.set(e.requestId, { url: e.response.url, type: e.type, encoding: headers["content-encoding"] });
    });
    cdp.on("Network.loadingFinished", (e) => received.set(e.requestId, e.encodedDataLength));

    await suite.page.goto(`${suite.parley.url}/inbox`);
    await suite.page.getByRole("heading", { name: "Inbox" }).waitFor();
    await suite.page.waitForLoadState("networkidle");

    const assets = [...requests.entries()]
      .filter(([, r]) => r.type === "Script" || r.type === "Stylesheet")
      .map(([id, r]) => ({ ...r, name: new URL(r.url).pathname, bytes: received.get(id) ?? 0 }));
    const total = assets.reduce((sum, a) => sum + a.bytes, 0);
    console.log(
      `first /inbox load: ${assets.length} scripts/styles, ${total} bytes on the wire\n${assets
        .map((a) => `  ${a.name} ${a.bytes} (${a.encoding ?? "identity"})`)
        .join("\n")}`,
    );
    expect(assets.some((a) => a.name.includes("InboxPage"))).toBe(true);
    // Other pages' chunks (the dashboard's charts above all) wait until they are visited.
    expect(assets.filter((a) => /DashboardPage|CampaignPage|ChannelsPage/.test(a.name))).toEqual([]);
    // Every file the build compressed (1 kB and up) comes as brotli.
    for (const a of assets) {
      if (fs.statSync(path.join(DIST_ASSETS, path.basename(a.name))).size >= 1024) {
        expect(a.encoding, a.name).toBe("br");
      }
    }
    expect(total).toBeLessThan(BUDGET_BYTES);
    await cdp.detach();
  });
});

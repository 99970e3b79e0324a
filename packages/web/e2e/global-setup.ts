import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The suite tests the built app, so build it first when its sources changed (as `npm start` does).
export default function setup(): void {
  if (!process.env.DATABASE_URL) {
    const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
    if (!fs.existsSync(chromium)) {
      throw new Error(
        `The web app's end-to-end tests need Chromium at ${chromium}: apt-get install chromium (or set CHROMIUM_PATH)`,
      );
    }
  }
  const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../scripts/build-web.mjs");
  const result = spawnSync(process.execPath, [script], { stdio: "inherit" });
  if (result.status !== 0) throw new Error("building the web app failed");
}

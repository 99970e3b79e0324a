import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The suite tests the built app, so build it first when its sources changed (as `npm start` does).
export default function setup(): void {
  const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../scripts/build-web.mjs");
  const result = spawnSync(process.execPath, [script], { stdio: "inherit" });
  if (result.status !== 0) throw new Error("building the web app failed");
}

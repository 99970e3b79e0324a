#!/usr/bin/env node
// `npm install` runs this (the package's "prepare" script, also for a workspace of the checkout): it
// builds dist/ so `import("@parley/client")` and the examples work right after the install. Without
// TypeScript (an install with --omit=dev) it says so and leaves the install alone.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
let tsc;
try {
  tsc = createRequire(path.join(pkg, "package.json")).resolve("typescript/bin/tsc");
} catch {
  console.error(
    "@parley/client: TypeScript is not installed; run `npm run build -w @parley/client` to build the SDK.",
  );
  process.exit(0);
}
fs.rmSync(path.join(pkg, "dist"), { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
  cwd: pkg,
  stdio: "inherit",
});
process.exit(result.status ?? 1);

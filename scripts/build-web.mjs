#!/usr/bin/env node
// Builds the web app (packages/web -> packages/web/dist) when it is missing or its sources changed, so
// `npm start` on a fresh checkout serves the app and a rebuilt one after a pull. "Changed" is a hash of
// the sources, not file times (a fresh clone has new times everywhere). Messages go to stderr: the
// server's stdout stays its one JSON line.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../packages/web");
const dist = path.join(web, "dist");
const stamp = path.join(dist, ".source-hash");
const SOURCES = ["src", "public", "index.html", "vite.config.ts", "package.json"];

function filesUnder(p) {
  if (!fs.existsSync(p)) return [];
  if (!fs.statSync(p).isDirectory()) return [p];
  return fs
    .readdirSync(p)
    .sort()
    .flatMap((name) => filesUnder(path.join(p, name)));
}

function sourceHash() {
  const hash = createHash("sha256");
  // This script too: a change to how the app is built (its environment) rebuilds it.
  hash.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  for (const file of SOURCES.flatMap((s) => filesUnder(path.join(web, s)))) {
    hash.update(path.relative(web, file));
    hash.update("\0");
    hash.update(fs.readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
}

// The chat widget (packages/widget -> packages/widget/dist/widget.js, served at /widget.js) first: it
// is small, and it has its own source hash. `--widget-only` builds just it (the server tests).
const widget = spawnSync(process.execPath, [path.resolve(web, "../widget/build.mjs")], {
  stdio: ["ignore", process.stderr, process.stderr],
});
if (widget.status !== 0) {
  console.error("parley: the chat widget failed to build (see above).");
  process.exit(widget.status ?? 1);
}
if (process.argv.includes("--widget-only")) process.exit(0);

const wanted = sourceHash();
const current = fs.existsSync(stamp) ? fs.readFileSync(stamp, "utf8").trim() : null;
if (current === wanted && fs.existsSync(path.join(dist, "index.html"))) process.exit(0);

let viteBin;
try {
  const manifest = createRequire(path.join(web, "package.json")).resolve("vite/package.json");
  const bin = JSON.parse(fs.readFileSync(manifest, "utf8")).bin;
  viteBin = path.join(path.dirname(manifest), typeof bin === "string" ? bin : bin.vite);
} catch {
  console.error("parley: the web app is not built and vite is not installed; run `npm install` first.");
  process.exit(1);
}
console.error("parley: building the web app (packages/web)…");
const build = spawnSync(process.execPath, [viteBin, "build", "--logLevel", "warn"], {
  cwd: web,
  stdio: ["ignore", process.stderr, process.stderr],
  // Always React's production build: run from a test runner (NODE_ENV=test) Vite would otherwise
  // bundle React's development build, twice the size and slower.
  env: { ...process.env, NODE_ENV: "production" },
});
if (build.status !== 0) {
  console.error("parley: the web app failed to build (see above).");
  process.exit(build.status ?? 1);
}
fs.writeFileSync(stamp, `${wanted}\n`);
console.error("parley: web app built.");

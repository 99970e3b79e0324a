#!/usr/bin/env node
// Bundles the widget (src/index.ts) into one minified file, dist/widget.js, served by the Parley server
// at GET /widget.js. Skipped when the sources have not changed since the last build (a hash, not times).
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "dist");
const out = path.join(dist, "widget.js");
const stamp = path.join(dist, ".source-hash");

const hash = createHash("sha256");
for (const name of [
  "build.mjs",
  "package.json",
  ...fs
    .readdirSync(path.join(here, "src"))
    .sort()
    .map((f) => `src/${f}`),
]) {
  hash.update(name);
  hash.update("\0");
  hash.update(fs.readFileSync(path.join(here, name)));
  hash.update("\0");
}
const wanted = hash.digest("hex");
if (fs.existsSync(out) && fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8").trim() === wanted)
  process.exit(0);

const esbuild = await import("esbuild");
await esbuild.build({
  entryPoints: [path.join(here, "src/index.ts")],
  outfile: out,
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  legalComments: "none",
  logLevel: "warning",
});
fs.writeFileSync(stamp, `${wanted}\n`);
console.error(`parley: widget built (${fs.statSync(out).size} bytes).`);

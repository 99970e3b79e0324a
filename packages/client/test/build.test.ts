// The package builds as published: tsc emits ESM .js and .d.ts from src (into a scratch directory, so
// no test ever reads a stale dist/), and the emitted entry point loads and exports the public API.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";
import { PACKAGE_DIR } from "../scripts/openapi.ts";

// Inside the package, so the emitted files resolve standardwebhooks as an installed package would.
const outDir = path.join(PACKAGE_DIR, `.build-test-${process.pid}`);
afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }));

it("tsc -p tsconfig.build.json emits an ESM entry point with type declarations that loads", async () => {
  const tsc = path.resolve(PACKAGE_DIR, "../../node_modules/.bin/tsc");
  const res = spawnSync(tsc, ["-p", "tsconfig.build.json", "--outDir", outDir], {
    cwd: PACKAGE_DIR,
    encoding: "utf8",
  });
  expect(res.stdout + res.stderr).toBe("");
  expect(res.status).toBe(0);
  for (const f of ["index.js", "index.d.ts", "client.d.ts", "generated/openapi.d.ts"]) {
    expect(fs.existsSync(path.join(outDir, f)), f).toBe(true);
  }
  const index = fs.readFileSync(path.join(outDir, "index.js"), "utf8");
  expect(index).toMatch(/^export /m);
  expect(index).not.toMatch(/\.ts["']/); // relative imports rewritten to .js

  const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, "package.json"), "utf8"));
  // "parley-source" (node --conditions=parley-source) runs the examples from src in this repository.
  expect(pkg.exports["."]).toEqual({
    "parley-source": "./src/index.ts",
    types: "./dist/index.d.ts",
    import: "./dist/index.js",
  });
  expect(Object.keys(pkg.dependencies)).toEqual(["standardwebhooks"]);

  const mod = await import(pathToFileURL(path.join(outDir, "index.js")).href);
  for (const name of [
    "Parley",
    "ParleyError",
    "verifyWebhook",
    "WebhookError",
    "createAutoRechargeHandler",
    "MemoryStore",
    "FileStore",
  ]) {
    expect(typeof mod[name], name).toBe("function");
  }
  const client = new mod.Parley({ apiKey: "k", baseUrl: "https://h.test/v1/" });
  expect(typeof client.contacts.lookup).toBe("function");
});

it("npm install leaves dist/ built: the package's prepare script (run by npm on install) builds it", async () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, "package.json"), "utf8"));
  // npm runs "prepare" after installing the checkout's workspaces (and before packing).
  expect(pkg.scripts.prepare).toBe("node scripts/prepare.mjs");
  const res = spawnSync(process.execPath, ["scripts/prepare.mjs"], { cwd: PACKAGE_DIR, encoding: "utf8" });
  expect(res.stdout + res.stderr).toBe("");
  expect(res.status).toBe(0);
  const entry = path.join(PACKAGE_DIR, pkg.exports["."].import);
  expect(fs.existsSync(entry)).toBe(true);
  const mod = await import(`${pathToFileURL(entry).href}?t=${Date.now()}`);
  expect(typeof mod.Parley).toBe("function");
  expect(typeof mod.verifyWebhook).toBe("function");
});

// The supported Node.js versions are stated once and agree everywhere: scripts/check-node.cjs (which
// stops an older Node), the `engines` field of every package.json (which npm warns about) and the
// README's install line.

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../../..");
const require = createRequire(import.meta.url);
const { supported } = require(path.join(root, "scripts/check-node.cjs")) as { supported(v: string): boolean };
// npm's own reading of a range (the semver package npm uses; installed with the workspace's tools).
const semver = require("semver") as { satisfies(version: string, range: string): boolean };
const VERSIONS = [
  "20.19.0",
  "22.0.0",
  "22.17.1",
  "22.18.0",
  "22.20.1",
  "23.0.0",
  "23.5.0",
  "23.6.0",
  "24.0.0",
  "26.1.0",
];

describe("supported Node.js versions", () => {
  it.each(["package.json", "packages/server/package.json", "packages/client/package.json"])(
    "%s accepts exactly what scripts/check-node.cjs accepts",
    (file) => {
      const range = JSON.parse(fs.readFileSync(path.join(root, file), "utf8")).engines?.node as string;
      expect(range).toBeDefined();
      for (const v of VERSIONS) expect(semver.satisfies(v, range), `${range} vs ${v}`).toBe(supported(v));
    },
  );

  it("the README names the same minimum as the check", () => {
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
    const stated = readme.match(/with Node\.js (\d+\.\d+) or newer \(on the 23 line, (\d+\.\d+) or newer/);
    expect(stated, "the README's install line").not.toBeNull();
    expect(supported(`${stated?.[1]}.0`)).toBe(true);
    expect(supported(`${stated?.[1]?.replace(/\d+$/, (m) => String(Number(m) - 1))}.99`)).toBe(false);
    expect(supported(`${stated?.[2]}.0`)).toBe(true);
    expect(supported(`${stated?.[2]?.replace(/\d+$/, (m) => String(Number(m) - 1))}.99`)).toBe(false);
  });
});

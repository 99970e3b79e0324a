// The first command on an older Node: scripts/check-node.cjs stops with one line naming the fix
// (never a stack trace about an unknown ".ts" extension), and lets a new-enough Node through.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../../..");
const checkScript = path.join(root, "scripts/check-node.cjs");
const bin = path.join(root, "packages/server/bin/parley.js");
const FIX = ". scripts/ensure-node.sh";

function runCheck(version: string | undefined) {
  const env = { ...process.env };
  delete env.PARLEY_NODE_VERSION_OVERRIDE;
  if (version !== undefined) env.PARLEY_NODE_VERSION_OVERRIDE = version;
  return spawnSync(process.execPath, [checkScript], { env, encoding: "utf8" });
}

describe("Node.js version check", () => {
  it.each(["20.20.2", "18.19.0", "22.17.1", "23.5.0", "v16.20.0"])(
    "refuses %s with one line on stderr naming the fix",
    (version) => {
      const r = runCheck(version);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe("");
      const lines = r.stderr.split("\n").filter((l) => l !== "");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("Node.js 22.18 or newer is needed");
      expect(lines[0]).toContain(`(found ${version.replace(/^v/, "")})`);
      expect(lines[0]).toContain(FIX);
    },
  );

  it.each(["22.18.0", "22.20.1", "23.6.0", "24.0.0", "26.1.0"])("accepts %s silently", (version) => {
    const r = runCheck(version);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("");
  });

  it("accepts the Node running the tests, and parley --help works under it", () => {
    expect(runCheck(undefined).status).toBe(0);
    const help = execFileSync(process.execPath, [bin, "--help"], {
      encoding: "utf8",
      env: { ...process.env, PARLEY_NODE_VERSION_OVERRIDE: "" },
    });
    expect(help).toContain("Usage: parley <command>");
  });

  it("bin/parley.js stops before importing TypeScript when the check fails", () => {
    const r = spawnSync(process.execPath, [bin, "--help"], {
      encoding: "utf8",
      env: { ...process.env, PARLEY_NODE_VERSION_OVERRIDE: "20.0.0" },
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(FIX);
  });

  // A real old Node, when the machine has one (this one's system node is v20).
  const systemNode = "/usr/bin/node";
  const oldNode =
    existsSync(systemNode) &&
    Number(execFileSync(systemNode, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" })) <
      22;
  it.runIf(oldNode)("a real old Node running bin/parley.js prints one line and no stack trace", () => {
    const env = { ...process.env };
    delete env.PARLEY_NODE_VERSION_OVERRIDE;
    const r = spawnSync(systemNode, [bin, "--help"], { encoding: "utf8", env });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    const lines = r.stderr.split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("is needed (found ");
    expect(lines[0]).toContain(FIX);
    expect(r.stderr).not.toContain("ERR_UNKNOWN_FILE_EXTENSION");
  });
});

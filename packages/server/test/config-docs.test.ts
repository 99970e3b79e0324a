// The configuration tables in README.md and docs/operations.md are generated from ENV_DOCS
// (src/config-docs.ts, `npm run docs:config`), and ENV_DOCS names exactly the variables config.ts reads.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENV_DOCS, ENV_NOT_DOCUMENTED, readConfigTable, renderConfigTable } from "../src/config-docs.ts";

const root = path.resolve(import.meta.dirname, "../../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const configSource = read("packages/server/src/config.ts");
const documented = ENV_DOCS.flatMap((doc) => doc.names);

/** Every variable config.ts reads: a helper called as `helper(env, "NAME"`, or `env.NAME` / `env["NAME"]`. */
function namesReadByConfig(): string[] {
  const names = new Set<string>();
  for (const m of configSource.matchAll(/\b\w+\(env, "([A-Z][A-Z0-9_]*)"/g)) names.add(m[1]!);
  for (const m of configSource.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\["([A-Z][A-Z0-9_]*)"\])/g)) {
    names.add((m[1] ?? m[2])!);
  }
  return [...names].sort();
}

describe("configuration docs", () => {
  it.each([
    ["README.md", "summary"],
    ["docs/operations.md", "details"],
  ] as const)("%s's table is the one ENV_DOCS renders (run `npm run docs:config`)", (file, form) => {
    expect(readConfigTable(read(file))).toBe(renderConfigTable(form));
  });

  it("names every variable config.ts reads, and none it does not", () => {
    const listed = [...documented, ...Object.keys(ENV_NOT_DOCUMENTED)].sort();
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed).toEqual(namesReadByConfig());
  });

  it("shows the defaults config.ts falls back to", () => {
    const fallbacks = [
      ...configSource.matchAll(/\b(?:int|bool)\(env, "([A-Z][A-Z0-9_]*)", ([\d_]+|true|false),/g),
      ...configSource.matchAll(/\bstr\(env, "([A-Z][A-Z0-9_]*)"\) \?\? "([^"]*)"/g),
    ];
    expect(fallbacks.length).toBeGreaterThan(15);
    for (const [, name, fallback] of fallbacks) {
      const doc = ENV_DOCS.find((d) => d.names.includes(name!));
      // HTTP_PORT's fallback is never used: unset, there is no plain-HTTP port.
      if (doc?.default === "unset") continue;
      expect(doc?.default, name).toBe(fallback!.replace(/_/g, ""));
    }
  });
});

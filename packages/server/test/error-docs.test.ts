// docs/errors.md has one section per error code, with the status platform/errors.ts maps it to, and
// lists it under that status in its index: the page cannot drift from the closed list of codes.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, ERROR_STATUS } from "../src/platform/errors.ts";

const page = readFileSync(path.resolve(import.meta.dirname, "../../../docs/errors.md"), "utf8");

describe("docs/errors.md", () => {
  it("has a section for every code and none for a code that does not exist", () => {
    const sections = [...page.matchAll(/^## ([A-Z_]+)$/gm)].map((m) => m[1]);
    expect([...sections].sort()).toEqual([...ERROR_CODES].sort());
  });

  it.each(ERROR_CODES)("%s: its section and the index give the status errors.ts maps it to", (code) => {
    const status = ERROR_STATUS[code];
    expect(page).toMatch(new RegExp(`^## ${code}\\n\\n\\*\\*HTTP ${status}\\.\\*\\* \\S`, "m"));
    const indexLine = page.split("\n").find((line) => line.includes(`(#${code.toLowerCase()})`));
    expect(indexLine?.startsWith(`- **${status}**: `), code).toBe(true);
  });
});

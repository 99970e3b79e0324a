// `npm run docs:config`: rewrites the configuration tables of README.md and docs/operations.md from
// ENV_DOCS (packages/server/src/config-docs.ts), between their config-table markers.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { renderConfigTable, replaceConfigTable } from "../src/config-docs.ts";

const root = path.resolve(import.meta.dirname, "../../..");
const targets = [
  { file: "README.md", form: "summary" },
  { file: "docs/operations.md", form: "details" },
] as const;

for (const { file, form } of targets) {
  const full = path.join(root, file);
  const before = readFileSync(full, "utf8");
  const after = replaceConfigTable(before, renderConfigTable(form));
  if (after !== before) writeFileSync(full, after);
  console.log(`${file}: ${after === before ? "unchanged" : "rewritten"}`);
}

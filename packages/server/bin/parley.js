#!/usr/bin/env node
// The CLI is TypeScript run directly by Node's type stripping (Node >= 22.18 / 24): no build step.
// On an older Node, scripts/check-node.cjs stops with one line naming the fix, before any .ts file
// is imported (a static import would fail first, with a stack trace about the ".ts" extension).
// Servers run with --max-semi-space-size=32 (`npm start`, the benchmark, NODE_OPTIONS in the README):
// see docs/decisions.md. It is not in this shebang: `env -S` is missing from some `env`s (BusyBox).
import { createRequire } from "node:module";

createRequire(import.meta.url)("../../../scripts/check-node.cjs").check();
await import("../src/cli.ts");

#!/usr/bin/env node
// The CLI is TypeScript run directly by Node's type stripping (Node >= 22.18 / 24): no build step.
// Servers run with --max-semi-space-size=32 (`npm start`, the benchmark, NODE_OPTIONS in the README):
// see docs/decisions.md. It is not in this shebang: `env -S` is missing from some `env`s (BusyBox).
import "../src/cli.ts";

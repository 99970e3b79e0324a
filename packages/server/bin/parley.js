#!/usr/bin/env node
// The CLI is TypeScript run directly by Node's type stripping (Node >= 22.18 / 24): no build step.
import "../src/cli.ts";

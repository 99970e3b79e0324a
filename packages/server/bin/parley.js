#!/usr/bin/env -S node --max-semi-space-size=32
// The CLI is TypeScript run directly by Node's type stripping (Node >= 22.18 / 24): no build step.
// --max-semi-space-size=32 caps V8's young generation at 2 × 32 MB. Left to itself V8 sizes it from
// the machine's memory: on a 24 GB host it doubled to 2 × 64 MB under load, which alone raised peak
// RSS by about 45 MB (docs/decisions.md). `npm start` and the benchmark pass the same flag.
import "../src/cli.ts";

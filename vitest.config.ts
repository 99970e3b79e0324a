import { defineConfig } from "vitest/config";

// One test run for the whole workspace; each package declares its own project.
export default defineConfig({
  test: {
    // The web app has a second project: its component tests (the first is its end-to-end suite).
    projects: ["packages/*/vitest.config.ts", "packages/web/vitest.unit.config.ts"],
    // Two files at a time on CI's two cores: server and client tests spend most of their time waiting on
    // sockets, timers and the database, not on the CPU. Each file has its own database and free ports.
    // Projects that set `fileParallelism: false` (the browser flows) still run alone, one file at a time.
    // Four at a time halved the SQLite pass alone (659 → 364 s) but, beside CI's other lane, made it no
    // faster and a timing test flaky (docs/decisions/foundation-and-tooling.md).
    maxWorkers: 2,
  },
});

import { defineConfig } from "vitest/config";

// One test run for the whole workspace; each package declares its own project.
export default defineConfig({
  test: {
    // The web app has a second project: its component tests (the first is its end-to-end suite).
    projects: ["packages/*/vitest.config.ts", "packages/web/vitest.unit.config.ts"],
    // Four files at a time, even on CI's two cores: server and client tests spend most of their time
    // waiting on sockets, timers and the database, not on the CPU (two at a time kept about one core
    // busy). Each file has its own database and free ports. Projects that set `fileParallelism: false`
    // (the browser flows) still run alone, one file at a time.
    maxWorkers: 4,
  },
});

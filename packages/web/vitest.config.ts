import { defineConfig } from "vitest/config";

// End-to-end: the real `parley serve` on SQLite, driven in Debian's Chromium by Playwright.
export default defineConfig({
  test: {
    name: "web-e2e",
    include: ["e2e/**/*.test.ts"],
    globalSetup: ["e2e/global-setup.ts"],
    pool: "forks",
    // One browser at a time: the flows are long and the CI machine has two cores.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // What the page shows after a live update arrives through the server, the stream and a refetch: on
    // a busy two-core CI machine that takes longer than expect.poll's default second. Playwright's own
    // waits allow 30 s; polls allow 10.
    expect: { poll: { timeout: 10_000, interval: 100 } },
  },
});

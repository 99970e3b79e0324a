import { defineConfig } from "vitest/config";

// One test run for the whole workspace; each package declares its own project.
export default defineConfig({
  test: {
    // The web app has a second project: its component tests (the first is its end-to-end suite).
    projects: ["packages/*/vitest.config.ts", "packages/web/vitest.unit.config.ts"],
  },
});

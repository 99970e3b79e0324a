import { defineConfig } from "vitest/config";

// One test run for the whole workspace; each package declares its own project.
export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts"],
  },
});

import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "client",
    include: ["test/**/*.test.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

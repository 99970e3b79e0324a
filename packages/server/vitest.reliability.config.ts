import { defineConfig } from "vitest/config";

// `npm run test:reliability`: crashes, several nodes, faulty receivers, database faults, hostile input,
// abusive clients, SSRF and backups. Slower than the unit of `npm test`, so a suite of its own; CI runs
// it on SQLite and on PostgreSQL (DATABASE_URL).
export default defineConfig({
  test: {
    name: "reliability",
    root: import.meta.dirname,
    include: ["test-reliability/**/*.test.ts"],
    pool: "forks",
    // Files start servers and kill them: one at a time keeps timings honest on two cores.
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 120_000,
  },
});

import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// Component tests: the pieces with logic rendered in happy-dom with the app's providers (test/render.tsx),
// no server and no browser. The whole flows are in e2e/ (vitest.config.ts).
export default defineConfig({
  plugins: [react()],
  test: {
    name: "web-unit",
    include: ["test/**/*.test.tsx"],
    environment: "happy-dom",
    setupFiles: ["test/setup.ts"],
    // The files share nothing but the (pure) modules they import: loading Mantine once saves seconds.
    isolate: false,
  },
});

import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Built to dist/, which the Parley server serves at / (hashed files under /assets/ are cached for good).
export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: {
    // `npm run dev -w @parley/web` next to a running server: the API calls go to it.
    proxy: { "/app/api": { target: "https://localhost:8443", secure: false, changeOrigin: false } },
  },
});

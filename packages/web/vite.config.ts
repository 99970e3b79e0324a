import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

// Text files worth compressing; below 1 kB the saving is lost in the headers.
const COMPRESSIBLE = /\.(js|css|html|svg|json)$/;
const MIN_BYTES = 1024;

/**
 * Writes a .br and a .gz next to each built text file, so the server sends them as they are
 * (@fastify/static preCompressed) instead of compressing on every request: brotli at its best
 * level costs seconds, once here rather than on each first load.
 */
function precompress(): Plugin {
  return {
    name: "parley-precompress",
    apply: "build",
    writeBundle(options, bundle) {
      const outDir = options.dir ?? "dist";
      for (const fileName of Object.keys(bundle)) {
        if (!COMPRESSIBLE.test(fileName)) continue;
        const file = path.join(outDir, fileName);
        const bytes = fs.readFileSync(file);
        if (bytes.length < MIN_BYTES) continue;
        const brotli = { [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY };
        fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(bytes, { params: brotli }));
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(bytes, { level: zlib.constants.Z_BEST_COMPRESSION }));
      }
    },
  };
}

// Built to dist/, which the Parley server serves at / (hashed files under /assets/ are cached for good).
export default defineConfig({
  plugins: [react(), precompress()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    rolldownOptions: {
      output: {
        // Pages are lazy chunks (src/App.tsx). The libraries every page uses get chunks of their own,
        // which stay cached across releases that only change Parley's code. Mantine's components are
        // left to the pages that use them (one "all of Mantine" chunk would weigh on the first load),
        // and the charts stay with the dashboard.
        codeSplitting: {
          groups: [
            { name: "react", test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/ },
            { name: "tanstack", test: /node_modules[\\/]@tanstack[\\/]/ },
          ],
        },
      },
    },
  },
  server: {
    // `npm run dev -w @parley/web` next to a running server: the API calls go to it.
    proxy: { "/app/api": { target: "https://localhost:8443", secure: false, changeOrigin: false } },
  },
});

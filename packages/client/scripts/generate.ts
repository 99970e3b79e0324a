// npm run generate -w @parley/client: rewrites src/generated/openapi.ts (the SDK's types, /v1) and the web
// app's packages/web/src/lib/generated/app-api.ts (/app/api) from the live server document.
import fs from "node:fs";
import path from "node:path";
import { APP_GENERATED_FILE, GENERATED_FILE, liveDocument, renderAppTypes, renderTypes } from "./openapi.ts";

const doc = await liveDocument();
for (const [file, source] of [
  [GENERATED_FILE, await renderTypes(doc)],
  [APP_GENERATED_FILE, await renderAppTypes(doc)],
] as const) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, source);
  console.log(`wrote ${file} (${source.length} bytes)`);
}

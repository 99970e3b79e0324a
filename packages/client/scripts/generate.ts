// npm run generate -w @parley/client: rewrites src/generated/openapi.ts from the live server document.
import fs from "node:fs";
import { GENERATED_FILE, liveDocument, renderTypes } from "./openapi.ts";

const source = await renderTypes(await liveDocument());
fs.writeFileSync(GENERATED_FILE, source);
console.log(`wrote ${GENERATED_FILE} (${source.length} bytes)`);

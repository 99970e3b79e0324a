// Drift: the committed types (the SDK's, and the web app's for /app/api) must be what the live server
// document produces, and the client's operation table must name every /v1 operation of the document
// (same method, path, operationId, key transport).
// When this fails after a server change: `npm run generate -w @parley/client`, then add or fix the row
// in src/operations.ts and the method in src/client.ts (the type checker shows what changed).
import fs from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import {
  APP_GENERATED_FILE,
  GENERATED_FILE,
  liveDocument,
  type OpenApiDocument,
  renderAppTypes,
  renderTypes,
} from "../scripts/openapi.ts";
import { OPERATIONS } from "../src/operations.ts";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

describe("generated types and operation table against the live OpenAPI document", () => {
  let doc: OpenApiDocument;
  beforeAll(async () => {
    doc = await liveDocument();
  });

  it("src/generated/openapi.ts is what `npm run generate` writes from the live document", async () => {
    const expected = await renderTypes(doc);
    const actual = fs.readFileSync(GENERATED_FILE, "utf8");
    // A plain comparison: on a difference, vitest prints the diff; regenerate to fix.
    expect(actual).toBe(expected);
  });

  it("the web app's lib/generated/app-api.ts is what `npm run generate` writes from the live document", async () => {
    const expected = await renderAppTypes(doc);
    const actual = fs.readFileSync(APP_GENERATED_FILE, "utf8");
    expect(actual).toBe(expected);
  });

  it("every /app/api operation declares its answer (the web app's types come from it)", () => {
    const undeclared: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith("/app/api/")) continue;
      for (const method of METHODS) {
        const op = item[method] as { operationId?: string; responses?: Record<string, unknown> } | undefined;
        if (op && !Object.keys(op.responses ?? {}).some((status) => status.startsWith("2"))) {
          undeclared.push(`${method.toUpperCase()} ${path} ${op.operationId ?? ""}`);
        }
      }
    }
    expect(undeclared, "/app/api routes without a response schema").toEqual([]);
  });

  it("every /v1 operation of the document has a client operation, and every client operation exists", () => {
    const live: Array<{ method: string; path: string; operationId?: string; headerOnly: boolean }> = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith("/v1/")) continue;
      for (const method of METHODS) {
        const op = item[method] as { operationId?: string; security?: Array<Record<string, unknown>> };
        if (!op) continue;
        const security = op.security?.flatMap((s) => Object.keys(s));
        live.push({
          method,
          path,
          operationId: op.operationId,
          headerOnly:
            security !== undefined && security.length > 0 && security.every((s) => s === "apiKeyHeader"),
        });
      }
    }
    const table = Object.entries(OPERATIONS).map(([id, spec]) => ({
      id,
      method: spec.method as string,
      path: spec.path as string,
      headerOnly: "headerKeyOnly" in spec && spec.headerKeyOnly === true,
    }));
    // Hyphenated aliases of the custom channel paths are the same operations (hidden once marked so).
    const aliases = new Set(["/v1/send-custom-channel-message", "/v1/incoming-custom-channel-message"]);
    const missing = live
      .filter((l) => !aliases.has(l.path))
      .filter((l) => !table.some((t) => t.method === l.method && t.path === l.path))
      .map((l) => `${l.method.toUpperCase()} ${l.path} ${l.operationId ?? ""}`);
    expect(missing, "operations of the server without a client method").toEqual([]);
    const stale = table
      .filter((t) => !live.some((l) => l.method === t.method && l.path === t.path))
      .map((t) => t.id);
    expect(stale, "client operations the server no longer has").toEqual([]);
    for (const t of table) {
      const l = live.find((x) => x.method === t.method && x.path === t.path)!;
      // Once the server names its operations, the names must be the client's.
      if (l.operationId !== undefined)
        expect(`${t.id} ${t.method} ${t.path}`).toBe(`${l.operationId} ${l.method} ${l.path}`);
      expect(`${t.id} headerOnly=${t.headerOnly}`).toBe(`${t.id} headerOnly=${l.headerOnly}`);
    }
  });
});

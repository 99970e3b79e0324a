// The OpenAPI document is what the SDK is generated from: every operation has a unique operationId
// and a declared tag, and lists the failures it can answer (413 and 415 wherever it takes a body;
// 500 and 503 everywhere; the incoming endpoint in its simple error form).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startTestApp, type TestApp } from "./helpers.ts";

type Operation = {
  operationId?: string;
  tags?: string[];
  requestBody?: unknown;
  responses: Record<
    string,
    { content?: Record<string, { schema?: { properties?: { error?: { type?: string } } } }> }
  >;
};
type Doc = {
  openapi: string;
  tags: Array<{ name: string }>;
  paths: Record<string, Record<string, Operation>>;
};

describe("the OpenAPI document", () => {
  let t: TestApp;
  let doc: Doc;
  let operations: Array<{ path: string; method: string; op: Operation }>;
  beforeAll(async () => {
    t = await startTestApp();
    const res = await t.inject({ method: "GET", url: "/v1/openapi.json" });
    expect(res.statusCode).toBe(200);
    doc = json<Doc>(res);
    operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
  });
  afterAll(() => t.close());

  it("is OpenAPI 3.1 and documents the whole /v1 API", () => {
    expect(doc.openapi).toBe("3.1.0");
    const v1 = operations.filter((o) => o.path.startsWith("/v1/"));
    expect(v1.length).toBeGreaterThanOrEqual(32);
  });

  it("gives every operation a unique operationId", () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(operations.filter((o) => !o.op.operationId).map((o) => `${o.method} ${o.path}`)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("tags every operation with a tag the document declares", () => {
    const declared = new Set(doc.tags.map((t) => t.name));
    const untagged = operations.filter(
      (o) => !o.op.tags?.length || o.op.tags.some((tag) => !declared.has(tag)),
    );
    expect(untagged.map((o) => `${o.method} ${o.path}`)).toEqual([]);
  });

  it("lists 413 and 415 on every body-taking operation, and 500 and 503 on every operation", () => {
    const missing = operations.flatMap((o) => {
      const need = ["500", "503", ...(o.op.requestBody ? ["413", "415"] : [])];
      return need.filter((s) => !o.op.responses[s]).map((s) => `${o.method} ${o.path} ${s}`);
    });
    expect(missing).toEqual([]);
  });

  it("documents the incoming endpoint's errors in the simple form", () => {
    const incoming = doc.paths["/v1/incoming_custom_channel_message"]?.post;
    const schema = incoming?.responses["413"]?.content?.["application/json"]?.schema;
    expect(schema?.properties?.error?.type).toBe("string");
  });
});

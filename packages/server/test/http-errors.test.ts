// Every response in the one error model, and no secret in any answer or log line: Fastify's and
// Node's own refusals (bad percent-encoding, a path segment too long, headers too large, a non-JSON
// body, unparsable JSON) are mapped to the closed list of codes, never echo the URL (whose query may
// hold the API key), and the request log redacts keys however their parameter name is encoded.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, LogCapture, startTestApp, type TestApp } from "./helpers.ts";

type Structured = { error: { code: string; message: string; requestId: string } };

describe("framework errors in the error model", () => {
  let t: TestApp;
  let logs: LogCapture;
  let apiKey: string;
  beforeAll(async () => {
    logs = new LogCapture();
    t = await startTestApp({ LOG_LEVEL: "info" }, { logStream: logs });
    ({ apiKey } = await t.account());
  });
  afterAll(() => t.close());

  it("bad percent-encoding: 400 VALIDATION_ERROR, structured, without the URL or the key", async () => {
    const res = await t.inject({ method: "GET", url: `/v1/contacts/%E0%A4%A?apiKey=${apiKey}` });
    expect(res.statusCode).toBe(400);
    const body = json<Structured>(res);
    expect(body.error.code).toBe("VALIDATION_ERROR");
    expect(body.error.requestId).toMatch(/^req_/);
    expect(res.body).not.toContain(apiKey);
    expect(res.body).not.toContain("%E0");
  });

  it("the incoming endpoint answers the same refusal in its simple form", async () => {
    const res = await t.inject({
      method: "POST",
      url: `/v1/incoming_custom_channel_message/%E0%A4%A?apiKey=${apiKey}`,
    });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toEqual({ error: "The URL is not valid (check its percent-encoding)" });
  });

  it("a path segment past the router's limit: 414 URI_TOO_LONG", async () => {
    const res = await t.inject({ method: "GET", url: `/v1/contacts/${"x".repeat(600)}?apiKey=${apiKey}` });
    expect(res.statusCode).toBe(414);
    expect(json<Structured>(res).error.code).toBe("URI_TOO_LONG");
    expect(res.body).not.toContain("xxxxxxxxxx");
  });

  it("a non-JSON body (text/plain included): 415 UNSUPPORTED_MEDIA_TYPE; broken JSON: 400 INVALID_JSON", async () => {
    const plain = await t.inject({
      method: "POST",
      url: `/v1/contacts?apiKey=${apiKey}`,
      headers: { "content-type": "text/plain" },
      payload: "phone=+14155550100",
    });
    expect(plain.statusCode).toBe(415);
    expect(json<Structured>(plain).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const broken = await t.inject({
      method: "POST",
      url: `/v1/contacts?apiKey=${apiKey}`,
      headers: { "content-type": "application/json" },
      payload: "{nope",
    });
    expect(broken.statusCode).toBe(400);
    expect(json<Structured>(broken).error.code).toBe("INVALID_JSON");
  });

  it("an unknown route: 404 NOT_FOUND without echoing the path", async () => {
    const res = await t.inject({ method: "GET", url: `/v1/nothing/${apiKey}?apiKey=${apiKey}` });
    expect(res.statusCode).toBe(404);
    expect(json<Structured>(res).error.code).toBe("NOT_FOUND");
    expect(res.body).not.toContain(apiKey);
  });

  it("headers too large: 431 HEADERS_TOO_LARGE as JSON, from a real socket", async () => {
    await t.parley.app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = t.parley.app.server.address() as net.AddressInfo;
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(40_000)}\r\n\r\n`);
      });
      let data = "";
      socket.on("data", (c) => (data += c));
      socket.on("close", () => resolve(data));
      socket.on("error", () => resolve(data));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as Structured;
    expect(body.error.code).toBe("HEADERS_TOO_LARGE");
  });

  it("never writes a key to the log, however its parameter name is encoded or wherever it is sent", async () => {
    const before = logs.lines.length;
    const urls = [
      `/v1/account?apiKey=${apiKey}`,
      `/v1/account?%61piKey=${apiKey}`,
      `/v1/account?apiKe%79=${apiKey}`,
      `/v1/account?APIKEY=${apiKey}`,
      `/v1/contacts/%E0%A4%A?apiKey=${apiKey}`,
      `/v1/nothing/${apiKey}`,
    ];
    for (const url of urls) await t.inject({ method: "GET", url });
    await t.inject({ method: "GET", url: "/v1/account", headers: { "x-api-key": apiKey } });
    // The encoded names are accepted (the query is decoded) and still redacted.
    expect((await t.inject({ method: "GET", url: urls[1]! })).statusCode).toBe(200);
    const written = logs.lines.slice(before).join("\n");
    expect(written.length).toBeGreaterThan(0);
    expect(written).toContain("[REDACTED]");
    expect(written).not.toContain(apiKey);
    expect(written).not.toContain(apiKey.slice(8));
  });
});

// Abusive clients: a body (or headers) trickling in one byte at a time is cut off at the request
// timeout instead of holding a connection for minutes, and an address that keeps sending invalid API
// keys is refused for a while.
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../test/helpers.ts";
import { cli, envFor, kill, type ServerProcess, start } from "./harness.ts";

/** Sends `head`, then one byte a second; resolves with the seconds until the server closed the socket. */
function trickle(port: number, head: string): Promise<number> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      socket.write(head);
      const timer = setInterval(() => {
        if (!socket.destroyed) socket.write("x");
      }, 1000);
      socket.on("close", () => {
        clearInterval(timer);
        resolve((Date.now() - started) / 1000);
      });
    });
    socket.on("error", () => {});
    socket.on("data", () => {});
  });
}

describe("abusive clients", () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let apiKey: string;
  beforeAll(async () => {
    database = await freshDatabase();
    const env = envFor(database, { REQUEST_TIMEOUT_SECONDS: "3", AUTH_FAILURES_PER_MINUTE: "5" });
    ({ apiKey } = await cli<{ apiKey: string }>(
      ["account", "create", "--email", "abuse@example.com", "--password", "long password"],
      env,
    ));
    server = await start(["serve", "--no-worker"], env);
  });
  afterAll(async () => {
    await kill(server, "SIGTERM");
    await database.drop();
  });

  it("closes a connection whose body trickles in, within the request timeout (3 s here) plus a second", async () => {
    const head =
      `POST /v1/incoming_custom_channel_message?apiKey=${apiKey} HTTP/1.1\r\nHost: x\r\n` +
      "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{";
    const seconds = await trickle(server.port, head);
    expect(seconds).toBeGreaterThanOrEqual(2.5);
    expect(seconds).toBeLessThan(6);
  });

  it("closes a connection whose headers trickle in", async () => {
    const seconds = await trickle(server.port, "GET /healthz HTTP/1.1\r\nX-Slow: ");
    expect(seconds).toBeLessThan(6);
  });

  it("refuses an address after 5 invalid keys in a minute (429 with Retry-After), until the window ends", async () => {
    // The server's certificate is self-signed: undici's own fetch with an agent that accepts it.
    const { Agent, fetch } = await import("undici");
    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    const get = (key: string) =>
      fetch(`https://127.0.0.1:${server.port}/v1/account?apiKey=${key}`, { dispatcher: insecure });
    expect((await get(apiKey)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await get(`pk_live_guess${i}`)).status).toBe(401);
    const refused = await get("pk_live_guess-again");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("RATE_LIMITED");
    // Refused before the key is even looked up: the valid key from this address waits too.
    expect((await get(apiKey)).status).toBe(429);
    await insecure.close();
  });
});

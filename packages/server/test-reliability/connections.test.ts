// Many connections at once: RELIABILITY_CONNECTIONS (default 1,000) TLS connections to a real
// `parley serve` are all opened first (every handshake done, all of them open together), then each
// sends one request. Every one is answered 200 (or 429), none is reset or left unanswered, and the
// server still answers /healthz afterwards. The server's peak RSS is read from /proc.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../test/helpers.ts";
import { BIN } from "../test/process-helpers.ts";
import { cli, envFor } from "./harness.ts";

const CONNECTIONS = Number(process.env.RELIABILITY_CONNECTIONS ?? 1000);

function openFilesLimit(pid: number | "self"): number {
  const line = fs
    .readFileSync(`/proc/${pid}/limits`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("Max open files"));
  return Number(line?.split(/\s+/)[3] ?? 0);
}

function status(pid: number, field: "VmRSS" | "VmHWM"): number {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
}

/** `parley serve` through a shell that first raises its open-files limit to the hard limit. */
function serve(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "sh",
      ["-c", 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"', process.execPath, BIN, "serve"],
      {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    child.stderr.on("data", (c) => (err += c));
    child.stdout.on("data", (c) => {
      out += c;
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve({ child, port: Number(new URL(String(JSON.parse(out.slice(0, nl)).url)).port) });
    });
    child.on("exit", (code) => reject(new Error(`parley serve exited (${code}): ${err}`)));
  });
}

function connect(port: number): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
    socket.once("secureConnect", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Sends one request on an open TLS socket; resolves with the status code or the error's code. */
function request(socket: tls.TLSSocket, path: string, apiKey: string): Promise<number | string> {
  return new Promise((resolve) => {
    let data = "";
    socket.removeAllListeners("error");
    socket.on("data", (c) => (data += c));
    socket.on("error", (err) => resolve((err as NodeJS.ErrnoException).code ?? "error"));
    socket.on("close", () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      resolve(m ? Number(m[1]) : "closed without an answer");
    });
    socket.write(
      `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${apiKey}\r\nconnection: close\r\n\r\n`,
    );
  });
}

describe(`${CONNECTIONS} concurrent TLS connections to parley serve`, () => {
  let database: TestDatabase;
  let server: { child: ChildProcess; port: number } | null = null;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      const exited = new Promise((r) => server?.child.once("exit", r));
      server.child.kill("SIGTERM");
      await exited;
    }
    await database.drop();
  });

  it("serves every one (200/429), resets none, and stays up", async () => {
    // This process holds the client ends: it needs as many descriptors as there are connections.
    expect(openFilesLimit("self"), "raise `ulimit -n` for the test run").toBeGreaterThan(CONNECTIONS + 200);
    const env = envFor(database);
    const account = await cli<{ apiKey: string }>(
      ["account", "create", "--email", "many@example.com", "--password", "long password"],
      env,
    );
    server = await serve(env);
    const pid = server.child.pid as number;
    expect(openFilesLimit(pid)).toBeGreaterThan(CONNECTIONS + 200);
    const baseline = status(pid, "VmRSS");

    const started = Date.now();
    const opened = await Promise.allSettled(Array.from({ length: CONNECTIONS }, () => connect(server!.port)));
    const sockets = opened.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const handshakes = Date.now() - started;
    const failedToOpen = opened.flatMap((r) =>
      r.status === "rejected" ? [String((r.reason as Error).message)] : [],
    );
    expect(failedToOpen).toEqual([]);
    expect(sockets.every((s) => !s.destroyed)).toBe(true); // all open at the same time

    const answers = await Promise.all(sockets.map((s) => request(s, "/v1/account", account.apiKey)));
    const took = Date.now() - started;
    const tally = new Map<number | string, number>();
    for (const a of answers) tally.set(a, (tally.get(a) ?? 0) + 1);
    const peak = status(pid, "VmHWM");
    console.log(
      `${CONNECTIONS} TLS connections: all open after ${handshakes} ms, answered after ${took} ms: ` +
        `${[...tally].map(([k, n]) => `${k}×${n}`).join(", ")}; server RSS ${baseline} MB before, peak ${peak} MB`,
    );
    expect([...tally.keys()].filter((k) => k !== 200 && k !== 429)).toEqual([]);
    expect(tally.get(200) ?? 0).toBeGreaterThan(0);

    // Still up: a fresh connection is answered.
    const again = await request(await connect(server.port), "/healthz", account.apiKey);
    expect(again).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });
});

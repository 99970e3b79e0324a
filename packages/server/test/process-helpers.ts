// Run the real `parley` command as a child process, as an operator would.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TestDatabase } from "./helpers.ts";

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../bin/parley.js");

export function cliEnv(database: TestDatabase, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: database.dataDir,
    LOG_LEVEL: "silent",
    ...extra,
  };
  if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
  else delete env.DATABASE_URL;
  return env;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Parses the one JSON line a successful command prints, failing loudly otherwise. */
export function oneJsonLine<T = Record<string, unknown>>(result: CliResult): T {
  if (result.code !== 0) throw new Error(`command failed (${result.code}): ${result.stderr}`);
  const lines = result.stdout.split("\n").filter(Boolean);
  if (lines.length !== 1)
    throw new Error(`expected one line on stdout, got ${lines.length}: ${result.stdout}`);
  return JSON.parse(lines[0]!) as T;
}

/** Starts `parley serve` (or another long-running command) and resolves once it printed its JSON line. */
export function startServer(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{
  child: ChildProcess;
  line: Record<string, unknown>;
  stderr: () => string;
  exited: Promise<number | null>;
}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    child.stderr.on("data", (c) => (stderr += c));
    child.stdout.on("data", (c) => {
      stdout += c;
      const nl = stdout.indexOf("\n");
      if (nl >= 0) resolve({ child, line: JSON.parse(stdout.slice(0, nl)), stderr: () => stderr, exited });
    });
    child.on("exit", (code) => reject(new Error(`exited early (${code}): ${stderr}`)));
  });
}

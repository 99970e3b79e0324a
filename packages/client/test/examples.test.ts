// The examples run as documented, against a real server: examples/receiver.ts (the external system)
// prints the bot's reply to a message posted by examples/send-incoming.ts, and grants an auto-recharge
// once. They import "@parley/client" resolved to src (node --conditions=parley-source), so no build.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_DIR } from "../scripts/openapi.ts";
import { type LiveServer, startLiveServer, uniqueEmail, waitFor } from "./helpers.ts";

const ROOT = path.resolve(PACKAGE_DIR, "../..");

function run(script: string, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ["--conditions=parley-source", script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out = { text: "" };
  child.stdout.on("data", (c: Buffer) => {
    out.text += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    out.text += c.toString();
  });
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  return { child, out, exited };
}

describe("examples", () => {
  let s: LiveServer;
  let receiver: { child: ChildProcess; out: { text: string } };
  let env: Record<string, string>;
  let agencyEmail: string;
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-example-store-"));

  beforeAll(async () => {
    s = await startLiveServer({ DELIVERY_RETRY_SCHEDULE: "0.05,0.05" });
    s.t.parley.worker.start();
    agencyEmail = uniqueEmail("example-agency");
    const acc = await s.t.account({ email: agencyEmail, kind: "agency" });
    env = {
      PARLEY_BASE_URL: s.baseUrl,
      PARLEY_API_KEY: acc.apiKey,
      PARLEY_WEBHOOK_SECRET: acc.webhookSecret,
      PORT: "0",
      STORE_DIR: storeDir,
    };
    receiver = run("examples/receiver.ts", [], env);
    const url = await waitFor(
      () => receiver.out.text.match(/listening on (http:\/\/\S+)/)?.[1],
      "the receiver to listen",
    );
    await s.setAccount(agencyEmail, { "webhook-url": url, "events-webhook-url": url });
  });
  afterAll(async () => {
    receiver?.child.kill();
    await s?.close();
    fs.rmSync(storeDir, { recursive: true, force: true });
  });

  it("send-incoming posts a message; the receiver verifies and prints the bot's reply", async () => {
    const sender = run("examples/send-incoming.ts", ["user-42", "Hello there"], env);
    expect(await sender.exited).toBe(0);
    expect(sender.out.text).toMatch(/accepted: messageId msg_/);
    await waitFor(
      () => /reply for user-42 on example \(bot\): /.test(receiver.out.text),
      "the printed reply",
    );
  });

  it("the receiver grants an auto-recharge once", async () => {
    const agency = s.client(env.PARLEY_API_KEY!);
    const email = uniqueEmail("example-sub");
    const sub = await agency.subaccounts.create({ email });
    await agency.subaccounts.grantCredits({ email, amount: 10 });
    await agency.subaccounts.setAutoRecharge(sub.id, { threshold: 5, rechargeAmount: 20 });
    await s.spend(sub.id, 6);
    await waitFor(
      () => new RegExp(`auto-recharge ar_\\S+ for ${email}: granted`).test(receiver.out.text),
      "the printed grant",
    );
    expect((await agency.subaccounts.get(sub.id)).credits).toBe(24);
  });
});

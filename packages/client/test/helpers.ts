// A real Parley server for the SDK tests: the server's own test harness (fresh SQLite, or PostgreSQL
// with DATABASE_URL), listening on 127.0.0.1 over plain HTTP (built without TLS), plus a real HTTP
// receiver for webhooks.
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { accountsModule } from "../../server/src/modules/accounts/index.ts";
import { debit } from "../../server/src/modules/credits/ledger.ts";
import { startTestApp, type TestApp } from "../../server/test/helpers.ts";
import { Parley, type ParleyOptions } from "../src/index.ts";

export interface LiveServer {
  t: TestApp;
  /** `http://127.0.0.1:<port>/v1/`, as the spec writes `{base_url}`. */
  baseUrl: string;
  client(apiKey: string, options?: Partial<ParleyOptions>): Parley;
  /** Sets the account's webhook URLs as the CLI does. */
  setAccount(
    email: string,
    values: {
      "webhook-url"?: string;
      "events-webhook-url"?: string;
      "llm-base-url"?: string;
      "llm-api-key"?: string;
      "llm-model"?: string;
    },
  ): Promise<void>;
  /** A debit as the bot makes it (fires auto-recharge events). */
  spend(accountId: string, credits: number): Promise<unknown>;
  close(): Promise<void>;
}

export const uniqueEmail = (tag: string) => `${tag}-${randomBytes(4).toString("hex")}@example.com`;

export async function startLiveServer(env: Record<string, string> = {}): Promise<LiveServer> {
  const t = await startTestApp(env);
  await t.parley.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = t.parley.app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/v1/`;
  return {
    t,
    baseUrl,
    client: (apiKey, options = {}) => new Parley({ apiKey, baseUrl, retryBaseDelayMs: 20, ...options }),
    async setAccount(email, values) {
      await accountsModule.commands!["account set"]!.run({ email, ...values }, t.parley.ctx);
    },
    spend: (accountId, credits) =>
      t.parley.db.kysely.transaction().execute((trx) =>
        debit(trx, accountId, {
          amount: Math.round(credits * 100),
          kind: "bot_reply",
          messageId: `msg_${randomBytes(8).toString("hex")}`,
        }),
      ),
    close: () => t.close(),
  };
}

export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** A real HTTP receiver; `handle` decides the status. */
export async function startReceiver(handle: (d: Delivery) => Promise<number> | number = () => 200) {
  const deliveries: Delivery[] = [];
  let handler = handle;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const d: Delivery = {
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]),
        ),
        body: Buffer.concat(chunks).toString("utf8"),
      };
      deliveries.push(d);
      let status = 500;
      try {
        status = await handler(d);
      } catch {
        status = 500;
      }
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "no");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    setHandler(h: (d: Delivery) => Promise<number> | number) {
      handler = h;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export async function waitFor<T>(
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

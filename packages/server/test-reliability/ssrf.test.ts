// SSRF with production settings (no OUTBOUND_ALLOW_CIDRS): webhook and media URLs aimed at loopback,
// private, link-local, CGNAT, unspecified and IPv4-mapped addresses, in every spelling the URL parser
// accepts (decimal, octal, hex, short forms), a name that resolves to a private address, and a redirect
// from an allowed receiver to a private address. Refused at save time (validateWebhookUrl: settings,
// CLI) and at send time (delivery attempts, media downloads, the fetcher itself), and a listener on
// the loopback target counts connections: it must see none. test/safe-fetch.test.ts holds the
// address-range table (isAddressAllowed) and the literal-IP checks of checkUrlScheme; this file adds
// the spellings it lacks and proves "no connection" end to end.
import dns from "node:dns";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateWebhookUrl } from "../src/modules/accounts/webhook-url.ts";
import { AppError } from "../src/platform/errors.ts";
import { createSafeFetcher, OutboundError } from "../src/platform/safe-fetch.ts";
import { freshDatabase, json, startTestApp, type TestApp, type TestDatabase } from "../test/helpers.ts";
import { runCli } from "../test/process-helpers.ts";
import { cli, envFor, waitFor } from "./harness.ts";

/** A TCP listener that counts every connection made to it (and answers 200 if one ever comes). */
async function countingListener(
  host: string,
): Promise<{ port: number; count: () => number; close(): Promise<void> }> {
  let n = 0;
  const server = net.createServer((socket) => {
    n++;
    socket.on("error", () => {});
    socket.end("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return {
    port: (server.address() as net.AddressInfo).port,
    count: () => n,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Every spelling of a loopback target the URL parser accepts, on `port`. */
function loopbackForms(port: number): string[] {
  return [
    `http://127.0.0.1:${port}/`,
    `http://127.1:${port}/`,
    `http://127.0.1:${port}/`,
    `http://2130706433:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://017700000001:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://0x7f.1:${port}/`,
    `http://0x7F.0.0.0x1:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://0:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://[0:0:0:0:0:ffff:7f00:1]:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::]:${port}/`,
    `http://localhost:${port}/`,
    `http://LOCALHOST.:${port}/`,
    `https://127.0.0.1:${port}/`,
    `https://0x7f000001:${port}/`,
    `https://[::ffff:7f00:1]:${port}/`,
  ];
}

const OTHER_PRIVATE = [
  "http://10.0.0.1/",
  "http://012.0.0.1/",
  "http://167772161/",
  "http://172.16.0.1/",
  "http://192.168.1.1/",
  "http://0xc0a80101/",
  "http://169.254.169.254/latest/meta-data/",
  "http://0xa9fea9fe/",
  "http://2852039166/",
  "http://100.64.0.1/",
  "http://100.127.255.254/",
  "http://[::ffff:10.0.0.1]/",
  "http://[::ffff:a9fe:a9fe]/",
  "http://[fe80::1]/",
  "http://[fc00::1]/",
  "http://[fd00:ec2::254]/",
  "http://[64:ff9b::a9fe:a9fe]/",
];

/** A literal address is refused by the policy; a name by the policy or, for a name that does not
 * resolve ("LOCALHOST." on some resolvers), by DNS: either way before any connection. */
function refused(url: string, err: OutboundError): void {
  const named = /^https?:\/\/[a-z]/i.test(url) && !/^https?:\/\/0x/i.test(url);
  expect(named ? ["blocked_address", "dns"] : ["blocked_address"], `${url}: ${err.message}`).toContain(
    err.errorClass,
  );
}

async function outbound(p: Promise<unknown>): Promise<OutboundError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OutboundError) return err;
    throw err;
  }
  throw new Error("expected the request to be refused");
}

describe("SSRF, production settings (no OUTBOUND_ALLOW_CIDRS)", () => {
  let target: Awaited<ReturnType<typeof countingListener>>;
  let target6: Awaited<ReturnType<typeof countingListener>> | null = null;
  beforeAll(async () => {
    target = await countingListener("127.0.0.1");
    target6 = await countingListener("::1").catch(() => null);
  });
  afterAll(async () => {
    await target.close();
    await target6?.close();
  });
  const connections = () => target.count() + (target6?.count() ?? 0);

  it("save time: validateWebhookUrl refuses every form, http and https", async () => {
    const urls = [
      ...loopbackForms(target.port),
      ...OTHER_PRIVATE,
      ...OTHER_PRIVATE.map((u) => u.replace("http:", "https:")),
    ];
    const accepted: string[] = [];
    for (const url of urls) {
      try {
        await validateWebhookUrl(url, []);
        accepted.push(url);
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe("VALIDATION_ERROR");
      }
    }
    // An https:// hostname is checked when connecting (its DNS may change after saving): only
    // names may pass here, never a literal address.
    expect(accepted.filter((u) => !/^https:\/\/(localhost|LOCALHOST\.)[:/]/.test(u))).toEqual([]);
    expect(connections()).toBe(0);
  });

  it("send time: the fetcher refuses every form and never connects", async () => {
    const fetcher = createSafeFetcher({ allowCidrs: [] });
    try {
      for (const url of [...loopbackForms(target.port), ...OTHER_PRIVATE]) {
        for (const method of ["GET", "POST"] as const) {
          const err = await outbound(
            fetcher.request({ url, method, body: method === "POST" ? "{}" : undefined, maxBodyBytes: 1024 }),
          );
          refused(url, err);
        }
      }
    } finally {
      await fetcher.close();
    }
    expect(connections()).toBe(0);
  });

  it("send time: a name that resolves to a private address (or to a public and a private one) is refused", async () => {
    const answers: Record<string, Array<{ address: string; family: number }>> = {
      "loopback.example": [{ address: "127.0.0.1", family: 4 }],
      "mapped.example": [{ address: "::ffff:127.0.0.1", family: 6 }],
      "metadata.example": [{ address: "169.254.169.254", family: 4 }],
      "cgnat.example": [{ address: "100.64.0.1", family: 4 }],
      "zero.example": [{ address: "0.0.0.0", family: 4 }],
      "mixed.example": [
        { address: "93.184.216.34", family: 4 },
        { address: "127.0.0.1", family: 4 },
      ],
    };
    const fetcher = createSafeFetcher({ allowCidrs: [], lookup: async (host) => answers[host] ?? [] });
    try {
      for (const host of Object.keys(answers)) {
        const err = await outbound(
          fetcher.request({ url: `http://${host}:${target.port}/`, maxBodyBytes: 1024 }),
        );
        expect(err.errorClass, host).toBe("blocked_address");
      }
    } finally {
      await fetcher.close();
    }
    expect(connections()).toBe(0);
  });

  it("send time: a redirect from an allowed receiver to a private address is refused before connecting", async () => {
    // The receiver is the one address let through (127.0.0.2/32); everything else is production.
    const hops: string[] = [];
    let redirectTo = "";
    const receiver = net.createServer((socket) => {
      socket.on("error", () => {});
      socket.once("data", () => {
        hops.push(redirectTo);
        socket.end(
          `HTTP/1.1 302 Found\r\nlocation: ${redirectTo}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`,
        );
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.2", r));
    const port = (receiver.address() as net.AddressInfo).port;
    const fetcher = createSafeFetcher({
      allowCidrs: ["127.0.0.2/32"],
      lookup: async (host) =>
        host === "private.example"
          ? [{ address: "127.0.0.1", family: 4 }]
          : dns.promises.lookup(host, { all: true }),
    });
    try {
      const targets = [
        ...loopbackForms(target.port).filter((u) => u.startsWith("http:")),
        `http://private.example:${target.port}/`,
        "http://169.254.169.254/latest/meta-data/",
        "http://100.64.0.1/",
      ];
      for (const to of targets) {
        redirectTo = to;
        for (const method of ["GET", "POST"] as const) {
          const err = await outbound(
            fetcher.request({
              url: `http://127.0.0.2:${port}/hook`,
              method,
              body: method === "POST" ? "{}" : undefined,
              maxBodyBytes: 1024,
              followRedirects: 3,
            }),
          );
          refused(to, err);
        }
      }
      expect(hops.length).toBe(targets.length * 2); // the receiver was reached every time
    } finally {
      await fetcher.close();
      await new Promise<void>((r) => receiver.close(() => r()));
    }
    expect(connections()).toBe(0);
  });

  describe("through the app: delivery attempts and media downloads", () => {
    let t: TestApp;
    let apiKey: string;
    let accountId: string;
    beforeAll(async () => {
      t = await startTestApp({ OUTBOUND_ALLOW_CIDRS: "", DELIVERY_RETRY_SCHEDULE: "3600" });
      const account = await t.account();
      apiKey = account.apiKey;
      accountId = account.accountId;
      t.parley.worker.start();
    });
    afterAll(async () => {
      await t?.close();
    });

    it("a webhook URL saved before its address became private (or written by hand) gets blocked_address attempts, no connection", async () => {
      const urls = [
        `http://2130706433:${target.port}/hooks`,
        `http://0177.0.0.1:${target.port}/hooks`,
        `http://0x7f.1:${target.port}/hooks`,
        `http://[::ffff:7f00:1]:${target.port}/hooks`,
        `http://localhost:${target.port}/hooks`,
        `https://localhost:${target.port}/hooks`,
        `http://0.0.0.0:${target.port}/hooks`,
      ];
      const db = t.parley.ctx.db;
      for (const [i, url] of urls.entries()) {
        // Past validation on purpose: the send-time guard must hold on its own.
        await db.write((trx) =>
          trx.updateTable("accounts").set({ webhook_url: url }).where("id", "=", accountId).execute(),
        );
        t.parley.ctx.caches.clear();
        const res = await t.inject({
          method: "POST",
          url: `/v1/send_custom_channel_message?apiKey=${apiKey}`,
          payload: { customData: { fromId: `ssrf-${i}`, customChannel: "test", body: "hi" } },
        });
        expect(res.statusCode, res.body).toBe(200);
        const { messageId } = json<{ messageId: string }>(res);
        await waitFor(
          async () =>
            (
              await db.kysely
                .selectFrom("delivery_attempts")
                .select("id")
                .where("message_id", "=", messageId)
                .execute()
            ).length > 0,
          20_000,
          `a delivery attempt to ${url}`,
        );
        const attempt = await db.kysely
          .selectFrom("delivery_attempts")
          .select(["error_class", "status_code"])
          .where("message_id", "=", messageId)
          .executeTakeFirstOrThrow();
        expect(attempt, url).toMatchObject({ error_class: "blocked_address", status_code: null });
      }
      expect(connections()).toBe(0);
    });

    it("a media URL at a private address is rejected by the media job, no connection", async () => {
      const urls = [
        `http://2130706433:${target.port}/a.png`,
        `http://0x7f000001:${target.port}/a.png`,
        `http://[::ffff:127.0.0.1]:${target.port}/a.png`,
        `http://localhost:${target.port}/a.png`,
        "http://169.254.169.254/latest/meta-data/",
        "http://100.64.0.1/a.png",
      ];
      const db = t.parley.ctx.db;
      for (const [i, mediaUrl] of urls.entries()) {
        const res = await t.inject({
          method: "POST",
          url: `/v1/incoming_custom_channel_message?apiKey=${apiKey}`,
          payload: {
            customData: {
              messageSid: `ssrf-media-${i}`,
              fromId: "m",
              toId: "biz",
              body: "pic",
              mediaUrl,
              mediaContentType: "image/png",
            },
          },
        });
        // Refused at once (a literal private address) or accepted and rejected by the media job.
        if (res.statusCode === 400) continue;
        expect(res.statusCode, res.body).toBe(200);
        const { messageId } = json<{ messageId: string }>(res);
        await waitFor(
          async () =>
            (
              await db.kysely
                .selectFrom("messages")
                .select("media_state")
                .where("id", "=", messageId)
                .executeTakeFirst()
            )?.media_state === "rejected",
          20_000,
          `the media of ${mediaUrl} to be rejected`,
        );
        const row = await db.kysely
          .selectFrom("messages")
          .select("media_reason")
          .where("id", "=", messageId)
          .executeTakeFirstOrThrow();
        expect(row.media_reason, mediaUrl).toMatch(/not allowed|blocked/i);
      }
      expect(connections()).toBe(0);
    });
  });

  describe("the CLI (account set --webhook-url)", () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await freshDatabase();
    });
    afterAll(async () => {
      await database.drop();
    });

    it("refuses private targets in several spellings", async () => {
      const env = envFor(database, { OUTBOUND_ALLOW_CIDRS: "" });
      await cli(["account", "create", "--email", "ssrf@example.com", "--password", "long password"], env);
      for (const url of [
        `http://0x7f.1:${target.port}/`,
        `https://[::ffff:7f00:1]:${target.port}/`,
        "https://0251.0376.0251.0376/",
      ]) {
        const res = await runCli(
          ["account", "set", "--email", "ssrf@example.com", "--webhook-url", url],
          env,
        );
        expect(res.code, url).not.toBe(0);
        expect(res.stderr).toMatch(/not allowed|https/);
        expect(res.stdout).toBe("");
      }
      expect(connections()).toBe(0);
    });
  });
});

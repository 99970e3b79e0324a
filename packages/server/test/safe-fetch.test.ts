// Tests for the outbound HTTP guard. All traffic goes to servers on 127.0.0.1 with ports
// chosen by the OS. Non-loopback addresses appear only where the guard must refuse them
// BEFORE any connection is attempted (literal IPs, or a fake resolver answer).
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import net from "node:net";
import type { TLSSocket } from "node:tls";
import selfsigned from "selfsigned";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  addressRange,
  checkUrlScheme,
  createSafeFetcher,
  isAddressAllowed,
  type LookupFunction,
  OutboundError,
  parseAllowCidrs,
  type SafeFetcher,
  type SafeFetchOptions,
} from "../src/platform/safe-fetch.ts";

const LOOPBACK = ["127.0.0.0/8", "::1/128"];

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

interface TestServer {
  port: number;
  origin: string;
  connections: () => number;
  close: () => Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

function track<T extends http.Server | net.Server>(server: T): Promise<TestServer> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const onSocket = (socket: net.Socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  };
  // For TLS servers count TCP connections, not only completed handshakes.
  server.on("connection", onSocket);
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      const protocol = server instanceof https.Server ? "https" : "http";
      const close = () =>
        new Promise<void>((done) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => done());
        });
      const result = {
        port,
        origin: `${protocol}://127.0.0.1:${port}`,
        connections: () => connections,
        close,
      };
      cleanups.push(close);
      resolve(result);
    });
  });
}

function httpServer(handler: http.RequestListener): Promise<TestServer> {
  return track(http.createServer(handler));
}

/** A TCP server that accepts connections and never says anything. */
function silentServer(): Promise<TestServer> {
  return track(net.createServer(() => {}));
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function fetcher(options: Partial<SafeFetchOptions> = {}): SafeFetcher {
  const f = createSafeFetcher({ allowCidrs: [], ...options });
  cleanups.push(() => f.close());
  return f;
}

async function outboundError(promise: Promise<unknown>): Promise<OutboundError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError);
    return err as OutboundError;
  }
  throw new Error("expected the request to fail");
}

/** Resolver double: answers from a table, counts calls. Never touches real DNS. */
function fakeLookup(table: Record<string, string[]>): LookupFunction & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
  };
  return Object.assign(fn, { calls });
}

const okHandler: http.RequestListener = (_req, res) => {
  res.end("ok");
};

// ---------------------------------------------------------------------------
// pure address policy
// ---------------------------------------------------------------------------

describe("isAddressAllowed", () => {
  const none = parseAllowCidrs([]);

  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["100.127.255.255", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["224.0.0.1", "multicast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.10", "reserved"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "linkLocal"],
    ["fe80::1%eth0", "linkLocal"],
    ["fc00::1", "uniqueLocal"],
    ["fd12:3456::1", "uniqueLocal"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "ipv4Mapped loopback"],
    ["::ffff:7f00:1", "ipv4Mapped loopback"],
    ["::ffff:10.0.0.1", "ipv4Mapped private"],
    ["::ffff:169.254.169.254", "ipv4Mapped linkLocal"],
    ["::127.0.0.1", "reserved"],
    ["64:ff9b::a00:1", "rfc6052"],
    ["2002:a00:1::1", "6to4"],
    ["2001::1", "teredo"],
    ["2001:db8::1", "reserved"],
    ["not-an-ip", "invalid"],
    ["", "invalid"],
  ])("refuses %s (%s)", (address, reason) => {
    expect(isAddressAllowed(address, none)).toBe(false);
    expect(addressRange(address)).toBe(reason);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "::ffff:93.184.216.34",
  ])("allows public %s", (address) => {
    expect(addressRange(address)).toBeNull();
    expect(isAddressAllowed(address, none)).toBe(true);
  });

  it("exempts addresses inside the allow list, and only those", () => {
    const allow = parseAllowCidrs(LOOPBACK);
    expect(isAddressAllowed("127.0.0.1", allow)).toBe(true);
    expect(isAddressAllowed("127.8.9.10", allow)).toBe(true);
    expect(isAddressAllowed("::1", allow)).toBe(true);
    expect(isAddressAllowed("::ffff:127.0.0.1", allow)).toBe(true); // mapped form of an allowed IPv4
    expect(isAddressAllowed("::127.0.0.1", allow)).toBe(false); // IPv4-compatible ::7f00:1 is not 127.0.0.1
    expect(isAddressAllowed("10.0.0.1", allow)).toBe(false);
    expect(isAddressAllowed("169.254.169.254", allow)).toBe(false);
    expect(isAddressAllowed("fe80::1", allow)).toBe(false);

    const lan = parseAllowCidrs(["10.1.0.0/16"]);
    expect(isAddressAllowed("10.1.2.3", lan)).toBe(true);
    expect(isAddressAllowed("10.2.0.1", lan)).toBe(false);
    expect(isAddressAllowed("127.0.0.1", lan)).toBe(false);
  });

  it("rejects invalid CIDRs at creation", () => {
    expect(() => parseAllowCidrs(["127.0.0.1"])).toThrow(/invalid CIDR/);
    expect(() => createSafeFetcher({ allowCidrs: ["10.0.0.0/33"] })).toThrow(/invalid CIDR/);
    expect(() => createSafeFetcher({ allowCidrs: ["nonsense"] })).toThrow(/invalid CIDR/);
  });
});

describe("checkUrlScheme", () => {
  const none = parseAllowCidrs([]);

  it("accepts http and https URLs with hostnames", () => {
    expect(checkUrlScheme("https://example.com/a?b=c", none).href).toBe("https://example.com/a?b=c");
    expect(checkUrlScheme("http://example.com:8080/", none).port).toBe("8080");
  });

  it.each([
    "ftp://example.com/file",
    "file:///etc/passwd",
    "gopher://example.com/",
    "javascript:alert(1)",
    "data:text/plain,hi",
    "not a url",
    "http://user:pass@example.com/",
    "http://user@example.com/",
  ])("rejects %s as invalid_url", (url) => {
    let error: unknown;
    try {
      checkUrlScheme(url, none);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(OutboundError);
    expect((error as OutboundError).errorClass).toBe("invalid_url");
  });

  it.each([
    ["http://10.0.0.1/", "10.0.0.1"],
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254"],
    ["http://100.64.0.1/", "100.64.0.1"],
    ["http://[::ffff:127.0.0.1]/", "::ffff:7f00:1"],
    ["http://[::1]:8080/", "::1"],
    ["http://0.0.0.0/", "0.0.0.0"],
    // Odd IPv4 spellings are normalised by the URL parser before the check.
    ["http://2130706433/", "127.0.0.1"],
    ["http://0x7f.1/", "127.0.0.1"],
    ["http://017700000001/", "127.0.0.1"],
  ])("refuses literal IP host %s", (url, address) => {
    let error: unknown;
    try {
      checkUrlScheme(url, none);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(OutboundError);
    expect((error as OutboundError).errorClass).toBe("blocked_address");
    expect((error as OutboundError).message).toContain(`address ${address} is not allowed`);
  });
});

// ---------------------------------------------------------------------------
// guarded requests against local servers
// ---------------------------------------------------------------------------

describe("createSafeFetcher: address guard", () => {
  it("refuses loopback without an allowance and never connects", async () => {
    const server = await httpServer(okHandler);
    const f = fetcher();
    const err = await outboundError(f.request({ url: `${server.origin}/`, maxBodyBytes: 1024 }));
    expect(err.errorClass).toBe("blocked_address");
    expect(err.message).toBe("address 127.0.0.1 is not allowed (loopback)");
    expect(server.connections()).toBe(0);
  });

  it("refuses a hostname that resolves to loopback (localhost) and never connects", async () => {
    const server = await httpServer(okHandler);
    const f = fetcher();
    const err = await outboundError(
      f.request({ url: `http://localhost:${server.port}/`, maxBodyBytes: 1024 }),
    );
    expect(err.errorClass).toBe("blocked_address");
    expect(err.message).toMatch(
      /^address (127\.0\.0\.1|::1) \(resolved from localhost\) is not allowed \(loopback\)$/,
    );
    expect(server.connections()).toBe(0);
  });

  it("allows loopback when 127.0.0.0/8 is in the allow list", async () => {
    const server = await httpServer(okHandler);
    const f = fetcher({ allowCidrs: ["127.0.0.0/8"] });
    const res = await f.request({ url: `${server.origin}/hello`, maxBodyBytes: 1024 });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe("ok");
    expect(res.truncated).toBe(false);
    expect(res.finalUrl).toBe(`${server.origin}/hello`);
    expect(res.durationMs).toBeGreaterThanOrEqual(0);
    expect(server.connections()).toBe(1);
  });

  it.each([
    "http://10.0.0.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::1]/",
    "http://0.0.0.0/",
    "https://192.168.1.1/",
    "http://[fd00::1]/",
  ])("fails fast with blocked_address for literal %s (no connection attempted)", async (url) => {
    let lookups = 0;
    const f = fetcher({
      lookup: async () => {
        lookups++;
        return [];
      },
    });
    const err = await outboundError(f.request({ url, maxBodyBytes: 1024 }));
    expect(err.errorClass).toBe("blocked_address");
    expect(err.message).toMatch(/^address \S+ is not allowed \(.+\)$/);
    expect(lookups).toBe(0);
  });

  it("refuses a hostname when ANY resolved address is forbidden", async () => {
    const server = await httpServer(okHandler);
    const lookup = fakeLookup({ "mixed.test": ["127.0.0.1", "10.0.0.7"] });
    const f = fetcher({ allowCidrs: ["127.0.0.0/8"], lookup });
    const err = await outboundError(
      f.request({ url: `http://mixed.test:${server.port}/`, maxBodyBytes: 1024 }),
    );
    expect(err.errorClass).toBe("blocked_address");
    expect(err.message).toBe("address 10.0.0.7 (resolved from mixed.test) is not allowed (private)");
    expect(server.connections()).toBe(0);
  });

  it("refuses a hostname resolving to a mapped/link-local address", async () => {
    const lookup = fakeLookup({ "meta.test": ["::ffff:169.254.169.254"] });
    const f = fetcher({ lookup });
    const err = await outboundError(f.request({ url: "http://meta.test/", maxBodyBytes: 1024 }));
    expect(err.errorClass).toBe("blocked_address");
    expect(err.message).toContain("(ipv4Mapped linkLocal)");
  });

  it("connects to the checked address, keeps the Host header, and resolves once per connection", async () => {
    const seen: Array<{ host: string | undefined; remote: string | undefined }> = [];
    const server = await httpServer((req, res) => {
      seen.push({ host: req.headers.host, remote: req.socket.remoteAddress });
      res.end("hi");
    });
    const lookup = fakeLookup({ "customer.test": ["127.0.0.1"] });
    const f = fetcher({ allowCidrs: ["127.0.0.0/8"], lookup });
    for (let i = 0; i < 3; i++) {
      const res = await f.request({ url: `http://customer.test:${server.port}/x`, maxBodyBytes: 1024 });
      expect(res.body.toString()).toBe("hi");
      expect(res.finalUrl).toBe(`http://customer.test:${server.port}/x`);
    }
    expect(seen).toHaveLength(3);
    expect(seen.every((s) => s.host === `customer.test:${server.port}`)).toBe(true);
    expect(lookup.calls).toEqual(["customer.test"]); // one lookup, one pooled connection
    expect(server.connections()).toBe(1);
  });

  it("falls back to the next checked address when the first refuses the connection", async () => {
    const server = await httpServer(okHandler);
    // 127.0.0.2 is loopback too, but nothing listens on it at this port.
    const lookup = fakeLookup({ "two.test": ["127.0.0.2", "127.0.0.1"] });
    const f = fetcher({ allowCidrs: ["127.0.0.0/8"], lookup });
    const res = await f.request({ url: `http://two.test:${server.port}/`, maxBodyBytes: 1024 });
    expect(res.status).toBe(200);
  });
});

describe("createSafeFetcher: error classes", () => {
  it("maps a name that does not exist to dns", async () => {
    const f = fetcher();
    const err = await outboundError(
      f.request({ url: "http://no-such-host.invalid/", maxBodyBytes: 1024, totalTimeoutMs: 10_000 }),
    );
    expect(err.errorClass).toBe("dns");
    expect(err.message).toMatch(
      /^DNS lookup failed for no-such-host\.invalid \((ENOTFOUND|EAI_AGAIN|EAI_FAIL)\)$/,
    );
  });

  it("maps a resolver that hangs to timeout (connect timeout bounds DNS)", async () => {
    const f = fetcher({ connectTimeoutMs: 200, lookup: () => new Promise(() => {}) });
    const err = await outboundError(f.request({ url: "http://slow-dns.test/", maxBodyBytes: 1024 }));
    expect(err.errorClass).toBe("timeout");
    expect(err.message).toContain("DNS lookup for slow-dns.test timed out after 200 ms");
  });

  it("maps a closed port to connection_refused", async () => {
    const port = await freePort();
    const f = fetcher({ allowCidrs: LOOPBACK });
    const err = await outboundError(f.request({ url: `http://127.0.0.1:${port}/`, maxBodyBytes: 1024 }));
    expect(err.errorClass).toBe("connection_refused");
    expect(err.message).toBe(`connection refused by 127.0.0.1:${port}`);
  });

  it("maps a server that never answers to timeout (total timeout)", async () => {
    const server = await silentServer();
    const f = fetcher({ allowCidrs: LOOPBACK });
    const started = Date.now();
    const err = await outboundError(
      f.request({ url: `${server.origin}/`, maxBodyBytes: 1024, totalTimeoutMs: 500 }),
    );
    expect(err.errorClass).toBe("timeout");
    expect(err.message).toBe(`request to 127.0.0.1:${server.port} timed out after 500 ms`);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(server.connections()).toBe(1);
  });

  it("maps a server that sends headers and then stalls to timeout", async () => {
    const server = await httpServer((_req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write("partial body");
      // ...and never finishes.
    });
    const f = fetcher({ allowCidrs: LOOPBACK });
    const started = Date.now();
    const err = await outboundError(
      f.request({ url: `${server.origin}/`, maxBodyBytes: 4096, totalTimeoutMs: 500 }),
    );
    expect(err.errorClass).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("uses the fetcher's default total timeout when the request has none", async () => {
    const server = await silentServer();
    const f = fetcher({ allowCidrs: LOOPBACK, totalTimeoutMs: 300 });
    const err = await outboundError(f.request({ url: `${server.origin}/`, maxBodyBytes: 1024 }));
    expect(err.errorClass).toBe("timeout");
    expect(err.message).toContain("timed out after 300 ms");
  });

  it("maps a connection dropped mid-response to connection_error", async () => {
    const server = await httpServer((req) => {
      req.socket.destroy();
    });
    const f = fetcher({ allowCidrs: LOOPBACK });
    const err = await outboundError(f.request({ url: `${server.origin}/`, maxBodyBytes: 1024 }));
    expect(err.errorClass).toBe("connection_error");
  });

  it("rejects unsupported schemes and credentials as invalid_url", async () => {
    const f = fetcher({ allowCidrs: LOOPBACK });
    expect((await outboundError(f.request({ url: "ftp://127.0.0.1/", maxBodyBytes: 1 }))).errorClass).toBe(
      "invalid_url",
    );
    expect(
      (await outboundError(f.request({ url: "http://a:b@127.0.0.1/", maxBodyBytes: 1 }))).errorClass,
    ).toBe("invalid_url");
  });
});

describe("createSafeFetcher: body cap", () => {
  const big = Buffer.alloc(10_000, "x");

  it("truncate mode returns the first maxBodyBytes bytes with truncated=true", async () => {
    const server = await httpServer((_req, res) => res.end(big));
    const f = fetcher({ allowCidrs: LOOPBACK });
    const res = await f.request({ url: `${server.origin}/`, maxBodyBytes: 4096, truncateBody: true });
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(4096);
    expect(res.truncated).toBe(true);
  });

  it("truncate mode: a body of exactly maxBodyBytes is not truncated", async () => {
    const server = await httpServer((_req, res) => res.end(Buffer.alloc(4096, "y")));
    const f = fetcher({ allowCidrs: LOOPBACK });
    const res = await f.request({ url: `${server.origin}/`, maxBodyBytes: 4096, truncateBody: true });
    expect(res.body.length).toBe(4096);
    expect(res.truncated).toBe(false);
  });

  it("strict mode throws too_large (declared content-length)", async () => {
    const server = await httpServer((_req, res) => res.end(big));
    const f = fetcher({ allowCidrs: LOOPBACK });
    const err = await outboundError(f.request({ url: `${server.origin}/`, maxBodyBytes: 4096 }));
    expect(err.errorClass).toBe("too_large");
    expect(err.message).toBe("response body exceeds 4096 bytes");
  });

  it("strict mode aborts an endless chunked body while streaming", async () => {
    let stopped = false;
    const server = await httpServer((_req, res) => {
      const chunk = Buffer.alloc(16 * 1024, "z");
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) {}
        if (!res.destroyed) res.once("drain", pump);
      };
      res.on("close", () => {
        stopped = true;
      });
      pump();
    });
    const f = fetcher({ allowCidrs: LOOPBACK });
    const err = await outboundError(f.request({ url: `${server.origin}/`, maxBodyBytes: 100_000 }));
    expect(err.errorClass).toBe("too_large");
    await expect.poll(() => stopped).toBe(true);
  });

  it("a small body in strict mode is returned whole", async () => {
    const server = await httpServer((_req, res) => res.end("small"));
    const f = fetcher({ allowCidrs: LOOPBACK });
    const res = await f.request({ url: `${server.origin}/`, maxBodyBytes: 4096 });
    expect(res.body.toString()).toBe("small");
    expect(res.truncated).toBe(false);
  });
});

describe("createSafeFetcher: redirects", () => {
  function redirectServer(routes: Record<string, [number, string]>): Promise<TestServer> {
    return httpServer((req, res) => {
      const route = routes[req.url ?? ""];
      if (route) {
        res.writeHead(route[0], { location: route[1] });
        res.end("moved");
        return;
      }
      res.end(`final ${req.method} ${req.url}`);
    });
  }

  it("returns a 3xx as-is when followRedirects is 0", async () => {
    const server = await redirectServer({ "/start": [302, "/final"] });
    const f = fetcher({ allowCidrs: LOOPBACK });
    const res = await f.request({ url: `${server.origin}/start`, maxBodyBytes: 4096, truncateBody: true });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("/final");
    expect(res.body.toString()).toBe("moved");
    expect(res.finalUrl).toBe(`${server.origin}/start`);
  });

  it("follows redirects to allowed URLs, re-checking each hop", async () => {
    const routes: Record<string, [number, string]> = { "/a": [301, "/b"] };
    const server = await redirectServer(routes);
    routes["/b"] = [307, `${server.origin}/c?q=1`];
    const f = fetcher({ allowCidrs: LOOPBACK });
    const res = await f.request({ url: `${server.origin}/a`, maxBodyBytes: 4096, followRedirects: 3 });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe("final GET /c?q=1");
    expect(res.finalUrl).toBe(`${server.origin}/c?q=1`);
  });

  it("fails with redirect when the chain is one hop longer than allowed", async () => {
    const server = await redirectServer({ "/a": [302, "/b"], "/b": [302, "/c"] });
    const f = fetcher({ allowCidrs: LOOPBACK });
    const err = await outboundError(
      f.request({ url: `${server.origin}/a`, maxBodyBytes: 4096, followRedirects: 1 }),
    );
    expect(err.errorClass).toBe("redirect");
    const ok = await f.request({ url: `${server.origin}/a`, maxBodyBytes: 4096, followRedirects: 2 });
    expect(ok.body.toString()).toBe("final GET /c");
  });

  it("follows an absolute cross-origin redirect to another allowed server", async () => {
    const target = await httpServer((req, res) => res.end(`target ${req.url}`));
    const origin = await redirectServer({ "/go": [302, `${target.origin}/landing?x=1`] });
    const f = fetcher({ allowCidrs: LOOPBACK });
    const res = await f.request({ url: `${origin.origin}/go`, maxBodyBytes: 4096, followRedirects: 2 });
    expect(res.body.toString()).toBe("target /landing?x=1");
    expect(res.finalUrl).toBe(`${target.origin}/landing?x=1`);
  });

  it.each(["http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[::1]/"])(
    "refuses a redirect to %s with blocked_address, without connecting",
    async (location) => {
      let lookups = 0;
      const server = await redirectServer({ "/start": [302, location] });
      const f = fetcher({
        allowCidrs: ["127.0.0.0/8"],
        lookup: async () => {
          lookups++;
          return [];
        },
      });
      const err = await outboundError(
        f.request({ url: `${server.origin}/start`, maxBodyBytes: 4096, followRedirects: 5 }),
      );
      expect(err.errorClass).toBe("blocked_address");
      expect(lookups).toBe(0);
    },
  );

  it("refuses a redirect to a hostname that resolves to a forbidden address", async () => {
    const lookup = fakeLookup({ "internal.test": ["10.1.2.3"] });
    const server = await redirectServer({ "/start": [302, "http://internal.test/admin"] });
    const f = fetcher({ allowCidrs: ["127.0.0.0/8"], lookup });
    const err = await outboundError(
      f.request({ url: `${server.origin}/start`, maxBodyBytes: 4096, followRedirects: 5 }),
    );
    expect(err.errorClass).toBe("blocked_address");
    expect(err.message).toBe("address 10.1.2.3 (resolved from internal.test) is not allowed (private)");
    expect(lookup.calls).toEqual(["internal.test"]);
  });

  it("fails with redirect when there are too many redirects", async () => {
    const server = await redirectServer({ "/loop": [302, "/loop"] });
    const f = fetcher({ allowCidrs: LOOPBACK });
    const err = await outboundError(
      f.request({ url: `${server.origin}/loop`, maxBodyBytes: 4096, followRedirects: 3 }),
    );
    expect(err.errorClass).toBe("redirect");
    expect(err.message).toBe("too many redirects (more than 3)");
    expect(err.statusCode).toBe(302);
    // Redirect bodies were drained, so every hop reused the same keep-alive connection.
    expect(server.connections()).toBe(1);
  });

  it("rejects a redirect to a non-http scheme as invalid_url", async () => {
    const server = await redirectServer({ "/start": [302, "file:///etc/passwd"] });
    const f = fetcher({ allowCidrs: LOOPBACK });
    const err = await outboundError(
      f.request({ url: `${server.origin}/start`, maxBodyBytes: 4096, followRedirects: 3 }),
    );
    expect(err.errorClass).toBe("invalid_url");
  });

  it("turns a POST into a GET without body on 303", async () => {
    const bodies: string[] = [];
    const server = await httpServer((req, res) => {
      let data = "";
      req.on("data", (c: Buffer) => {
        data += c.toString();
      });
      req.on("end", () => {
        bodies.push(`${req.method} ${req.url} ${data} ${req.headers["content-type"] ?? "-"}`);
        if (req.url === "/submit") {
          res.writeHead(303, { location: "/done" });
          res.end();
        } else {
          res.end("done");
        }
      });
    });
    const f = fetcher({ allowCidrs: LOOPBACK });
    const res = await f.request({
      url: `${server.origin}/submit`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
      maxBodyBytes: 4096,
      followRedirects: 1,
    });
    expect(res.body.toString()).toBe("done");
    expect(bodies).toEqual(['POST /submit {"a":1} application/json', "GET /done  -"]);
  });
});

describe("createSafeFetcher: keep-alive and POST", () => {
  it("reuses one connection for sequential requests", async () => {
    const server = await httpServer(okHandler);
    const f = fetcher({ allowCidrs: LOOPBACK });
    for (let i = 0; i < 5; i++) {
      const res = await f.request({ url: `${server.origin}/${i}`, maxBodyBytes: 1024 });
      expect(res.body.toString()).toBe("ok");
    }
    expect(server.connections()).toBe(1);
  });

  it("respects maxConnections for concurrent requests", async () => {
    const pending: http.ServerResponse[] = [];
    const server = await httpServer((_req, res) => {
      pending.push(res);
      if (pending.length === 2) for (const r of pending.splice(0)) r.end("ok");
    });
    const f = fetcher({ allowCidrs: LOOPBACK, maxConnections: 2 });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => f.request({ url: `${server.origin}/${i}`, maxBodyBytes: 1024 })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(server.connections()).toBe(2);
  });

  it("POSTs a webhook body and returns a non-2xx status with its (truncated) body", async () => {
    let received = "";
    let headers: http.IncomingHttpHeaders = {};
    const server = await httpServer((req, res) => {
      headers = req.headers;
      req.on("data", (c: Buffer) => {
        received += c.toString();
      });
      req.on("end", () => {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end("e".repeat(10_000));
      });
    });
    const f = fetcher({ allowCidrs: LOOPBACK });
    const res = await f.request({
      url: `${server.origin}/hook`,
      method: "POST",
      headers: { "content-type": "application/json", "webhook-signature": "v1,abc" },
      body: Buffer.from('{"event":"message.created"}'),
      maxBodyBytes: 4096,
      truncateBody: true,
    });
    expect(res.status).toBe(500);
    expect(res.body.length).toBe(4096);
    expect(res.truncated).toBe(true);
    expect(res.headers["content-type"]).toBe("text/plain");
    expect(received).toBe('{"event":"message.created"}');
    expect(headers["webhook-signature"]).toBe("v1,abc");
    expect(headers["content-length"]).toBe("27");
  });
});

describe("createSafeFetcher: TLS", () => {
  let pem: { cert: string; key: string };

  beforeAll(async () => {
    const generated = await selfsigned.generate([{ name: "commonName", value: "localhost" }], {
      keyType: "ec",
      curve: "P-256",
      extensions: [{ name: "subjectAltName", altNames: [{ type: 2, value: "localhost" }] }],
    });
    pem = { cert: generated.cert, key: generated.private };
  });

  function tlsServer(onRequest: http.RequestListener): Promise<TestServer> {
    return track(https.createServer({ cert: pem.cert, key: pem.key }, onRequest));
  }

  it("maps an untrusted certificate to tls", async () => {
    const server = await tlsServer(okHandler);
    const f = fetcher({ allowCidrs: LOOPBACK });
    const err = await outboundError(
      f.request({ url: `https://localhost:${server.port}/`, maxBodyBytes: 1024 }),
    );
    expect(err.errorClass).toBe("tls");
    expect(err.message).toContain("TLS error with 127.0.0.1:");
  });

  it("keeps SNI and Host as the original hostname while connecting to the checked IP", async () => {
    const seen: Array<{ servername: string | false | null | undefined; host: string | undefined }> = [];
    const server = await tlsServer((req, res) => {
      seen.push({
        servername: (req.socket as TLSSocket).servername,
        host: req.headers.host,
      });
      res.end("secure");
    });
    const lookup = fakeLookup({ localhost: ["127.0.0.1"] });
    const f = fetcher({ allowCidrs: LOOPBACK, ca: pem.cert, lookup });
    const res = await f.request({ url: `https://localhost:${server.port}/`, maxBodyBytes: 1024 });
    expect(res.body.toString()).toBe("secure");
    expect(seen).toEqual([{ servername: "localhost", host: `localhost:${server.port}` }]);
  });

  it("fails with tls when the certificate does not match the hostname", async () => {
    const server = await tlsServer(okHandler);
    const lookup = fakeLookup({ "other.test": ["127.0.0.1"] });
    const f = fetcher({ allowCidrs: LOOPBACK, ca: pem.cert, lookup });
    const err = await outboundError(
      f.request({ url: `https://other.test:${server.port}/`, maxBodyBytes: 1024 }),
    );
    expect(err.errorClass).toBe("tls");
  });

  it("maps plain HTTP spoken to a TLS client to tls", async () => {
    const server = await httpServer(okHandler);
    const f = fetcher({ allowCidrs: LOOPBACK });
    const err = await outboundError(
      f.request({ url: `https://127.0.0.1:${server.port}/`, maxBodyBytes: 1024 }),
    );
    expect(err.errorClass).toBe("tls");
  });
});

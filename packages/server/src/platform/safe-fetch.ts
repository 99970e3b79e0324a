/**
 * Outbound HTTP guard (SSRF guard) shared by everything that talks to URLs chosen by
 * customers: attachment downloads (GET, follows redirects, strict size cap) and signed
 * webhook deliveries (POST, no redirects, truncated response body).
 *
 * How the guard works:
 * - `request()` validates the URL (http/https only, no userinfo) and refuses literal IP
 *   hosts in forbidden ranges before anything is dispatched.
 * - Every fetcher owns ONE undici `Agent` (keep-alive pool, reused across requests) whose
 *   `connect` function resolves the hostname exactly once (`dns.lookup(host, {all: true})`),
 *   checks EVERY resolved address, and then opens the TCP/TLS socket to the checked IP
 *   itself. DNS rebinding cannot swap the address between check and connect because no
 *   second lookup happens. For https the SNI (servername) and the Host header stay the
 *   original hostname. Pooled keep-alive sockets were all checked when they were opened.
 * - Redirects are followed manually; every hop goes through the same checks.
 * - One abort signal enforces the total timeout over DNS, connect, headers and body.
 */
import dns from "node:dns";
import net from "node:net";
import { performance } from "node:perf_hooks";
import type { TLSSocket } from "node:tls";
import ipaddr from "ipaddr.js";
import { Agent, buildConnector, type Dispatcher } from "undici";

export type OutboundErrorClass =
  | "blocked_address"
  | "dns"
  | "timeout"
  | "connection_refused"
  | "connection_error"
  | "redirect"
  | "too_large"
  | "invalid_url"
  | "tls"
  | "http_error";

export interface OutboundErrorOptions {
  statusCode?: number;
  cause?: unknown;
}

export class OutboundError extends Error {
  readonly errorClass: OutboundErrorClass;
  readonly statusCode?: number;

  constructor(errorClass: OutboundErrorClass, message: string, options: OutboundErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "OutboundError";
    this.errorClass = errorClass;
    if (options.statusCode !== undefined) this.statusCode = options.statusCode;
  }
}

export type ParsedCidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

export interface LookupResult {
  address: string;
  family: number;
}

/** Resolves a hostname to all of its addresses (default: `dns.lookup(host, {all: true})`). */
export type LookupFunction = (hostname: string) => Promise<LookupResult[]>;

export interface SafeFetchOptions {
  /** CIDRs exempt from the guard, e.g. ["127.0.0.0/8", "::1/128"]. Invalid CIDR → throws. */
  allowCidrs: string[];
  /** Per-address connect timeout (TCP + TLS handshake); also bounds the DNS lookup. Default 5000. */
  connectTimeoutMs?: number;
  /** Default total timeout per request() call (all hops, headers and body). Default 30000. */
  totalTimeoutMs?: number;
  /** Keep-alive pool size per origin. Default 10. */
  maxConnections?: number;
  /** Extra trusted CA certificates (PEM) for https, e.g. a private PKI. Default: Node's bundle. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Replaces the DNS resolver (tests, custom resolvers). Its answer is checked like dns.lookup's. */
  lookup?: LookupFunction;
}

export interface SafeRequest {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Body cap in bytes. */
  maxBodyBytes: number;
  /** true: read at most maxBodyBytes and stop (truncated=true); false (default): throw too_large. */
  truncateBody?: boolean;
  /** 0 (default): a 3xx is returned as-is. N>0: follow up to N redirects, each hop re-checked. */
  followRedirects?: number;
  /** Overrides the fetcher's totalTimeoutMs for this call. */
  totalTimeoutMs?: number;
}

export interface SafeResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  truncated: boolean;
  durationMs: number;
  /** URL of the response actually returned (after redirects). */
  finalUrl: string;
}

export interface SafeFetcher {
  request(req: SafeRequest): Promise<SafeResponse>;
  /** Closes the keep-alive pool (waits for in-flight requests). */
  close(): Promise<void>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_TOTAL_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_CONNECTIONS = 10;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Bytes of a redirect response body we are willing to drain to keep the socket alive. */
const REDIRECT_DRAIN_LIMIT = 64 * 1024;

// ---------------------------------------------------------------------------
// Address policy (pure)
// ---------------------------------------------------------------------------

/** Parses allow-list CIDRs; throws (plain Error) on the first invalid one. */
export function parseAllowCidrs(cidrs: readonly string[]): ParsedCidr[] {
  return cidrs.map((cidr) => {
    try {
      return ipaddr.parseCIDR(cidr.trim());
    } catch {
      throw new Error(`invalid CIDR in outbound allow list: ${JSON.stringify(cidr)}`);
    }
  });
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = stripBrackets(address);
  // Zone ids ("fe80::1%eth0") are not accepted by ipaddr.js; the zone does not change the range.
  const withoutZone = bare.includes("%") ? bare.slice(0, bare.indexOf("%")) : bare;
  // Only real literals: ipaddr.parse would also accept forms like "0x7f.1" that net.connect
  // never sees (URLs are normalised by WHATWG URL, DNS answers are canonical).
  const family = net.isIP(withoutZone);
  if (family === 0) return null;
  try {
    if (family === 4) return ipaddr.parse(withoutZone);
    // ipaddr.js reads any dotted tail as IPv4-mapped ("::127.0.0.1" becomes ::ffff:7f00:1), which
    // is not the address the kernel would use (::7f00:1). Canonicalise with the WHATWG parser.
    return ipaddr.parse(stripBrackets(new URL(`http://[${withoutZone}]/`).hostname));
  } catch {
    return null;
  }
}

function inCidrs(addr: ipaddr.IPv4 | ipaddr.IPv6, cidrs: readonly ParsedCidr[]): boolean {
  for (const [range, bits] of cidrs) {
    if (addr.kind() !== range.kind()) continue;
    if (addr.kind() === "ipv4" && (addr as ipaddr.IPv4).match(range as ipaddr.IPv4, bits)) return true;
    if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).match(range as ipaddr.IPv6, bits)) return true;
  }
  return false;
}

/** ::/8 holds the unspecified, loopback and the deprecated IPv4-compatible (::a.b.c.d) addresses. */
const IPV6_RESERVED_ZERO_PREFIX = ipaddr.parseCIDR("::/8") as [ipaddr.IPv6, number];

/**
 * Why an address must be refused, ignoring the allow list: the ipaddr.js range name
 * ("loopback", "private", "linkLocal", "carrierGradeNat", "uniqueLocal", "6to4", ...), or
 * null for an ordinary public unicast address. IPv4-mapped IPv6 addresses are judged by
 * their embedded IPv4 address.
 */
export function addressRange(address: string): string | null {
  const addr = parseAddress(address);
  if (addr === null) return "invalid";
  if (addr.kind() === "ipv6") {
    const v6 = addr as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      const embedded = v6.toIPv4Address().range();
      return embedded === "unicast" ? null : `ipv4Mapped ${embedded}`;
    }
    const range = v6.range();
    if (range !== "unicast") return range;
    if (v6.match(IPV6_RESERVED_ZERO_PREFIX[0], IPV6_RESERVED_ZERO_PREFIX[1])) return "reserved";
    return null;
  }
  const range = (addr as ipaddr.IPv4).range();
  return range === "unicast" ? null : range;
}

/**
 * The reason an address is refused under this allow list, or null if it may be contacted.
 * An IPv4-mapped IPv6 address is also allowed when its embedded IPv4 is in the allow list.
 */
export function blockReason(address: string, allowCidrs: readonly ParsedCidr[]): string | null {
  const addr = parseAddress(address);
  if (addr === null) return "invalid";
  if (inCidrs(addr, allowCidrs)) return null;
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    if (inCidrs((addr as ipaddr.IPv6).toIPv4Address(), allowCidrs)) return null;
  }
  return addressRange(address);
}

/** Pure policy check: may a connection be made to this IP address? */
export function isAddressAllowed(address: string, allowCidrs: readonly ParsedCidr[]): boolean {
  return blockReason(address, allowCidrs) === null;
}

function blockedError(address: string, reason: string, hostname?: string): OutboundError {
  const from = hostname !== undefined && hostname !== address ? ` (resolved from ${hostname})` : "";
  return new OutboundError("blocked_address", `address ${address}${from} is not allowed (${reason})`);
}

/**
 * Validates a URL for outbound use: http: or https: only, no userinfo, and a literal IP
 * host must pass the address policy. Hostnames are checked later, at connect time.
 * Returns the parsed URL; throws OutboundError (invalid_url | blocked_address).
 */
export function checkUrlScheme(url: string | URL, allowCidrs: readonly ParsedCidr[]): URL {
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : new URL(url.href);
  } catch {
    throw new OutboundError("invalid_url", `invalid URL: ${JSON.stringify(String(url).slice(0, 200))}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new OutboundError(
      "invalid_url",
      `unsupported URL scheme "${parsed.protocol}" (only http and https)`,
    );
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new OutboundError("invalid_url", "URL must not contain credentials (user:password@)");
  }
  const host = stripBrackets(parsed.hostname);
  if (host === "") throw new OutboundError("invalid_url", "URL has no host");
  if (net.isIP(host) !== 0) {
    const reason = blockReason(host, allowCidrs);
    if (reason !== null) throw blockedError(host, reason);
  }
  return parsed;
}

// ---------------------------------------------------------------------------
// Error classification
// ---------------------------------------------------------------------------

function errCode(err: unknown): string {
  if (typeof err === "object" && err !== null && "code" in err && typeof err.code === "string") {
    return err.code;
  }
  return "";
}

function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "ENODATA", "ESERVFAIL"]);
const TIMEOUT_CODES = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);
/** Connect failures after which the next resolved address is tried. */
const RETRY_NEXT_ADDRESS = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function isTlsError(code: string, https: boolean): boolean {
  if (/^ERR_(TLS|SSL)_/.test(code)) return true;
  // OpenSSL certificate verification codes (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, ...).
  if (/CERT|SELF_SIGNED|UNABLE_TO_|HOSTNAME_MISMATCH/.test(code)) return true;
  return https && code === "EPROTO";
}

/** Wraps a socket-level connect error with the address it concerns. */
function connectError(err: unknown, target: string, https: boolean, connectTimeoutMs: number): OutboundError {
  if (err instanceof OutboundError) return err;
  const code = errCode(err);
  if (code === "ECONNREFUSED") {
    return new OutboundError("connection_refused", `connection refused by ${target}`, { cause: err });
  }
  if (TIMEOUT_CODES.has(code)) {
    return new OutboundError("timeout", `connect to ${target} timed out after ${connectTimeoutMs} ms`, {
      cause: err,
    });
  }
  if (isTlsError(code, https)) {
    return new OutboundError("tls", `TLS error with ${target}: ${errMessage(err)} (${code})`, { cause: err });
  }
  return new OutboundError(
    "connection_error",
    `connection to ${target} failed: ${errMessage(err)}${code ? ` (${code})` : ""}`,
    { cause: err },
  );
}

function findOutboundError(err: unknown): OutboundError | null {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof OutboundError) return current;
    current = current.cause;
  }
  return null;
}

function classify(err: unknown, url: URL): OutboundError {
  const wrapped = findOutboundError(err);
  if (wrapped) return wrapped;
  const code = errCode(err);
  const where = url.host;
  if (code === "ECONNREFUSED") {
    return new OutboundError("connection_refused", `connection refused by ${where}`, { cause: err });
  }
  if (TIMEOUT_CODES.has(code)) {
    return new OutboundError("timeout", `request to ${where} timed out (${code})`, { cause: err });
  }
  if (DNS_CODES.has(code)) {
    return new OutboundError("dns", `DNS lookup failed for ${url.hostname} (${code})`, { cause: err });
  }
  if (isTlsError(code, url.protocol === "https:")) {
    return new OutboundError("tls", `TLS error with ${where}: ${errMessage(err)} (${code})`, { cause: err });
  }
  return new OutboundError(
    "connection_error",
    `request to ${where} failed: ${errMessage(err)}${code ? ` (${code})` : ""}`,
    { cause: err },
  );
}

// ---------------------------------------------------------------------------
// Guarded connector
// ---------------------------------------------------------------------------

const defaultLookup: LookupFunction = async (hostname) =>
  dns.promises.lookup(hostname, { all: true, order: "ipv4first" });

function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

interface ConnectorConfig {
  allowCidrs: readonly ParsedCidr[];
  connectTimeoutMs: number;
  lookup: LookupFunction;
  ca: SafeFetchOptions["ca"];
}

/**
 * Resolves `hostname` once and returns the addresses to connect to, after checking every
 * one of them. A literal IP is checked as-is (no lookup).
 */
async function resolveChecked(hostname: string, config: ConnectorConfig): Promise<string[]> {
  if (net.isIP(hostname) !== 0) {
    const reason = blockReason(hostname, config.allowCidrs);
    if (reason !== null) throw blockedError(hostname, reason);
    return [hostname];
  }
  let results: LookupResult[];
  try {
    results = await withTimeout(
      config.lookup(hostname),
      config.connectTimeoutMs,
      () =>
        new OutboundError(
          "timeout",
          `DNS lookup for ${hostname} timed out after ${config.connectTimeoutMs} ms`,
        ),
    );
  } catch (err) {
    if (err instanceof OutboundError) throw err;
    const code = errCode(err) || "lookup error";
    throw new OutboundError("dns", `DNS lookup failed for ${hostname} (${code})`, { cause: err });
  }
  if (results.length === 0)
    throw new OutboundError("dns", `DNS lookup for ${hostname} returned no addresses`);
  for (const { address } of results) {
    const reason = blockReason(address, config.allowCidrs);
    if (reason !== null) throw blockedError(address, reason, hostname);
  }
  return [...new Set(results.map((r) => r.address))];
}

function createGuardedConnector(config: ConnectorConfig): buildConnector.connector {
  // undici's own connector does the socket work (TLS session cache, keep-alive, timeouts);
  // we only ever hand it a checked IP literal as `hostname`.
  const base = buildConnector({
    timeout: config.connectTimeoutMs,
    allowH2: false,
    keepAlive: true,
    ...(config.ca === undefined ? {} : { ca: config.ca }),
  });

  const connectTo = (options: buildConnector.Options, address: string, servername: string | undefined) =>
    new Promise<net.Socket | TLSSocket>((resolve, reject) => {
      base(
        {
          ...options,
          hostname: address,
          ...(servername === undefined ? {} : { servername }),
        },
        (err, socket) => (err ? reject(err) : resolve(socket as net.Socket | TLSSocket)),
      );
    });

  return (options, callback) => {
    const hostname = stripBrackets(options.hostname);
    const https = options.protocol === "https:";
    const port = options.port || (https ? "443" : "80");
    // SNI must name the host, never an IP literal.
    const servername = net.isIP(hostname) === 0 ? options.servername || hostname : undefined;

    const run = async (): Promise<net.Socket | TLSSocket> => {
      const addresses = await resolveChecked(hostname, config);
      let firstError: OutboundError | null = null;
      for (const address of addresses) {
        const target = `${net.isIPv6(address) ? `[${address}]` : address}:${port}`;
        try {
          const socket = await connectTo(options, address, servername);
          // Defence in depth: the peer we are actually connected to must pass the policy too.
          const remote = socket.remoteAddress;
          if (remote !== undefined) {
            const reason = blockReason(remote, config.allowCidrs);
            if (reason !== null) {
              socket.destroy();
              throw blockedError(remote, reason, hostname);
            }
          }
          return socket;
        } catch (err) {
          const wrapped = connectError(err, target, https, config.connectTimeoutMs);
          firstError ??= wrapped;
          if (!RETRY_NEXT_ADDRESS.has(errCode(err))) throw wrapped;
        }
      }
      throw firstError ?? new OutboundError("connection_error", `no address to connect to for ${hostname}`);
    };

    run().then(
      (socket) => callback(null, socket),
      (err: unknown) =>
        callback(err instanceof Error ? err : new OutboundError("connection_error", String(err)), null),
    );
  };
}

// ---------------------------------------------------------------------------
// Fetcher
// ---------------------------------------------------------------------------

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(
  body: Dispatcher.ResponseData["body"],
  maxBytes: number,
  truncate: boolean,
  headers: Record<string, string | string[] | undefined>,
): Promise<{ body: Buffer; truncated: boolean }> {
  const tooLarge = () => new OutboundError("too_large", `response body exceeds ${maxBytes} bytes`);
  const declared = Number(headerValue(headers["content-length"]));
  if (!truncate && Number.isFinite(declared) && declared > maxBytes) {
    body.on("error", () => {}); // destroying rejects the undici request internally; nobody else listens
    body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    if (size + buf.length > maxBytes) {
      // Leaving the loop destroys the stream (and the socket): nothing more is read.
      if (!truncate) throw tooLarge();
      chunks.push(buf.subarray(0, maxBytes - size));
      size = maxBytes;
      return { body: Buffer.concat(chunks, size), truncated: true };
    }
    chunks.push(buf);
    size += buf.length;
  }
  await socketReleased();
  return { body: Buffer.concat(chunks, size), truncated: false };
}

/**
 * With pipelining 1 undici hands a finished keep-alive socket back to its pool only after a
 * full event-loop turn (setImmediate in client-h1 onMessageComplete). Waiting for that turn
 * before returning means a caller's next request reuses the socket instead of opening another.
 */
function socketReleased(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const CROSS_ORIGIN_STRIP = ["authorization", "cookie", "proxy-authorization"];
const BODY_HEADERS = [
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location",
];

function omitHeaders(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (!names.includes(key.toLowerCase())) out[key] = value;
  }
  return out;
}

export function createSafeFetcher(options: SafeFetchOptions): SafeFetcher {
  const allowCidrs = parseAllowCidrs(options.allowCidrs);
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const defaultTotalTimeoutMs = options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS;
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!(connectTimeoutMs > 0) || !(defaultTotalTimeoutMs > 0)) throw new Error("timeouts must be positive");
  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new Error("maxConnections must be >= 1");

  const agent = new Agent({
    connect: createGuardedConnector({
      allowCidrs,
      connectTimeoutMs,
      lookup: options.lookup ?? defaultLookup,
      ca: options.ca,
    }),
    connections: maxConnections,
    pipelining: 1,
    allowH2: false,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 60_000,
  });

  async function request(req: SafeRequest): Promise<SafeResponse> {
    const started = performance.now();
    const totalTimeoutMs = req.totalTimeoutMs ?? defaultTotalTimeoutMs;
    const maxRedirects = req.followRedirects ?? 0;
    if (!Number.isInteger(req.maxBodyBytes) || req.maxBodyBytes < 0) {
      throw new Error("maxBodyBytes must be a non-negative integer");
    }

    let url = checkUrlScheme(req.url, allowCidrs);
    let method: "GET" | "POST" = req.method ?? "GET";
    let headers: Record<string, string> = { ...req.headers };
    let body: string | Buffer | undefined = req.body;

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new OutboundError("timeout", `request timed out after ${totalTimeoutMs} ms`));
    }, totalTimeoutMs);
    const timeoutError = (cause?: unknown) =>
      new OutboundError("timeout", `request to ${url.host} timed out after ${totalTimeoutMs} ms`, { cause });

    try {
      for (let hop = 0; ; hop++) {
        const res = await agent.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method,
          headers,
          body: body ?? null,
          signal: controller.signal,
          headersTimeout: totalTimeoutMs,
          bodyTimeout: totalTimeoutMs,
        });
        const location = headerValue(res.headers.location);
        if (maxRedirects > 0 && REDIRECT_STATUSES.has(res.statusCode) && location !== undefined) {
          // Drain a small body so the socket can go back to the pool; a big one closes it.
          await res.body.dump({ limit: REDIRECT_DRAIN_LIMIT }).catch(() => undefined);
          await socketReleased();
          if (hop >= maxRedirects) {
            throw new OutboundError("redirect", `too many redirects (more than ${maxRedirects})`, {
              statusCode: res.statusCode,
            });
          }
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            throw new OutboundError("invalid_url", `invalid redirect location: ${JSON.stringify(location)}`);
          }
          next = checkUrlScheme(next, allowCidrs);
          if (next.origin !== url.origin) headers = omitHeaders(headers, CROSS_ORIGIN_STRIP);
          if (
            res.statusCode === 303 ||
            ((res.statusCode === 301 || res.statusCode === 302) && method === "POST")
          ) {
            if (method !== "GET") headers = omitHeaders(headers, BODY_HEADERS);
            method = "GET";
            body = undefined;
          }
          url = next;
          continue;
        }
        const read = await readBody(res.body, req.maxBodyBytes, req.truncateBody ?? false, res.headers);
        return {
          status: res.statusCode,
          headers: res.headers,
          body: read.body,
          truncated: read.truncated,
          durationMs: performance.now() - started,
          finalUrl: url.href,
        };
      }
    } catch (err) {
      if (timedOut) throw timeoutError(err);
      throw classify(err, url);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    request,
    close: () => agent.close(),
  };
}

// The environment is read here, once, into a typed object. Nothing else reads process.env.
// Each variable read here has its default and meaning in config-docs.ts, which the docs' tables come from.
import { isIP } from "node:net";
import path from "node:path";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface Config {
  host: string;
  port: number;
  httpPort: number | null;
  dataDir: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  tlsCert: string | null;
  tlsKey: string | null;
  trustProxy: boolean;
  /**
   * PUBLIC_URL: the address people reach Parley at (an http(s) origin, no path), normalised without a
   * trailing slash. Every link Parley builds starts with it; null = only loopback or HOST is used.
   */
  publicUrl: string | null;
  rateLimitPerMinute: number;
  outboundAllowCidrs: string[];
  deliveryRetryScheduleSeconds: number[];
  /** Total timeout of one webhook delivery attempt (15 s; tests lower it). */
  deliveryTimeoutMs: number;
  /** How long a claimed job is a worker's before another worker may take it over (a dead worker's jobs). */
  jobLeaseMs: number;
  /** The highest rate (first messages per minute) an outgoing campaign may be given. */
  outgoingMaxPerMinute: number;
  /** A request (headers and body) must arrive within this, or its connection is closed (slow clients). */
  requestTimeoutMs: number;
  /** Invalid API keys one client address may send per minute before it is refused (429). */
  authFailuresPerMinute: number;
  /** The chat widget's public endpoints: requests per client address per minute (all widget calls). */
  widgetRequestsPerMinute: number;
  /** The chat widget: messages (and attachments) one visitor may send per minute. */
  widgetMessagesPerMinute: number;
  logLevel: LogLevel;
  llm: { baseUrl: string | null; apiKey: string | null; model: string | null };
  /** Credits (in whole credits) one bot reply costs, where metering applies. */
  botReplyCost: number;
  /**
   * Which accounts pay for bot replies: `subaccounts` (agencies resell credits to them; the default),
   * `all` accounts, or `off`.
   */
  botMetering: BotMetering;
  /**
   * The key that encrypts channel secrets at rest (PARLEY_SECRET_KEY: 32 bytes as base64 or 64 hex
   * characters); null: a key generated into DATA_DIR/secret.key on first start is used.
   */
  secretKey: Buffer | null;
  /**
   * The messaging providers' API base URLs (META_GRAPH_URL, TELEGRAM_API_URL, TWILIO_API_URL), without
   * a trailing slash: the providers' own by default; tests point them at local stand-ins.
   */
  providers: { metaGraphUrl: string; telegramApiUrl: string; twilioApiUrl: string };
  /** STORAGE_URL: an S3-compatible bucket for files; null keeps them under DATA_DIR. */
  storage: S3Location | null;
  /**
   * STORAGE_ORPHAN_GRACE_SECONDS (an hour): how old a file no row names must be before the orphan
   * sweep removes it; far longer than any write takes to commit the row that names its file.
   */
  storageOrphanGraceMs: number;
  /**
   * SMTP_URL (smtp:// or smtps://, user and password in the URL) and SMTP_FROM: where e-mails
   * (notifications, password resets, invitations) go out. Null: they are logged, not sent.
   */
  smtp: { url: string; from: string } | null;
  /** DELIVERY_HEALTH_CHECK_SECONDS (60): how often the "deliveries keep failing" check runs. */
  deliveryHealthCheckMs: number;
  /** NOTIFICATION_DIGEST_SECONDS (600): at most one notification e-mail per person and kind in this time. */
  notificationDigestMs: number;
  /**
   * NOTIFICATION_GATHER_SECONDS (60): a notification e-mail waits this long after the first thing it
   * tells, so a burst (a storm of alerts) goes out as one e-mail.
   */
  notificationGatherMs: number;
  /**
   * PRESENCE_VIEWING_SECONDS (30) and PRESENCE_TYPING_SECONDS (6): how long after a teammate's last
   * heartbeat the inbox still shows them viewing or typing in a conversation.
   */
  presence: { viewingMs: number; typingMs: number };
  /** ASSIST_SESSION_SECONDS (3600): how long an agency's assist in a client's account lasts. */
  assistTtlMs: number;
}

export type BotMetering = "subaccounts" | "all" | "off";
const BOT_METERINGS: readonly BotMetering[] = ["subaccounts", "all", "off"];

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** PARLEY_SECRET_KEY: exactly 32 bytes, written as 64 hex characters or as base64. */
function secretKey(env: Env, name: string): Buffer | null {
  const raw = str(env, name);
  if (raw === null) return null;
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, "hex");
  if (/^[A-Za-z0-9+/_-]{42,43}={0,2}$/.test(raw)) {
    const key = Buffer.from(raw.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (key.length === 32) return key;
  }
  throw new ConfigError(`${name} must be 32 bytes written as 64 hex characters or as base64`);
}

const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
export const DEFAULT_RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000];

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v.trim() === "" ? null : v.trim();
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name);
  if (raw === null) return fallback;
  const v = raw.toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function cidrs(env: Env, name: string): string[] {
  const raw = str(env, name);
  if (raw === null) return [];
  return raw.split(",").map((part) => {
    const cidr = part.trim();
    const [addr, bits, extra] = cidr.split("/");
    const family = addr ? isIP(addr) : 0;
    const maxBits = family === 6 ? 128 : 32;
    if (
      !family ||
      bits === undefined ||
      extra !== undefined ||
      !/^\d+$/.test(bits) ||
      Number(bits) > maxBits
    ) {
      throw new ConfigError(
        `${name} must be a comma-separated list of CIDRs like 127.0.0.0/8, got "${cidr}"`,
      );
    }
    return cidr;
  });
}

function schedule(env: Env, name: string): number[] {
  const raw = str(env, name);
  if (raw === null) return DEFAULT_RETRY_SCHEDULE_SECONDS;
  const parts = raw.split(",").map((p) => p.trim());
  const values = parts.map(Number);
  if (parts.some((p) => !/^\d+(\.\d+)?$/.test(p)) || values.some((v) => v <= 0 || v > 7 * 86400)) {
    throw new ConfigError(
      `${name} must be comma-separated positive seconds (at most 7 days each), got "${raw}"`,
    );
  }
  return values;
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = str(env, name);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
  }
  return raw;
}

/** An origin only: a base path would need the web app and the API moved under it too. */
function publicUrl(env: Env): string | null {
  const raw = str(env, "PUBLIC_URL");
  if (raw === null) return null;
  const refuse = () =>
    new ConfigError(
      `PUBLIC_URL must be the http(s) address people open Parley at, with no path, query or user ` +
        `(like https://parley.example.com), got "${raw}"`,
    );
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw refuse();
  }
  if (
    (parsed.protocol !== "https:" && parsed.protocol !== "http:") ||
    parsed.pathname !== "/" ||
    raw.includes("?") ||
    raw.includes("#") ||
    parsed.username !== "" ||
    parsed.password !== ""
  ) {
    throw refuse();
  }
  return parsed.origin;
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = (str(env, "LOG_LEVEL") ?? "info").toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);
  }
  const tlsCert = str(env, "TLS_CERT");
  const tlsKey = str(env, "TLS_KEY");
  if ((tlsCert === null) !== (tlsKey === null)) {
    throw new ConfigError("TLS_CERT and TLS_KEY must be set together (or neither, for a self-signed pair)");
  }
  const port = int(env, "PORT", 8443, 0, 65535);
  const httpPortRaw = str(env, "HTTP_PORT");
  const httpPort = httpPortRaw === null ? null : int(env, "HTTP_PORT", 0, 0, 65535);
  const botReplyCostRaw = str(env, "BOT_REPLY_COST") ?? "1";
  const botReplyCost = Number(botReplyCostRaw);
  if (
    !Number.isFinite(botReplyCost) ||
    botReplyCost < 0 ||
    Math.round(botReplyCost * 100) !== botReplyCost * 100
  ) {
    throw new ConfigError(
      `BOT_REPLY_COST must be a number >= 0 with at most two decimals, got "${botReplyCostRaw}"`,
    );
  }
  const botMetering = (str(env, "BOT_METERING") ?? "subaccounts").toLowerCase() as BotMetering;
  if (!BOT_METERINGS.includes(botMetering)) {
    throw new ConfigError(
      `BOT_METERING must be one of ${BOT_METERINGS.join(", ")}, got "${str(env, "BOT_METERING")}"`,
    );
  }
  return {
    host: str(env, "HOST") ?? "0.0.0.0",
    port,
    httpPort,
    dataDir: path.resolve(str(env, "DATA_DIR") ?? "./data"),
    databaseUrl: url(env, "DATABASE_URL", ["postgres:", "postgresql:"]),
    redisUrl: url(env, "REDIS_URL", ["redis:", "rediss:"]),
    tlsCert,
    tlsKey,
    trustProxy: bool(env, "TRUST_PROXY", false),
    publicUrl: publicUrl(env),
    rateLimitPerMinute: int(env, "RATE_LIMIT_PER_MINUTE", 600, 1, 10_000_000),
    outboundAllowCidrs: cidrs(env, "OUTBOUND_ALLOW_CIDRS"),
    deliveryRetryScheduleSeconds: schedule(env, "DELIVERY_RETRY_SCHEDULE"),
    deliveryTimeoutMs: int(env, "DELIVERY_TIMEOUT_MS", 15_000, 100, 15_000),
    // Longer than the slowest job (a delivery attempt: 15 s; an LLM reply with its retry).
    jobLeaseMs: int(env, "JOB_LEASE_SECONDS", 60, 1, 3600) * 1000,
    outgoingMaxPerMinute: int(env, "OUTGOING_MAX_PER_MINUTE", 6000, 1, 1_000_000),
    requestTimeoutMs: int(env, "REQUEST_TIMEOUT_SECONDS", 60, 1, 3600) * 1000,
    authFailuresPerMinute: int(env, "AUTH_FAILURES_PER_MINUTE", 30, 1, 10_000_000),
    widgetRequestsPerMinute: int(env, "WIDGET_REQUESTS_PER_MINUTE", 300, 1, 10_000_000),
    widgetMessagesPerMinute: int(env, "WIDGET_MESSAGES_PER_MINUTE", 20, 1, 10_000_000),
    logLevel,
    llm: {
      baseUrl: url(env, "LLM_BASE_URL", ["http:", "https:"]),
      apiKey: str(env, "LLM_API_KEY"),
      model: str(env, "LLM_MODEL"),
    },
    botReplyCost,
    botMetering,
    secretKey: secretKey(env, "PARLEY_SECRET_KEY"),
    storage: storageLocation(env),
    storageOrphanGraceMs: int(env, "STORAGE_ORPHAN_GRACE_SECONDS", 3600, 1, 30 * 86400) * 1000,
    smtp: smtp(env),
    notificationDigestMs: int(env, "NOTIFICATION_DIGEST_SECONDS", 600, 1, 86_400) * 1000,
    notificationGatherMs: int(env, "NOTIFICATION_GATHER_SECONDS", 60, 0, 3_600) * 1000,
    deliveryHealthCheckMs: int(env, "DELIVERY_HEALTH_CHECK_SECONDS", 60, 1, 86_400) * 1000,
    presence: {
      viewingMs: int(env, "PRESENCE_VIEWING_SECONDS", 30, 1, 600) * 1000,
      typingMs: int(env, "PRESENCE_TYPING_SECONDS", 6, 1, 60) * 1000,
    },
    assistTtlMs: int(env, "ASSIST_SESSION_SECONDS", 3600, 1, 86_400) * 1000,
    providers: {
      metaGraphUrl: baseUrl(env, "META_GRAPH_URL", "https://graph.facebook.com"),
      telegramApiUrl: baseUrl(env, "TELEGRAM_API_URL", "https://api.telegram.org"),
      twilioApiUrl: baseUrl(env, "TWILIO_API_URL", "https://api.twilio.com"),
    },
  };
}

function smtp(env: Env): Config["smtp"] {
  const raw = str(env, "SMTP_URL");
  const from = str(env, "SMTP_FROM") ?? "Parley <parley@localhost>";
  if (raw === null) return null;
  // The URL carries the SMTP password: no error message repeats it.
  let parsed: URL | null = null;
  try {
    parsed = new URL(raw);
  } catch {}
  if (!parsed || (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") || !parsed.hostname) {
    throw new ConfigError("SMTP_URL must be smtp://[user:password@]host[:port] or smtps://…");
  }
  // "Name <address>" or a bare address: nodemailer accepts both; anything else would be refused per message.
  if (!/^[^<>@\s]+@[^<>@\s]+$|^[^<>]*<[^<>@\s]+@[^<>@\s]+>$/.test(from)) {
    throw new ConfigError(
      `SMTP_FROM must be an address like parley@example.com or "Parley <parley@example.com>", got "${from}"`,
    );
  }
  return { url: raw, from };
}

function storageLocation(env: Env): S3Location | null {
  try {
    return parseStorageUrl(str(env, "STORAGE_URL"));
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/** A provider's API base URL (http or https), without a trailing slash. */
function baseUrl(env: Env, name: string, fallback: string): string {
  return (url(env, name, ["http:", "https:"]) ?? fallback).replace(/\/+$/, "");
}

export interface S3Location {
  bucket: string;
  region: string;
  endpoint: string | null;
  forcePathStyle: boolean;
}

/** STORAGE_URL, parsed; null means the local DATA_DIR. Throws a plain Error naming what is wrong. */
export function parseStorageUrl(raw: string | null): S3Location | null {
  if (raw === null || raw.trim() === "") return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`STORAGE_URL must look like s3://BUCKET?region=REGION, got "${raw}"`);
  }
  if (url.protocol !== "s3:" || !url.hostname || (url.pathname !== "" && url.pathname !== "/")) {
    throw new Error(`STORAGE_URL must look like s3://BUCKET?region=REGION, got "${raw}"`);
  }
  const region = url.searchParams.get("region");
  if (!region) throw new Error("STORAGE_URL needs ?region=… (e.g. s3://parley-files?region=eu-west-1)");
  const endpoint = url.searchParams.get("endpoint");
  if (endpoint !== null) {
    let e: URL;
    try {
      e = new URL(endpoint);
    } catch {
      throw new Error(`STORAGE_URL's endpoint must be an http(s) URL, got "${endpoint}"`);
    }
    if (e.protocol !== "http:" && e.protocol !== "https:") {
      throw new Error(`STORAGE_URL's endpoint must be an http(s) URL, got "${endpoint}"`);
    }
  }
  const forcePathStyle = url.searchParams.get("forcePathStyle");
  if (forcePathStyle !== null && forcePathStyle !== "true" && forcePathStyle !== "false") {
    throw new Error("STORAGE_URL's forcePathStyle must be true or false");
  }
  return { bucket: url.hostname, region, endpoint, forcePathStyle: forcePathStyle === "true" };
}

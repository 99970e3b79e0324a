// Every environment variable config.ts reads, with its default and what it does: the one source of the
// configuration tables in README.md (summary) and docs/operations.md (details). `npm run docs:config`
// rewrites both; test/config-docs.test.ts fails when a table or config.ts drifts from this list.

export interface EnvDoc {
  /** The variable, or variables set together and documented as one row (TLS_CERT / TLS_KEY). */
  names: string[];
  /** The default as the tables show it: a value (shown as code), or the words "unset" / "empty". */
  default: string;
  /** The README's short meaning (Markdown). */
  summary: string;
  /** docs/operations.md's full meaning: ranges, formats, what an unset value does (Markdown). */
  details: string;
}

export const ENV_DOCS: EnvDoc[] = [
  {
    names: ["HOST"],
    default: "0.0.0.0",
    summary: "address to listen on",
    details: "address to listen on",
  },
  {
    names: ["PORT"],
    default: "8443",
    summary: "HTTPS port",
    details: "HTTPS port",
  },
  {
    names: ["HTTP_PORT"],
    default: "unset",
    summary: "optional plain-HTTP port that answers every request `403 HTTPS_REQUIRED`",
    details: "optional plain-HTTP port that answers every request `403 HTTPS_REQUIRED` and processes nothing",
  },
  {
    names: ["DATA_DIR"],
    default: "./data",
    summary:
      "SQLite database, self-signed certificate, stored attachments and imports (unless `STORAGE_URL`)",
    details:
      "SQLite database (`parley.sqlite`), self-signed certificate (`tls/`), generated `secret.key`, and, unless `STORAGE_URL` is set, stored attachments (`media/`) and uploaded imports (`imports/`)",
  },
  {
    names: ["DATABASE_URL"],
    default: "unset",
    summary: "`postgres://…`: use PostgreSQL instead of SQLite",
    details: "`postgres://…` or `postgresql://…`: use PostgreSQL instead of SQLite",
  },
  {
    names: ["REDIS_URL"],
    default: "unset",
    summary: "`redis://…`: rate-limit counters in Redis, shared by every API node",
    details: "`redis://…` or `rediss://…`: keep rate-limit counters in Redis, shared by every API node",
  },
  {
    names: ["STORAGE_URL"],
    default: "unset",
    summary:
      "`s3://BUCKET?region=…[&endpoint=…][&forcePathStyle=true]`: attachments and imports in an S3-compatible bucket, so nodes share no volume ([docs/operations.md](docs/operations.md#files-without-a-shared-volume))",
    details:
      "`s3://BUCKET?region=REGION[&endpoint=URL][&forcePathStyle=true]`: keep attachments and uploaded imports in an S3-compatible bucket instead of `DATA_DIR`, so API and worker nodes share no volume (credentials from the AWS SDK's usual sources: `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE`, an instance or task role); see [Files without a shared volume](#files-without-a-shared-volume)",
  },
  {
    names: ["STORAGE_ORPHAN_GRACE_SECONDS"],
    default: "3600",
    summary: "how old a file no row names must be before the hourly sweep deletes it",
    details:
      "how old a file no row names must be before the hourly orphan sweep deletes it (1–2,592,000); far longer than a request takes, and than the clock difference between the workers and the bucket",
  },
  {
    names: ["TLS_CERT", "TLS_KEY"],
    default: "unset",
    summary: "PEM files; both or neither (neither: self-signed, in `DATA_DIR/tls`)",
    details: "PEM files; both or neither (neither: a self-signed pair in `DATA_DIR/tls`)",
  },
  {
    names: ["TRUST_PROXY"],
    default: "false",
    summary: "behind a TLS-terminating proxy: trust `X-Forwarded-*`, refuse non-HTTPS requests",
    details:
      "behind a TLS-terminating proxy: trust `X-Forwarded-*`, and refuse (403 `HTTPS_REQUIRED`) requests whose `X-Forwarded-Proto` is not `https`",
  },
  {
    names: ["PUBLIC_URL"],
    default: "unset",
    summary:
      "the address people open Parley at (`https://parley.example.com`, no path): invite links and `setupUrl` are built from it; unset, only loopback or `HOST` (never another `Host` header)",
    details:
      "the address people open Parley at, an `https://` or `http://` origin with no path, query or user (`https://parley.example.com`; a trailing `/` is dropped). Every link Parley builds starts with it: invite links, a sub-account owner's link, `setupUrl`. Unset: a request's `Host` is used only when it is a loopback name (`localhost`, `127.x`, `[::1]`) or `HOST`; any other (`Host: evil.example`) is ignored and the link points at `https://<HOST or localhost>:<port>`. Set it whenever people reach Parley by a name or through a proxy",
  },
  {
    names: ["RATE_LIMIT_PER_MINUTE"],
    default: "600",
    summary:
      "requests per minute per API key (`/v1`), per signed-in user (`/app/api`), per address without either; the web app's files are not limited",
    details:
      "requests per minute per API key (`/v1`), per signed-in user (`/app/api`), per address without either; the web app's files are not limited",
  },
  {
    names: ["AUTH_FAILURES_PER_MINUTE"],
    default: "30",
    summary: "invalid API keys one client address may send per minute (then 429)",
    details: "invalid API keys one client address may send per minute before it is refused (429)",
  },
  {
    names: ["WIDGET_REQUESTS_PER_MINUTE"],
    default: "300",
    summary: "chat widget requests one client address may send per minute (new visitors: a tenth; then 429)",
    details:
      "chat widget (`/widget/v1/…`) requests one client address may send per minute, per API node (new visitors: a tenth of it); then 429",
  },
  {
    names: ["WIDGET_MESSAGES_PER_MINUTE"],
    default: "20",
    summary: "chat widget messages one visitor may send per minute (then 429)",
    details: "chat widget messages and attachments one visitor may send per minute, per API node; then 429",
  },
  {
    names: ["REQUEST_TIMEOUT_SECONDS"],
    default: "60",
    summary: "a request must arrive whole within this, or its connection is closed",
    details: "a request (headers and body) must arrive within this, or its connection is closed (1–3600)",
  },
  {
    names: ["OUTBOUND_ALLOW_CIDRS"],
    default: "empty",
    summary: "comma-separated CIDRs exempt from the outbound address guard (`127.0.0.0/8`)",
    details:
      "comma-separated CIDRs exempt from the outbound address guard (e.g. `127.0.0.0/8` for a local receiver)",
  },
  {
    names: ["DELIVERY_RETRY_SCHEDULE"],
    default: "5,300,1800,7200,18000,36000,36000",
    summary: "seconds between webhook retries (±20 % jitter)",
    details: "seconds between webhook delivery retries (±20 % jitter; each at most 7 days)",
  },
  {
    names: ["DELIVERY_TIMEOUT_MS"],
    default: "15000",
    summary: "time allowed for one webhook delivery attempt (100–15000)",
    details:
      "total time allowed for one webhook delivery attempt (100–15000; can only shorten the 15 s rule)",
  },
  {
    names: ["JOB_LEASE_SECONDS"],
    default: "60",
    summary: "how long a claimed job is a worker's before another may take it over",
    details: "how long a claimed job is a worker's before another worker may take it over (1–3600)",
  },
  {
    names: ["OUTGOING_MAX_PER_MINUTE"],
    default: "6000",
    summary: "the highest `ratePerMinute` an outgoing campaign may be given (above it: 400)",
    details:
      "the highest `ratePerMinute` an outgoing campaign may be given (1–1,000,000; above it the API answers 400 naming the ceiling)",
  },
  {
    names: ["PARLEY_SECRET_KEY"],
    default: "unset",
    summary:
      "key that encrypts channel secrets at rest (64 hex characters or base64); unset, one is generated into `DATA_DIR/secret.key`; set it on every node sharing a database",
    details:
      "the key that encrypts channel secrets at rest (AES-256-GCM): 32 bytes as 64 hex characters or base64 (`openssl rand -hex 32`). Unset: a key is generated into `DATA_DIR/secret.key` (mode 0600) on first start. Set it on every node when several API nodes or workers share a database",
  },
  {
    names: ["LOG_LEVEL"],
    default: "info",
    summary: "`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`",
    details:
      "`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. Secrets never reach the log at any level: API keys (header, query, key-shaped values), the session cookie, the `x-csrf-token` header, invite tokens in `/invite/<token>` and `/app/api/invites/<token>` and `?setupToken=` are written as `[REDACTED]`",
  },
  {
    names: ["LLM_BASE_URL"],
    default: "unset",
    summary: "OpenAI-compatible endpoint for the bot (`https://api.openai.com/v1`, Ollama, vLLM…)",
    details:
      "OpenAI-compatible endpoint for the bot (`http://` or `https://`, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`)",
  },
  {
    names: ["LLM_API_KEY"],
    default: "unset",
    summary: "key for `LLM_BASE_URL`",
    details: "key for `LLM_BASE_URL`",
  },
  {
    names: ["LLM_MODEL"],
    default: "unset",
    summary: "model name for `LLM_BASE_URL`",
    details: "model name for `LLM_BASE_URL`",
  },
  {
    names: ["BOT_METERING"],
    default: "subaccounts",
    summary: "who pays for bot replies: `subaccounts` (agency sub-accounts only), `all`, or `off`",
    details:
      "which accounts pay for bot replies: `subaccounts` (only agency sub-accounts), `all` (every account) or `off` (nobody); see [agencies.md](agencies.md#metering)",
  },
  {
    names: ["BOT_REPLY_COST"],
    default: "1",
    summary: "credits one metered bot reply costs (none when the account brings its own LLM key)",
    details:
      "credits one metered bot reply costs (≥ 0, at most two decimals; none when the account brings its own LLM key)",
  },
  {
    names: ["SMTP_URL"],
    default: "unset",
    summary:
      "`smtp://user:password@host:587` or `smtps://…:465`: where notification, password-reset and invitation e-mails go; unset, they are only logged ([docs/automation.md](docs/automation.md#notifications))",
    details:
      "the SMTP server e-mails go through (notifications, password resets, invitations): `smtp://[user:password@]host[:port]` (STARTTLS when the server offers it) or `smtps://…` (TLS from the start, usually port 465). Sent by the worker with `nodemailer`, retried on the job schedule when the server fails (a 5xx refusal is final). Unset: each e-mail is logged (recipient and subject only) and dropped. The password never appears in a log or an error",
  },
  {
    names: ["SMTP_FROM"],
    default: "Parley <parley@localhost>",
    summary: "the sender of those e-mails",
    details: "the sender: `parley@example.com` or `Parley <parley@example.com>`",
  },
  {
    names: ["NOTIFICATION_DIGEST_SECONDS"],
    default: "600",
    summary:
      "at most one notification e-mail per person and kind in this time; what happens meanwhile goes in one digest",
    details:
      "at most one notification e-mail per person and kind in this time (1–86,400); the notifications in between go out together in one digest",
  },
  {
    names: ["NOTIFICATION_GATHER_SECONDS"],
    default: "60",
    summary:
      "a notification e-mail waits this long after the first thing it tells, so a burst is one e-mail (0–3,600)",
    details:
      "a notification e-mail waits this long after the first thing it tells, so a burst (a storm of alerts) goes out as one e-mail (0–3,600)",
  },
  {
    names: ["PRESENCE_VIEWING_SECONDS"],
    default: "30",
    summary: "how long a teammate still shows as viewing a conversation after their last heartbeat",
    details:
      'how long after a teammate\'s last heartbeat the inbox still shows "Sam is viewing" in a conversation (1–600); the web app sends one every 10 seconds while the conversation is open',
  },
  {
    names: ["PRESENCE_TYPING_SECONDS"],
    default: "6",
    summary: "how long a teammate still shows as typing a reply after their last keystroke's heartbeat",
    details:
      'how long after a teammate\'s last typing heartbeat the inbox still shows "Sam is typing…" (1–60); the web app sends one at most every 2 seconds while a reply is being typed',
  },
  {
    names: ["ASSIST_SESSION_SECONDS"],
    default: "3600",
    summary: "how long an agency's assist session in a client's account lasts",
    details:
      "how long an agency owner's or admin's assist session in one client's account lasts (1–86400); after it the browser is back in the agency",
  },
  {
    names: ["DELIVERY_HEALTH_CHECK_SECONDS"],
    default: "60",
    summary: 'how often the "deliveries keep failing" check runs',
    details:
      "how often the worker checks for webhook or channel URLs whose every delivery attempt of the last 10 minutes failed (at least 5), to tell the owners and admins (1–86,400)",
  },
];

/** Read by config.ts but left out of the tables: test hooks, not settings for an operator. */
export const ENV_NOT_DOCUMENTED: Record<string, string> = {
  META_GRAPH_URL: "the Meta Graph API's base URL; tests point it at a local stand-in",
  TELEGRAM_API_URL: "the Telegram Bot API's base URL; tests point it at a local stand-in",
  TWILIO_API_URL: "Twilio's API base URL; tests point it at a local stand-in",
};

export const CONFIG_TABLE_START = "<!-- config-table:start -->";
export const CONFIG_TABLE_END = "<!-- config-table:end -->";

/** One configuration table: the README's (`summary`) or docs/operations.md's (`details`). */
export function renderConfigTable(form: "summary" | "details"): string {
  const rows = ENV_DOCS.map((doc) => {
    const names = doc.names.map((name) => `\`${name}\``).join(" / ");
    const fallback = doc.default === "unset" || doc.default === "empty" ? doc.default : `\`${doc.default}\``;
    return `| ${names} | ${fallback} | ${doc[form]} |`;
  });
  return ["| variable | default | meaning |", "|---|---|---|", ...rows].join("\n");
}

/** The Markdown with the text between the config-table markers replaced by `table`. */
export function replaceConfigTable(markdown: string, table: string): string {
  const start = markdown.indexOf(CONFIG_TABLE_START);
  const end = markdown.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) throw new Error(`no ${CONFIG_TABLE_START} … ${CONFIG_TABLE_END} markers`);
  return `${markdown.slice(0, start + CONFIG_TABLE_START.length)}\n${table}\n${markdown.slice(end)}`;
}

/** The table between the markers, as written. */
export function readConfigTable(markdown: string): string {
  const start = markdown.indexOf(CONFIG_TABLE_START);
  const end = markdown.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) throw new Error(`no ${CONFIG_TABLE_START} … ${CONFIG_TABLE_END} markers`);
  return markdown.slice(start + CONFIG_TABLE_START.length, end).trim();
}

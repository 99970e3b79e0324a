// pino logger with secrets redacted from URLs and headers: API keys, session cookies, CSRF tokens,
// invite and password-reset tokens (in the link's path) and the setup token. A secret must never reach a log line.
import type { DestinationStream, Logger } from "pino";
import pino from "pino";
import type { LogLevel } from "../config.ts";

/** Parameter names that carry a secret, compared after percent-decoding and lower-casing. */
const KEY_PARAM = /^(?:api[_-]?key|x-api-key|key|token|secret|setup[_-]?token|csrf[_-]?token)$/;
/**
 * Paths whose next segment is a secret (an invite or password-reset token), as segments after
 * percent-decoding: /invite/<token> and /reset-password/<token> (the web app's pages),
 * /app/api/invites/<token>[/accept] and /app/api/password-resets/<token>.
 */
const SECRET_AFTER: string[][] = [
  ["invite"],
  ["app", "api", "invites"],
  ["reset-password"],
  ["app", "api", "password-resets"],
];
/** Values shaped like a secret whatever their name: API keys, webhook signing secrets, session tokens. */
const SECRET_VALUE = /(?:pk_live_|whsec_|sess_)[A-Za-z0-9+/=_-]{8,}/;

function decode(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, " "));
  } catch {
    return part;
  }
}

/**
 * The URL as it may be logged: a key-carrying query parameter (whatever its percent-encoding, such as
 * `?%61piKey=`) and any key-shaped value in the query or the path become [REDACTED].
 */
export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const segments = path.split("/");
  // The router ignores neither case nor empty segments, but a look-alike path is redacted anyway.
  const named = segments.map((s, i) => ({ i, name: decode(s).trim().toLowerCase() })).filter((s) => s.name);
  const secretAt = new Set<number>();
  for (const prefix of SECRET_AFTER) {
    const next = named[prefix.length];
    if (next && prefix.every((p, j) => named[j]?.name === p)) secretAt.add(next.i);
  }
  const safePath = segments
    .map((segment, i) => (secretAt.has(i) || SECRET_VALUE.test(decode(segment)) ? "[REDACTED]" : segment))
    .join("/");
  if (q < 0) return safePath;
  const query = url
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = eq < 0 ? pair : pair.slice(0, eq);
      const value = eq < 0 ? "" : pair.slice(eq + 1);
      if (KEY_PARAM.test(decode(name).trim().toLowerCase()) || SECRET_VALUE.test(decode(value))) {
        return `${name}=[REDACTED]`;
      }
      return SECRET_VALUE.test(decode(name)) ? "[REDACTED]" : pair;
    })
    .join("&");
  return `${safePath}?${query}`;
}

export function createLogger(level: LogLevel, stream?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'req.headers["x-csrf-token"]',
          "req.headers.authorization",
          "req.headers.cookie",
          'res.headers["set-cookie"]',
        ],
        censor: "[REDACTED]",
      },
      serializers: {
        req(req: {
          id?: string;
          method?: string;
          url?: string;
          headers?: Record<string, unknown>;
          ip?: string;
        }) {
          return {
            id: req.id,
            method: req.method,
            url: req.url ? redactUrl(req.url) : req.url,
            headers: req.headers,
            remoteAddress: req.ip,
          };
        },
      },
    },
    stream,
  );
}

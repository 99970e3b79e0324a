// pino logger with API keys redacted from URLs and headers. A key must never reach a log line.
import type { DestinationStream, Logger } from "pino";
import pino from "pino";
import type { LogLevel } from "../config.ts";

const KEY_IN_QUERY = /([?&](?:api[_-]?key)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(KEY_IN_QUERY, "$1[REDACTED]");
}

export function createLogger(level: LogLevel, stream?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers["x-api-key"]',
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

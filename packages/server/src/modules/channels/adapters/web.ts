// The `web` channel: Parley's own chat widget. Its config is what the widget shows and where it may be
// embedded; it has no secrets. Sending is Parley's own business: the visitor reads its conversation
// through the widget endpoints, so a reply is "sent" once committed, and the live notification reaches
// the visitor's stream when it commits (the widget engineer's publish on the visitor channel).
import { configObject, flag, invalid, oneOf, text } from "./fields.ts";
import type { ChannelAdapter } from "./types.ts";

/** Parley's own colour: an agency's brand colour replaces it (a colour the business chose stays). */
export const DEFAULT_WIDGET_COLOR = "#2563eb";

const KEYS = [
  "allowedOrigins",
  "title",
  "greeting",
  "color",
  "position",
  "collectEmail",
  "showAgentName",
] as const;
export const MAX_ALLOWED_ORIGINS = 20;

export interface WebConfig {
  allowedOrigins: string[];
  title: string;
  greeting: string;
  color: string;
  position: "right" | "left";
  collectEmail: boolean;
  showAgentName: boolean;
}

/** An origin as a browser sends it: scheme, host and port, no path, query, fragment or credentials. */
export function parseOrigin(value: unknown, where: string): string {
  if (typeof value !== "string" || value.length > 300) throw invalid(`${where} must be an origin string`);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw invalid(`${where} is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw invalid(`${where} must start with https:// (or http://)`);
  }
  // ("?" and "#" alone leave search and hash empty, hence the look at the text itself.)
  if (url.username || url.password || url.pathname !== "/" || /[?#]/.test(value)) {
    throw invalid(`${where} must be scheme://host[:port] only, like https://shop.example`);
  }
  return url.origin;
}

export function parseWebConfig(input: unknown, previous?: Record<string, unknown>): WebConfig {
  const given = configObject(input, KEYS);
  // An update names only what changes; the rest stays as it was.
  const obj = previous ? { ...previous, ...given } : given;
  const origins = obj.allowedOrigins;
  if (!Array.isArray(origins) || origins.length === 0) {
    throw invalid("config.allowedOrigins is required: a non-empty list of origins like https://shop.example");
  }
  if (origins.length > MAX_ALLOWED_ORIGINS) {
    throw invalid(`config.allowedOrigins holds at most ${MAX_ALLOWED_ORIGINS} origins`);
  }
  const allowedOrigins = [...new Set(origins.map((o, i) => parseOrigin(o, `config.allowedOrigins[${i}]`)))];
  const color = text(obj, "color", { max: 7, fallback: DEFAULT_WIDGET_COLOR })!;
  if (!/^#[0-9a-fA-F]{6}$/.test(color)) throw invalid("config.color must be #rrggbb");
  return {
    allowedOrigins,
    title: text(obj, "title", { max: 80, fallback: "Chat with us" })!,
    greeting: text(obj, "greeting", { max: 500, fallback: "Hi! How can we help?" })!,
    color: color.toLowerCase(),
    position: oneOf(obj, "position", ["right", "left"] as const, "right"),
    collectEmail: flag(obj, "collectEmail", false),
    showAgentName: flag(obj, "showAgentName", false),
  };
}

export const webAdapter: ChannelAdapter = {
  type: "web",
  secretKeys: [],
  parseConfig(input, previous) {
    return { config: { ...parseWebConfig(input, previous?.config) }, secrets: {} };
  },
  async send() {
    // The message is stored; the visitor's widget reads it (and is told live on commit).
    return { ok: true };
  },
};

// Where links Parley builds point (invite links, a sub-account owner's link, the setup link). With
// PUBLIC_URL, always there. Without it, a request's Host header is used only when it names a loopback
// address or the configured HOST; anything else (`Host: evil.example`) is ignored and the link points
// at this server's own address (HOST, or localhost for a wildcard listen address) and port.
import type { Config } from "../config.ts";

/** The address to print for people: a wildcard listen address is opened as localhost. */
export function browsable(host: string): string {
  return host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
}

/** host[:port] as a Host header carries it: a name, an IPv4 address or a bracketed IPv6 address. */
const HOST_HEADER = /^(?<name>[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(?<port>\d{1,5}))?$/;

function trustedName(name: string, config: Pick<Config, "host">): boolean {
  if (name === "localhost" || name === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)) return true;
  const own = browsable(config.host).toLowerCase();
  return own !== "localhost" && name === own;
}

/**
 * The origin (scheme, host, port; no trailing slash) every link starts with. `hostHeader` is the
 * request's Host header (undefined outside a request); `localPort` the port the request arrived on.
 */
export function linkBase(
  config: Pick<Config, "publicUrl" | "host" | "port">,
  hostHeader: string | undefined,
  localPort: number | undefined,
): string {
  if (config.publicUrl) return config.publicUrl;
  const header = hostHeader?.trim().toLowerCase();
  const match = header ? HOST_HEADER.exec(header) : null;
  if (match?.groups?.name && trustedName(match.groups.name, config)) return `https://${header}`;
  return `https://${browsable(config.host)}:${localPort || config.port}`;
}

/** The same for a request being answered. */
export function requestLinkBase(
  config: Pick<Config, "publicUrl" | "host" | "port">,
  request: { headers: { host?: string }; socket?: { localPort?: number } },
): string {
  return linkBase(config, request.headers.host, request.socket?.localPort);
}

/** An invite link (teammates, a sub-account's owner). */
export function inviteLink(base: string, token: string): string {
  return `${base}/invite/${token}`;
}

/**
 * `parley serve` on a fresh install: on a terminal, one plain line a person can click (the JSON line
 * on stdout and the log line stay as they are for machines); null when stdout is not a terminal.
 */
export function setupNotice(setupUrl: string, stdoutIsTty: boolean | undefined): string | null {
  return stdoutIsTty ? `Open ${setupUrl} to create the first account\n` : null;
}

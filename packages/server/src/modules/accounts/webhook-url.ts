// Which URLs an account may register for its webhooks: https:// anywhere public; plain http:// only
// for hosts inside OUTBOUND_ALLOW_CIDRS (local development and tests).
import { lookup } from "node:dns/promises";
import net from "node:net";
import ipaddr from "ipaddr.js";
import { AppError } from "../../platform/errors.ts";
import { checkUrlScheme, OutboundError, parseAllowCidrs } from "../../platform/safe-fetch.ts";

export async function validateWebhookUrl(
  raw: string,
  allowCidrs: string[],
  field = "webhook URL",
): Promise<string> {
  const cidrs = parseAllowCidrs(allowCidrs);
  let url: URL;
  try {
    url = checkUrlScheme(raw.trim(), cidrs);
  } catch (err) {
    if (err instanceof OutboundError) throw new AppError("VALIDATION_ERROR", `${field}: ${err.message}`);
    throw err;
  }
  if (url.protocol === "http:") {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const addresses = net.isIP(host)
      ? [host]
      : await lookup(host, { all: true }).then(
          (r) => r.map((a) => a.address),
          () => [] as string[],
        );
    const inAllowList = (a: string) =>
      cidrs.some(([range, bits]) => {
        const addr = ipaddr.process(a);
        return addr.kind() === range.kind() && addr.match(range, bits);
      });
    if (addresses.length === 0 || !addresses.every(inAllowList)) {
      throw new AppError(
        "VALIDATION_ERROR",
        // Said for people (the app shows it); docs/webhooks.md names the server setting.
        `${field} must start with https:// (plain http:// works only for addresses your server's administrator allows)`,
      );
    }
  }
  return url.toString();
}

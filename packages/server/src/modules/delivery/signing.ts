// Standard Webhooks signing (https://www.standardwebhooks.com): the receiver checks
// `webhook-signature` = "v1," + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")), where the key is
// the base64-decoded part of the account's secret after "whsec_".
import { createHmac, createSecretKey, type KeyObject } from "node:crypto";
import pkg from "../../../package.json" with { type: "json" };

export const USER_AGENT = `Parley-Webhooks/${pkg.version}`;

const SECRET_PREFIX = "whsec_";

/**
 * Decoded signing keys by secret: building a key object costs more than the HMAC of a small body.
 * The caller owns the cache (the app instance's; none means no caching).
 */
export type SigningKeyCache = Map<string, KeyObject>;

function keyFor(secret: string, keys?: SigningKeyCache): KeyObject {
  let key = keys?.get(secret);
  if (!key) {
    key = createSecretKey(
      Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64"),
    );
    if (keys) {
      if (keys.size >= 10_000) keys.clear();
      keys.set(secret, key);
    }
  }
  return key;
}

export function signatureFor(
  secret: string,
  webhookId: string,
  timestampSec: number,
  body: string,
  keys?: SigningKeyCache,
): string {
  const key = keyFor(secret, keys);
  const mac = createHmac("sha256", key).update(`${webhookId}.${timestampSec}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** The headers of one delivery attempt; the timestamp (and so the signature) is fresh each time. */
export function webhookHeaders(
  secret: string,
  webhookId: string,
  body: string,
  now: number = Date.now(),
  keys?: SigningKeyCache,
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "webhook-id": webhookId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureFor(secret, webhookId, timestamp, body, keys),
  };
}

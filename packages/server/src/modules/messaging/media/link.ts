// A public, signed, expiring link to one message's stored attachment. The custom channel webhook and
// the providers (WhatsApp, Telegram, Twilio, Messenger fetch media by URL) must be able to download a
// person's attachment without Parley's API key, which never leaves the account's own servers. The link
// is a capability: HMAC-SHA256 (key derived from the server's secret key) over account, message and
// expiry, checked in constant time by GET /v1/media/:messageId.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Config } from "../../../config.ts";
import { linkBase } from "../../../platform/public-url.ts";
import { loadSecretKey } from "../../../platform/secrets.ts";

/** Long enough for the whole delivery retry schedule (about 28 h) and a receiver's later download. */
export const MEDIA_LINK_TTL_SECONDS = 7 * 24 * 3600;

const keys = new WeakMap<object, Buffer>();

function linkKey(config: Pick<Config, "secretKey" | "dataDir">): Buffer {
  let key = keys.get(config);
  if (!key) {
    // A key of its own, so a media link's MAC can never stand for anything else signed with the secret.
    key = createHmac("sha256", loadSecretKey(config)).update("parley media link v1").digest();
    keys.set(config, key);
  }
  return key;
}

function mac(
  config: Pick<Config, "secretKey" | "dataDir">,
  accountId: string,
  messageId: string,
  expires: number,
) {
  return createHmac("sha256", linkKey(config))
    .update(`${accountId}.${messageId}.${expires}`)
    .digest("base64url");
}

/** The link for a message whose attachment is stored, or null (none, pending, rejected, or a URL of its own). */
export function storedMediaLink(
  config: Pick<Config, "secretKey" | "dataDir" | "publicUrl" | "host" | "port">,
  m: { id: string; account_id: string; media_state: string | null; media_sha256: string | null },
  now: number = Date.now(),
): string | null {
  if (m.media_state !== "stored" || !m.media_sha256) return null;
  const expires = Math.floor(now / 1000) + MEDIA_LINK_TTL_SECONDS;
  const query = new URLSearchParams({
    account: m.account_id,
    expires: String(expires),
    signature: mac(config, m.account_id, m.id, expires),
  });
  return `${linkBase(config, undefined, undefined)}/v1/media/${encodeURIComponent(m.id)}?${query}`;
}

/** Whether a link's query is one Parley signed for this message and has not expired. */
export function validMediaLink(
  config: Pick<Config, "secretKey" | "dataDir">,
  messageId: string,
  q: { account: string; expires: number; signature: string },
  now: number = Date.now(),
): boolean {
  if (q.expires * 1000 < now) return false;
  const expected = Buffer.from(mac(config, q.account, messageId, q.expires));
  const given = Buffer.from(q.signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

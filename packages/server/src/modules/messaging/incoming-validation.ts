// Validation of POST /v1/incoming_custom_channel_message, by hand rather than by Ajv: the rules
// ("messageSid or id", blank bodies, "mediaUrl requires mediaContentType") and the wording of each
// 400 ("customData.fromId is required") are the contract, and the checks run in a fixed order so the
// first problem named is always the most basic one. Unknown properties are ignored, never stored.
import { AppError } from "../../platform/errors.ts";
import { isValidEmail, normaliseEmail } from "../../platform/text.ts";

export const MAX_ID_CHARS = 255;
export const MAX_BODY_CHARS = 10_000;
export const MAX_NAME_CHARS = 255;
export const MAX_URL_CHARS = 4096;
export const INBOUND_STATUSES = ["received", "delivered", "read"] as const;
export const MESSAGE_TYPES = ["text", "reaction"] as const;

export type InboundStatus = (typeof INBOUND_STATUSES)[number];

export interface IncomingMessage {
  messageSid: string;
  fromId: string;
  toId: string;
  body: string;
  type: "text" | "reaction";
  status: InboundStatus;
  channel: string | null;
  campaignId: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  reactionTo: string | null;
  /** null when the message carries no attachment. */
  media: { url: string; contentType: string } | null;
}

function bad(message: string): AppError {
  return new AppError("VALIDATION_ERROR", message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Length in characters as people count them (code points), cheap for the usual short strings. */
function charLength(s: string): number {
  if (s.length <= MAX_ID_CHARS) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function checkLength(field: string, value: string, max: number): string {
  if (value.length > max && charLength(value) > max) {
    throw bad(`${field} must be at most ${max} characters`);
  }
  checkText(field, value);
  return value;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Text a database can store as given: no NUL (PostgreSQL refuses it), no lone UTF-16 surrogate. */
function checkText(field: string, value: string): void {
  if (value.includes("\u0000")) throw bad(`${field} must not contain NUL characters`);
  if (LONE_SURROGATE.test(value)) throw bad(`${field} must be valid Unicode text`);
}

/** A required string: present, a string, not blank, within `max`. */
function requiredString(data: Record<string, unknown>, key: string, max: number): string {
  const field = `customData.${key}`;
  const v = data[key];
  if (v === undefined || v === null) throw bad(`${field} is required`);
  if (typeof v !== "string") throw bad(`${field} must be a string`);
  if (v.trim() === "") throw bad(`${field} must not be empty`);
  return checkLength(field, v, max);
}

/** An optional string: absent, null and "" all mean "not given". */
function optionalString(data: Record<string, unknown>, key: string, max: number): string | null {
  const field = `customData.${key}`;
  const v = data[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw bad(`${field} must be a string`);
  if (v.trim() === "") return null;
  return checkLength(field, v, max);
}

// RFC 6838 type/subtype tokens; parameters after ";" are allowed and dropped.
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The essence of a MIME type ("Image/PNG; x=y" → "image/png"), or null when it is not one. */
export function mimeEssence(value: string): string | null {
  const essence = (value.split(";")[0] ?? "").trim().toLowerCase();
  return MIME.test(essence) ? essence : null;
}

export function parseIncoming(raw: unknown): IncomingMessage {
  if (raw === undefined || raw === null || raw === "") {
    throw bad("Request body is empty; send a JSON object with customData");
  }
  if (!isObject(raw)) throw bad("Request body must be a JSON object");
  const data = raw.customData;
  if (data === undefined || data === null) throw bad("customData is required");
  if (!isObject(data)) throw bad("customData must be an object");

  // messageSid wins over id when both are given.
  const sidKey = data.messageSid !== undefined && data.messageSid !== null ? "messageSid" : "id";
  if ((data[sidKey] === undefined || data[sidKey] === null) && sidKey === "id") {
    throw bad("customData.messageSid (or customData.id) is required");
  }
  const messageSid = requiredString(data, sidKey, MAX_ID_CHARS);
  // customData.id is documented as an id like messageSid (≤ 255): held to it even when messageSid wins.
  if (sidKey === "messageSid" && data.id !== undefined && data.id !== null) {
    requiredString(data, "id", MAX_ID_CHARS);
  }
  const fromId = requiredString(data, "fromId", MAX_ID_CHARS);
  const toId = requiredString(data, "toId", MAX_ID_CHARS);
  const body = requiredString(data, "body", MAX_BODY_CHARS);

  const messageType = raw.messageType;
  let type: "text" | "reaction" = "text";
  if (messageType !== undefined && messageType !== null) {
    if (typeof messageType !== "string" || !(MESSAGE_TYPES as readonly string[]).includes(messageType)) {
      throw bad("messageType must be one of text, reaction");
    }
    type = messageType as "text" | "reaction";
  }

  let status: InboundStatus = "received";
  const rawStatus = data.status;
  if (rawStatus !== undefined && rawStatus !== null) {
    if (typeof rawStatus !== "string" || !(INBOUND_STATUSES as readonly string[]).includes(rawStatus)) {
      throw bad(`customData.status must be one of ${INBOUND_STATUSES.join(", ")}`);
    }
    status = rawStatus as InboundStatus;
  }

  const channel = optionalString(data, "channel", MAX_ID_CHARS);
  const campaignId = optionalString(data, "campaignId", MAX_ID_CHARS);
  const firstName = optionalString(data, "firstName", MAX_NAME_CHARS);
  const lastName = optionalString(data, "lastName", MAX_NAME_CHARS);
  const rawEmail = optionalString(data, "email", MAX_NAME_CHARS);
  let email: string | null = null;
  if (rawEmail !== null) {
    email = normaliseEmail(rawEmail);
    if (!isValidEmail(email)) throw bad("customData.email must be a valid e-mail address");
  }
  const reactionTo = type === "reaction" ? optionalString(data, "reactionTo", MAX_ID_CHARS) : null;

  // mediaUrl may be a (large) data URI; its size and content are checked by the media code.
  let media: IncomingMessage["media"] = null;
  const mediaUrl = data.mediaUrl;
  if (mediaUrl !== undefined && mediaUrl !== null) {
    if (typeof mediaUrl !== "string") throw bad("customData.mediaUrl must be a string or null");
    if (mediaUrl.trim() !== "") {
      const rawType = data.mediaContentType;
      if (rawType === undefined || rawType === null || rawType === "") {
        throw bad("customData.mediaContentType is required when customData.mediaUrl is given");
      }
      if (typeof rawType !== "string") throw bad("customData.mediaContentType must be a string or null");
      const contentType = rawType.length <= MAX_ID_CHARS ? mimeEssence(rawType) : null;
      if (contentType === null) {
        throw bad("customData.mediaContentType must be a MIME type such as image/png");
      }
      const url = mediaUrl.trim();
      if (!/^data:/i.test(url)) {
        checkText("customData.mediaUrl", url);
        checkUrl(url);
      }
      media = { url, contentType };
    }
  }
  if (data.mediaContentType !== undefined && data.mediaContentType !== null) {
    if (typeof data.mediaContentType !== "string") {
      throw bad("customData.mediaContentType must be a string or null");
    }
  }

  return {
    messageSid,
    fromId,
    toId,
    body,
    type,
    status,
    channel,
    campaignId,
    firstName,
    lastName,
    email,
    reactionTo,
    media,
  };
}

/** A downloadable URL: http(s), no credentials. Whether its address may be reached is the guard's call. */
function checkUrl(url: string): void {
  if (url.length > MAX_URL_CHARS) {
    throw bad(`customData.mediaUrl must be at most ${MAX_URL_CHARS} characters (or a data: URI)`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw bad("customData.mediaUrl must be an http(s) URL or a data: URI");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw bad("customData.mediaUrl must be an http(s) URL or a data: URI");
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw bad("customData.mediaUrl must not contain credentials");
  }
}

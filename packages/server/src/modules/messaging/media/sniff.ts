// "mediaContentType must match the real content": the declared type is compared with what the bytes
// are (magic numbers, via file-type). Formats file-type cannot recognise (plain text, CSV, JSON, …)
// are accepted under a text declaration only when the bytes are valid UTF-8.
import { fileTypeFromBuffer } from "file-type";
import { mimeEssence } from "../incoming-validation.ts";

export const MAX_MEDIA_BYTES = 16 * 1024 * 1024;

/** Names used for the same format in the wild → the one file-type reports. */
const ALIASES: Record<string, string> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "image/x-png": "image/png",
  "image/x-icon": "image/x-icon",
  "image/vnd.microsoft.icon": "image/x-icon",
  "image/x-bmp": "image/bmp",
  "image/x-ms-bmp": "image/bmp",
  "audio/mp3": "audio/mpeg",
  "audio/mpeg3": "audio/mpeg",
  "audio/x-mpeg": "audio/mpeg",
  "audio/x-mp3": "audio/mpeg",
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/x-m4a": "audio/mp4",
  "audio/m4a": "audio/mp4",
  "audio/opus": "audio/ogg",
  "application/ogg": "audio/ogg",
  "audio/x-aac": "audio/aac",
  "audio/aacp": "audio/aac",
  "audio/x-flac": "audio/flac",
  "audio/x-midi": "audio/midi",
  "audio/3gpp": "video/3gpp",
  "audio/3gpp2": "video/3gpp2",
  "video/avi": "video/vnd.avi",
  "video/x-msvideo": "video/vnd.avi",
  "video/x-matroska": "video/matroska",
  "text/xml": "application/xml",
  "application/x-zip-compressed": "application/zip",
  "application/x-zip": "application/zip",
  "application/x-pdf": "application/pdf",
  "application/x-gzip": "application/gzip",
  "text/x-vcard": "text/vcard",
  "text/directory": "text/vcard",
};

function canonical(mime: string): string {
  return ALIASES[mime] ?? mime;
}

/** Declared types whose files are ZIP or OLE containers that file-type may report only as such. */
function containerMatches(declared: string, detected: string): boolean {
  if (detected === "application/zip") {
    return (
      declared.startsWith("application/vnd.openxmlformats-officedocument.") ||
      declared.startsWith("application/vnd.oasis.opendocument.") ||
      declared === "application/epub+zip" ||
      declared === "application/java-archive" ||
      declared === "application/vnd.android.package-archive"
    );
  }
  if (detected === "application/x-cfb") {
    return (
      declared === "application/msword" ||
      declared === "application/vnd.ms-excel" ||
      declared === "application/vnd.ms-powerpoint" ||
      declared === "application/vnd.ms-outlook"
    );
  }
  return false;
}

/** Text formats: declared as one, the bytes must be UTF-8 text (file-type mostly cannot tell). */
export function isTextType(mime: string): boolean {
  return (
    mime.startsWith("text/") ||
    mime === "application/json" ||
    mime === "application/xml" ||
    mime.endsWith("+json") ||
    mime.endsWith("+xml") ||
    mime === "application/x-ndjson" ||
    mime === "application/javascript"
  );
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

export type SniffResult =
  | { ok: true; contentType: string }
  | { ok: false; reason: string; detected: string | null };

/**
 * Checks `bytes` against the declared MIME type. On success `contentType` is the type to store and
 * serve (the detected type, or the declared text type).
 */
export async function sniff(bytes: Uint8Array, declaredRaw: string): Promise<SniffResult> {
  const declared = canonical(mimeEssence(declaredRaw) ?? declaredRaw.toLowerCase());
  if (bytes.length === 0) return { ok: false, reason: "the attachment is empty", detected: null };
  const found = await fileTypeFromBuffer(bytes);
  const detected = found ? canonical(mimeEssence(found.mime) ?? found.mime) : null;
  if (detected !== null) {
    if (detected === declared || containerMatches(declared, detected)) {
      return { ok: true, contentType: declared };
    }
    // XML-based formats (SVG, Atom, …) are detected only as XML; text/vcard, text/calendar, … as
    // themselves: a text declaration over text content is fine when the bytes are UTF-8.
    const textual = isTextType(detected);
    if (textual && isTextType(declared) && isUtf8(bytes)) return { ok: true, contentType: declared };
    return {
      ok: false,
      reason: `the content is ${detected}, not ${declared} as declared`,
      detected,
    };
  }
  if (isTextType(declared)) {
    return isUtf8(bytes)
      ? { ok: true, contentType: declared }
      : { ok: false, reason: `the content is not UTF-8 text as ${declared} requires`, detected: null };
  }
  return {
    ok: false,
    reason: `the content could not be identified as ${declared}`,
    detected: null,
  };
}

export type DataUri = { ok: true; bytes: Buffer } | { ok: false; tooLarge: boolean; reason: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** Decodes `data:<mime>[;params];base64,<data>` without ever decoding more than the size cap. */
export function decodeDataUri(uri: string, maxBytes: number = MAX_MEDIA_BYTES): DataUri {
  const comma = uri.indexOf(",");
  if (!/^data:/i.test(uri) || comma < 0) {
    return { ok: false, tooLarge: false, reason: "a data URI has the form data:<mime>;base64,<data>" };
  }
  const meta = uri.slice(5, comma).toLowerCase();
  if (!meta.split(";").some((p) => p.trim() === "base64")) {
    return { ok: false, tooLarge: false, reason: "the data URI must be base64-encoded (;base64,)" };
  }
  let data = uri.slice(comma + 1);
  // Line breaks (MIME-style base64) are tolerated; nothing else is.
  if (/\s/.test(data)) data = data.replace(/\s+/g, "");
  const unpadded = data.replace(/=+$/, "");
  const decodedSize = Math.floor((unpadded.length * 3) / 4);
  if (decodedSize > maxBytes) {
    return {
      ok: false,
      tooLarge: true,
      reason: `the attachment is larger than ${maxBytes / 1024 / 1024} MiB`,
    };
  }
  const alphabet = BASE64.test(data) ? "base64" : BASE64URL.test(data) ? "base64url" : null;
  if (alphabet === null || unpadded.length % 4 === 1) {
    return { ok: false, tooLarge: false, reason: "the data URI does not hold valid base64" };
  }
  return { ok: true, bytes: Buffer.from(unpadded, alphabet) };
}

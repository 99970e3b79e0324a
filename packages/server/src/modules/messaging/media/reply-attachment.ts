// A person's attachment to an inbox reply: an image or a PDF sent base64 in the reply's JSON, checked
// against its bytes as incoming media are (sniff.ts) and written to the content-addressed blob store
// before the reply's transaction, as an embedded incoming file is. A refused file writes nothing.
import type { AppContext } from "../../../context.ts";
import { AppError } from "../../../platform/errors.ts";
import { decodeDataUri, MAX_MEDIA_BYTES, sniff } from "./sniff.ts";
import { storeBlob } from "./store.ts";

/** What a reply may carry: what every channel with media can show (WhatsApp image/document, Telegram photo/document). */
export const REPLY_ATTACHMENT_TYPES = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "application/pdf",
];

/** The same cap as every other attachment Parley stores (16 MiB decoded). */
export const REPLY_ATTACHMENT_MAX_BYTES = MAX_MEDIA_BYTES;

/** The reply route's body limit: the file in base64 (4/3 of its size) plus the text and JSON around it. */
export const REPLY_BODY_LIMIT_BYTES = Math.ceil((REPLY_ATTACHMENT_MAX_BYTES * 4) / 3) + 128 * 1024;

export interface StoredAttachment {
  contentType: string;
  size: number;
  sha256: string;
}

export async function storeReplyAttachment(
  ctx: AppContext,
  attachment: { contentType: string; data: string },
): Promise<StoredAttachment> {
  const declared = attachment.contentType.toLowerCase().trim();
  const type = declared === "image/jpg" ? "image/jpeg" : declared;
  if (!REPLY_ATTACHMENT_TYPES.includes(type)) {
    throw new AppError(
      "INVALID_MEDIA",
      `attachment.contentType ${JSON.stringify(attachment.contentType)} cannot be sent: only images (PNG, JPEG, GIF, WebP) and PDFs`,
    );
  }
  const decoded = decodeDataUri(`data:${type};base64,${attachment.data}`, REPLY_ATTACHMENT_MAX_BYTES);
  if (!decoded.ok) {
    throw new AppError(
      decoded.tooLarge ? "PAYLOAD_TOO_LARGE" : "INVALID_MEDIA",
      decoded.tooLarge
        ? `The attachment is larger than ${REPLY_ATTACHMENT_MAX_BYTES / 1024 / 1024} MB`
        : `attachment.data: ${decoded.reason}`,
    );
  }
  if (decoded.bytes.length === 0) throw new AppError("INVALID_MEDIA", "The attachment is empty");
  const check = await sniff(decoded.bytes, type);
  if (!check.ok) {
    throw new AppError("INVALID_MEDIA", `The attachment does not match its type: ${check.reason}`);
  }
  const blob = await storeBlob(ctx.storage, decoded.bytes);
  return { contentType: check.contentType, size: blob.size, sha256: blob.sha256 };
}

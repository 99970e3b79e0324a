// The chat widget's rules (DESIGN.md section 9): the one unauthenticated write path into Parley. Every
// call names a `web` channel that must be active and must list the page's Origin; a visitor is a
// random token (only its SHA-256 is stored) bound to one channel and one contact; a visitor reads and
// writes only its own conversation. Limits: requests per client address, messages per visitor.
import { createHash, randomBytes } from "node:crypto";
import type { AppContext } from "../../context.ts";
import type { ChannelRow, WidgetVisitorRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { type PublicBrand, textColorOn } from "../branding/service.ts";
import { findOrCreateContactByExternalId, updateContactDetails } from "../contacts/repo.ts";
import { parseEmail } from "../contacts/service.ts";
import { markContactSeen } from "../conversations/repo.ts";
import { decodeDataUri, sniff } from "../messaging/media/sniff.ts";
import { storeBlob } from "../messaging/media/store.ts";
import { suggestionsOf } from "../messaging/suggestions.ts";
import { DEFAULT_WIDGET_COLOR, parseWebConfig, type WebConfig } from "./adapters/web.ts";
import { findChannelPublic, findVisitorByTokenHash, insertVisitor, touchVisitor } from "./repo.ts";
import { acceptChannelMessage } from "./service.ts";
import {
  findConversationMessage,
  findVisibleMessage,
  findVisitorConversationId,
  listVisibleMessages,
  userNames,
  type WidgetMessageRow,
} from "./widget-repo.ts";

/** A widget message's text: at most this many characters (a chat line, not a document). */
export const WIDGET_MAX_BODY_CHARS = 2000;
/** Messages one read returns at most (the newest; the panel shows a chat, not an archive). */
export const WIDGET_HISTORY_LIMIT = 200;
/** What the widget may attach: images and PDFs, checked against their bytes as incoming media are. */
export const WIDGET_ATTACHMENT_TYPES = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "application/pdf",
];
/** An attachment's decoded size at most (the incoming media limit is 16 MiB; a visitor gets less). */
export const WIDGET_MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
const WINDOW_MS = 60_000;
const MAX_TRACKED = 100_000;

export interface WidgetChannel {
  row: ChannelRow;
  config: WebConfig;
}

/** The channel behind a public URL: a `web` channel that exists and is active (else 404 / 403). */
export async function openChannel(ctx: AppContext, channelId: string): Promise<WidgetChannel> {
  const row = channelId.length <= 64 ? await findChannelPublic(ctx.db.kysely, channelId) : undefined;
  if (row?.type !== "web") throw new AppError("CHANNEL_NOT_FOUND", "No such chat");
  if (row.status !== "active") throw new AppError("CHANNEL_PAUSED", "This chat is not available right now");
  let config: WebConfig;
  try {
    config = parseWebConfig(JSON.parse(row.config));
  } catch {
    throw new AppError("CHANNEL_NOT_FOUND", "No such chat");
  }
  return { row, config };
}

/** The page's Origin must be one the business listed; nothing else is answered (403). */
export function checkOrigin(channel: WidgetChannel, origin: string | undefined): string {
  if (!origin || !channel.config.allowedOrigins.includes(origin)) {
    throw new AppError("ORIGIN_NOT_ALLOWED", "This website may not use this chat");
  }
  return origin;
}

/**
 * What the page needs to draw the widget, and nothing else. A sub-account's widget carries its
 * agency's brand (name, logo, and its colour in place of Parley's default one).
 */
export function publicConfig(channel: WidgetChannel, brand: PublicBrand | null = null) {
  const c = channel.config;
  const color = brand && c.color === DEFAULT_WIDGET_COLOR ? brand.color : c.color;
  return {
    title: c.title,
    greeting: c.greeting,
    color,
    textColor: textColorOn(color),
    position: c.position,
    collectEmail: c.collectEmail,
    brand: brand ? { name: brand.name, logoUrl: brand.logoUrl } : null,
  };
}

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A new visitor: a contact without a name (external id `web:<visitorId>`) and its token. */
export async function createVisitor(
  ctx: AppContext,
  channel: WidgetChannel,
): Promise<{ visitorToken: string; visitorId: string }> {
  const visitorId = newId("visitor");
  const visitorToken = `wvt_${randomBytes(32).toString("base64url")}`;
  const accountId = channel.row.account_id;
  const now = Date.now();
  await ctx.db.write(async (trx) => {
    const { contact } = await findOrCreateContactByExternalId(trx, accountId, {
      externalId: `web:${visitorId}`,
      phone: null,
      firstName: null,
      lastName: null,
      email: null,
    });
    const row: WidgetVisitorRow = {
      id: visitorId,
      account_id: accountId,
      channel_id: channel.row.id,
      contact_id: contact.id,
      token_hash: hashToken(visitorToken),
      created_at: now,
      last_seen_at: now,
    };
    await insertVisitor(trx, row);
  });
  return { visitorToken, visitorId };
}

/** The visitor a token names on this channel; a token of another channel (or none) is 401. */
export async function requireVisitor(
  ctx: AppContext,
  channel: WidgetChannel,
  token: string | undefined,
): Promise<WidgetVisitorRow> {
  const visitor =
    token && token.length <= 200
      ? await findVisitorByTokenHash(ctx.db.kysely, channel.row.id, hashToken(token))
      : undefined;
  if (!visitor || visitor.account_id !== channel.row.account_id) {
    throw new AppError("UNAUTHORIZED", "Unknown visitor: create one with POST .../visitors");
  }
  return visitor;
}

/** `Authorization: Bearer <token>` → the token. */
export function bearer(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? "");
  return m?.[1];
}

export interface WidgetMessage {
  id: string;
  direction: "inbound" | "outbound";
  body: string;
  sender: "visitor" | "bot" | "agent";
  agentName?: string;
  createdAt: string;
  attachment?: { contentType: string; size: number | null };
  /** A bot's "Did you mean": the choices, which the widget shows as buttons under the message. */
  suggestions?: { id: string; title: string }[];
}

/** The choices of a bot's message as the visitor sees them: the number and the question, nothing else. */
function suggestionsView(r: WidgetMessageRow): { suggestions?: { id: string; title: string }[] } {
  if (r.direction !== "outbound" || !r.suggestions) return {};
  const choices = suggestionsOf(r.suggestions);
  return choices.length > 0 ? { suggestions: choices.map(({ id, title }) => ({ id, title })) } : {};
}

async function messagesView(
  ctx: AppContext,
  channel: WidgetChannel,
  rows: WidgetMessageRow[],
): Promise<WidgetMessage[]> {
  // A person's first name only, and only when the business chose to show it.
  const names = channel.config.showAgentName
    ? await userNames(ctx.db.kysely, channel.row.account_id, [
        ...new Set(rows.flatMap((r) => (r.sender === "human" && r.user_id ? [r.user_id] : []))),
      ])
    : new Map<string, string | null>();
  return rows.map((r) => {
    const sender = r.direction === "inbound" ? "visitor" : r.sender === "bot" ? "bot" : "agent";
    const firstName =
      sender === "agent" && r.user_id ? names.get(r.user_id)?.trim().split(/\s+/)[0] : undefined;
    return {
      id: r.id,
      direction: r.direction,
      body: r.body,
      sender,
      ...(firstName ? { agentName: firstName } : {}),
      createdAt: new Date(r.created_at).toISOString(),
      ...(r.media_state === "stored" && r.media_content_type
        ? { attachment: { contentType: r.media_content_type, size: r.media_size } }
        : {}),
      ...suggestionsView(r),
    };
  });
}

/** The visitor's own messages, oldest first; after a message id, only the newer ones. */
export async function visitorMessages(
  ctx: AppContext,
  channel: WidgetChannel,
  visitor: WidgetVisitorRow,
  afterId: string | undefined,
  limit: number = WIDGET_HISTORY_LIMIT,
): Promise<WidgetMessage[]> {
  const db = ctx.db.kysely;
  const conversationId = await findVisitorConversationId(
    db,
    visitor.account_id,
    visitor.contact_id,
    channel.row.id,
  );
  if (!conversationId) return [];
  let after: { createdAt: number; id: string } | null = null;
  if (afterId) {
    const m = await findConversationMessage(db, visitor.account_id, conversationId, afterId);
    if (m) after = { createdAt: m.created_at, id: m.id };
  }
  const rows = await listVisibleMessages(
    db,
    visitor.account_id,
    conversationId,
    visitor.contact_id,
    after,
    Math.min(limit, WIDGET_HISTORY_LIMIT),
  );
  return messagesView(ctx, channel, rows);
}

export async function visitorConversationId(
  ctx: AppContext,
  channel: WidgetChannel,
  visitor: WidgetVisitorRow,
): Promise<string | null> {
  return findVisitorConversationId(ctx.db.kysely, visitor.account_id, visitor.contact_id, channel.row.id);
}

/**
 * The visitor has the panel open and on screen: the business's replies so far are seen (the inbox
 * shows them as Seen). Nothing to mark before the visitor's first message (no conversation yet).
 */
export async function markVisitorSeen(
  ctx: AppContext,
  channel: WidgetChannel,
  visitor: WidgetVisitorRow,
): Promise<void> {
  const conversationId = await visitorConversationId(ctx, channel, visitor);
  if (!conversationId) return;
  const at = Date.now();
  await ctx.db.write((trx) => markContactSeen(trx, visitor.account_id, conversationId, at));
}

export interface VisitorSend {
  body: string;
  clientMessageId: string;
  attachment?: { contentType: string; data: string };
}

/** A visitor's message into the inbox (idempotent on clientMessageId); the bot answers as usual. */
export async function sendVisitorMessage(
  ctx: AppContext,
  channel: WidgetChannel,
  visitor: WidgetVisitorRow,
  input: VisitorSend,
): Promise<{ message: WidgetMessage; duplicate: boolean }> {
  const body = input.body.trim();
  if (!input.attachment && body.length === 0)
    throw new AppError("VALIDATION_ERROR", "body must not be empty");
  if (body.length > WIDGET_MAX_BODY_CHARS) {
    throw new AppError("VALIDATION_ERROR", `body holds at most ${WIDGET_MAX_BODY_CHARS} characters`);
  }
  let media: { contentType: string; size: number; sha256: string } | null = null;
  if (input.attachment) media = await storeAttachment(ctx, input.attachment);
  const result = await acceptChannelMessage(ctx, channel.row, {
    contactId: visitor.contact_id,
    fromId: `web:${visitor.id}`,
    externalId: `web:${visitor.id}:${input.clientMessageId}`,
    body,
    media,
    at: Date.now(),
  });
  // Other tabs of this visitor (on any node) hear of their conversation, the first message included.
  ctx.live.publishVisitor(visitor.id, { type: "message" });
  // "Last seen" to the minute: not a write per message.
  const now = Date.now();
  if (now - visitor.last_seen_at > 60_000) {
    void ctx.db
      .write((trx) => touchVisitor(trx, visitor.account_id, visitor.id, now))
      .catch((err: unknown) => ctx.log.warn({ err }, "widget visitor last-seen update failed"));
  }
  const row = await findVisibleMessage(
    ctx.db.kysely,
    visitor.account_id,
    result.conversationId,
    result.messageId,
  );
  const [message] = row ? await messagesView(ctx, channel, [row]) : [];
  return {
    message: message ?? {
      id: result.messageId,
      direction: "inbound",
      body,
      sender: "visitor",
      createdAt: new Date().toISOString(),
    },
    duplicate: result.duplicate,
  };
}

/**
 * An image or PDF, checked against its bytes as incoming media are (messaging/media/sniff.ts), then
 * written to the content-addressed blob store before anything is committed (an unused blob is harmless).
 */
async function storeAttachment(
  ctx: AppContext,
  attachment: { contentType: string; data: string },
): Promise<{ contentType: string; size: number; sha256: string }> {
  const declared = attachment.contentType.toLowerCase().trim();
  if (!WIDGET_ATTACHMENT_TYPES.includes(declared)) {
    throw new AppError("INVALID_MEDIA", "Only images (PNG, JPEG, GIF, WebP) and PDFs can be attached");
  }
  const decoded = decodeDataUri(`data:${declared};base64,${attachment.data}`, WIDGET_MAX_ATTACHMENT_BYTES);
  if (!decoded.ok)
    throw new AppError(decoded.tooLarge ? "PAYLOAD_TOO_LARGE" : "INVALID_MEDIA", decoded.reason);
  const check = await sniff(decoded.bytes, declared);
  if (!check.ok)
    throw new AppError("INVALID_MEDIA", `The attachment does not match its type: ${check.reason}`);
  const blob = await storeBlob(ctx.storage, decoded.bytes);
  return { contentType: check.contentType, size: blob.size, sha256: blob.sha256 };
}

/** collectEmail: the visitor leaves an e-mail address for its contact (only when the channel asks). */
export async function setVisitorEmail(
  ctx: AppContext,
  channel: WidgetChannel,
  visitor: WidgetVisitorRow,
  raw: string,
): Promise<void> {
  if (!channel.config.collectEmail) {
    throw new AppError("FORBIDDEN", "This chat does not collect e-mail addresses");
  }
  const email = parseEmail(raw);
  await ctx.db.write((trx) =>
    updateContactDetails(trx, visitor.account_id, visitor.contact_id, { email }, Date.now()),
  );
}

/** The stored attachment of one of the visitor's messages. */
export async function visitorAttachment(
  ctx: AppContext,
  channel: WidgetChannel,
  visitor: WidgetVisitorRow,
  messageId: string,
): Promise<{ sha256: string; contentType: string }> {
  const conversationId = await visitorConversationId(ctx, channel, visitor);
  const m = conversationId
    ? await findConversationMessage(ctx.db.kysely, visitor.account_id, conversationId, messageId)
    : undefined;
  if (m?.media_state !== "stored" || !m.media_sha256 || !m.media_content_type) {
    throw new AppError("MESSAGE_NOT_FOUND", "No such attachment");
  }
  return { sha256: m.media_sha256, contentType: m.media_content_type };
}

/**
 * Fixed one-minute windows per key, in this process (each API node counts its own: a visitor spread
 * over several nodes by a load balancer gets each node's allowance).
 */
export class WindowLimiter {
  private readonly counts = new Map<string, { count: number; resetAt: number }>();

  /** Counts one; throws 429 with Retry-After once the key is past `max` in its window. */
  hit(key: string, max: number, what: string, weight = 1): void {
    const now = Date.now();
    let entry = this.counts.get(key);
    if (!entry || entry.resetAt <= now) {
      if (this.counts.size >= MAX_TRACKED) this.counts.clear();
      entry = { count: 0, resetAt: now + WINDOW_MS };
      this.counts.set(key, entry);
    }
    if (entry.count + weight > max) {
      const wait = Math.max(1, Math.ceil((entry.resetAt - now) / 1000));
      throw new AppError("RATE_LIMITED", `Too many ${what}; retry in ${wait} seconds`, {
        "retry-after": String(wait),
      });
    }
    entry.count += weight;
  }

  clear(): void {
    this.counts.clear();
  }
}

// Messaging rules: accepting an incoming custom-channel message (contact, conversation, message and
// jobs in one transaction, idempotent on messageSid) and reading message history.
import type { AppContext } from "../../context.ts";
import { isUniqueViolation } from "../../platform/db/index.ts";
import type { AccountRow, MessageRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { enqueueJobs, type JobInput } from "../../platform/jobs.ts";
import { decodeCursor, toPage } from "../../platform/pagination.ts";
import { toE164 } from "../contacts/phone.ts";
import {
  findContactByExternalId,
  findContactById,
  findOrCreateContactByExternalId,
} from "../contacts/repo.ts";
import { upsertConversationForMessage } from "../conversations/repo.ts";
import type { IncomingMessage } from "./incoming-validation.ts";
import { botReplyJob, mediaFetchJob } from "./jobs.ts";
import { decodeDataUri, MAX_MEDIA_BYTES, sniff } from "./media/sniff.ts";
import { storeBlob } from "./media/store.ts";
import { batchable, storeBatched } from "./pg-ingest.ts";
import {
  attemptsByMessage,
  findMessageByExternalId,
  findMessageById,
  insertMessageIfNew,
  listMessagesByContact,
} from "./repo.ts";
import { messageView } from "./view.ts";

export interface IncomingResult {
  messageId: string;
  duplicate: boolean;
}

/** Where a built-in channel's message goes: its contact is known, its conversation is the channel's. */
interface ChannelTarget {
  contactId: string;
  channelId: string;
  /** The channel's campaign: new conversations and the message are routed to it. */
  campaignId: string | null;
  /** False for a message the bot must not answer (an SMS keyword such as STOP, which the provider answers). */
  botReply?: boolean;
}

type PreparedMedia =
  | { kind: "stored"; contentType: string; size: number; sha256: string }
  | { kind: "url"; url: string; contentType: string };

/** Thrown inside the transaction to roll it back when another request stored this messageSid first. */
class DuplicateMessage extends Error {
  readonly messageId: string;
  readonly conversationId: string;
  constructor(messageId: string, conversationId: string) {
    super("duplicate messageSid");
    this.messageId = messageId;
    this.conversationId = conversationId;
  }
}

/**
 * An embedded file is decoded, checked and written to disk before anything is committed: a committed
 * message never points to a missing blob, and a blob whose request then fails is harmless (it is
 * content-addressed and reused by the next upload of the same bytes).
 */
async function prepareMedia(ctx: AppContext, input: IncomingMessage): Promise<PreparedMedia | null> {
  if (!input.media) return null;
  const { url, contentType } = input.media;
  if (!/^data:/i.test(url)) return { kind: "url", url, contentType };
  const decoded = decodeDataUri(url, MAX_MEDIA_BYTES);
  if (!decoded.ok) {
    throw new AppError(
      decoded.tooLarge ? "PAYLOAD_TOO_LARGE" : "INVALID_MEDIA",
      `customData.mediaUrl: ${decoded.reason}`,
    );
  }
  const check = await sniff(decoded.bytes, contentType);
  if (!check.ok) {
    throw new AppError(
      "INVALID_MEDIA",
      `customData.mediaContentType does not match the attachment: ${check.reason}`,
    );
  }
  const blob = await storeBlob(ctx.storage, decoded.bytes);
  return { kind: "stored", contentType: check.contentType, size: blob.size, sha256: blob.sha256 };
}

export async function acceptIncomingMessage(
  ctx: AppContext,
  account: AccountRow,
  input: IncomingMessage,
): Promise<IncomingResult> {
  const db = ctx.db.kysely;
  const accountId = account.id;
  // A retried message with an attachment is answered before the file is decoded or written again.
  // (Without one, the insert's ON CONFLICT below is the only check needed: one query less.)
  if (input.media) {
    const known = await findMessageByExternalId(db, accountId, input.messageSid);
    if (known) return { messageId: known.id, duplicate: true };
  }

  if (!input.media && input.type === "text" && batchable(ctx)) {
    const messageId = await storeBatched(ctx, {
      accountId,
      messageSid: input.messageSid,
      fromId: input.fromId,
      toId: input.toId,
      body: input.body,
      status: input.status,
      channel: input.channel,
      campaignId: input.campaignId,
    });
    if (messageId) return { messageId, duplicate: false };
  }

  const media = await prepareMedia(ctx, input);
  const { messageId, duplicate } = await storeWithRetry(ctx, accountId, input, media, null);
  return { messageId, duplicate };
}

/**
 * An incoming message of a built-in channel (the widget, later the providers' webhooks), by the same
 * rules as the custom channel's: in one transaction the (contact, channel) conversation is upserted
 * (routed to the channel's campaign when new), the message inserted idempotently on `externalId` (a
 * repeat answers the original id), and the bot job queued. `media` is a file the channel already
 * sniffed and stored (messaging/media/store.ts), as prepareMedia does for an embedded one.
 */
export async function acceptChannelIncoming(
  ctx: AppContext,
  accountId: string,
  m: ChannelTarget & {
    externalId: string;
    /** The contact's external id, stored as the message's from_id. */
    fromId: string;
    body: string;
    /** An attachment the channel already checked (sniffed) and stored in the blob store. */
    media?: { contentType: string; size: number; sha256: string } | null;
  },
): Promise<IncomingResult & { conversationId: string }> {
  const known = await findMessageByExternalId(ctx.db.kysely, accountId, m.externalId);
  if (known) return { messageId: known.id, conversationId: known.conversation_id, duplicate: true };
  const input: IncomingMessage = {
    messageSid: m.externalId,
    fromId: m.fromId,
    toId: m.channelId,
    body: m.body,
    type: "text",
    status: "received",
    channel: null,
    campaignId: m.campaignId,
    firstName: null,
    lastName: null,
    email: null,
    reactionTo: null,
    media: null,
  };
  const media: PreparedMedia | null = m.media ? { kind: "stored", ...m.media } : null;
  return storeWithRetry(ctx, accountId, input, media, {
    contactId: m.contactId,
    channelId: m.channelId,
    campaignId: m.campaignId,
    botReply: m.botReply ?? true,
  });
}

async function storeWithRetry(
  ctx: AppContext,
  accountId: string,
  input: IncomingMessage,
  media: PreparedMedia | null,
  target: ChannelTarget | null,
): Promise<IncomingResult & { conversationId: string }> {
  for (let round = 1; ; round++) {
    try {
      return await storeIncoming(ctx, accountId, input, media, target);
    } catch (err) {
      // A unique index that decided against this transaction (a contact or conversation created by a
      // concurrent request): the transaction is rolled back and replayed, and now finds those rows.
      if (round < 3 && (isUniqueViolation(err) || isDeadlock(err))) continue;
      throw err;
    }
  }
}

function isDeadlock(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === "40P01";
}

async function storeIncoming(
  ctx: AppContext,
  accountId: string,
  input: IncomingMessage,
  media: PreparedMedia | null,
  target: ChannelTarget | null,
): Promise<IncomingResult & { conversationId: string }> {
  const now = Date.now();
  const messageId = newId("message");
  try {
    // db.write: committed (fsynced) before we answer; on SQLite concurrent requests share the commit.
    return await ctx.db.write(async (trx) => {
      // A known sender is one indexed look-up; the phone is parsed only for a new contact. A built-in
      // channel names its contact itself.
      const contact = target
        ? { id: target.contactId }
        : ((await findContactByExternalId(trx, accountId, input.fromId)) ??
          (
            await findOrCreateContactByExternalId(trx, accountId, {
              externalId: input.fromId,
              phone: toE164(input.fromId),
              firstName: input.firstName,
              lastName: input.lastName,
              email: input.email,
            })
          ).contact);
      const conversationId = await upsertConversationForMessage(
        trx,
        accountId,
        contact.id,
        input.channel,
        now,
        target ? { channelId: target.channelId, campaignId: target.campaignId } : undefined,
      );
      const reactionTarget =
        input.type === "reaction" && input.reactionTo
          ? await findMessageByExternalId(trx, accountId, input.reactionTo)
          : undefined;
      const inserted = await insertMessageIfNew(trx, {
        id: messageId,
        account_id: accountId,
        conversation_id: conversationId,
        contact_id: contact.id,
        direction: "inbound",
        type: input.type,
        sender: "contact",
        body: input.body,
        status: input.status,
        channel: input.channel,
        // Stored as given; the bot module decides whether it names one of the account's campaigns.
        campaign_id: input.campaignId,
        external_id: input.messageSid,
        from_id: input.fromId,
        to_id: input.toId,
        reaction_to_message_id: reactionTarget?.id ?? null,
        reaction_to_external_id: input.type === "reaction" ? input.reactionTo : null,
        // An embedded file is not kept as text: its bytes are in the blob store.
        media_url: media?.kind === "url" ? media.url : null,
        media_content_type: media?.contentType ?? null,
        media_state: media ? (media.kind === "stored" ? "stored" : "pending") : null,
        media_size: media?.kind === "stored" ? media.size : null,
        media_sha256: media?.kind === "stored" ? media.sha256 : null,
        media_reason: null,
        error: null,
        user_id: null,
        created_at: now,
        updated_at: now,
      });
      if (!inserted) {
        // A concurrent request with the same messageSid committed first (the unique index decided).
        const winner = await findMessageByExternalId(trx, accountId, input.messageSid);
        if (!winner) throw new Error("message insert conflicted but no row holds its messageSid");
        throw new DuplicateMessage(winner.id, winner.conversation_id);
      }
      const jobs: JobInput[] = [];
      if (media?.kind === "url") {
        jobs.push(mediaFetchJob.create({ messageId }, { accountId }));
      }
      // Reactions are shown, never answered.
      if (input.type === "text" && target?.botReply !== false) {
        jobs.push(botReplyJob.create({ messageId }, { accountId }));
      }
      await enqueueJobs(trx, jobs);
      return { messageId, conversationId, duplicate: false };
    });
  } catch (err) {
    if (err instanceof DuplicateMessage) {
      return { messageId: err.messageId, conversationId: err.conversationId, duplicate: true };
    }
    throw err;
  }
}

export async function getMessage(ctx: AppContext, accountId: string, messageId: string) {
  const message = await requireMessage(ctx, accountId, messageId);
  const attempts = await attemptsByMessage(ctx.db.kysely, accountId, [message.id]);
  return messageView(message, attempts.get(message.id) ?? []);
}

export async function requireMessage(
  ctx: AppContext,
  accountId: string,
  messageId: string,
): Promise<MessageRow> {
  const message = await findMessageById(ctx.db.kysely, accountId, messageId);
  if (!message) throw new AppError("MESSAGE_NOT_FOUND", `No message with id ${messageId}`);
  return message;
}

/** A contact's messages, oldest first, with every page's delivery attempts read in one query. */
export async function listContactMessages(
  ctx: AppContext,
  accountId: string,
  contactId: string,
  query: { limit?: number; cursor?: string },
) {
  const db = ctx.db.kysely;
  const contact = await findContactById(db, accountId, contactId);
  if (!contact) throw new AppError("CONTACT_NOT_FOUND", `No contact with id ${contactId}`);
  const limit = query.limit ?? 50;
  const after = decodeCursor(query.cursor);
  const rows = await listMessagesByContact(db, accountId, contactId, after, limit + 1);
  const attempts = await attemptsByMessage(
    db,
    accountId,
    rows.slice(0, limit).map((r) => r.id),
  );
  return toPage(
    rows,
    limit,
    (r) => r.id,
    (r) => messageView(r, attempts.get(r.id) ?? []),
  );
}

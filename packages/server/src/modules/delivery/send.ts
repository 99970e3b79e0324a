// The ways a message goes out besides the bot: an API send, a person's reply, and a resend of a
// failed message. Each stores what it sends and queues its delivery in one commit.
import type { AppContext } from "../../context.ts";
import type { AccountRow, MessageRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { activeJobsOf, cancelQueuedJobs, enqueueJobs } from "../../platform/jobs.ts";
import { conversationChanged } from "../../platform/live.ts";
import { isValidEmail, normaliseEmail } from "../../platform/text.ts";
import { findOwnerUserId } from "../accounts/repo.ts";
import { toE164 } from "../contacts/phone.ts";
import { findContactById, findOrCreateContactByExternalId, updateContactDetails } from "../contacts/repo.ts";
import {
  findConversationById,
  findOrCreateConversation,
  handBackToPerson,
  pauseBot,
} from "../conversations/repo.ts";
import { findMessageById, lastChannelOf, markPendingForResend } from "../messaging/repo.ts";
import { deliveryJob } from "./jobs.ts";
import { createOutboundMessage } from "./outbound.ts";

export interface SendInput {
  fromId: string;
  customChannel: string;
  body: string;
  campaignId?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
}

function given(v: string | null | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}

function requireText(value: string, field: string): void {
  if (value.trim() === "") {
    throw new AppError("VALIDATION_ERROR", `${field} must not be empty or whitespace-only`);
  }
}

/** POST /v1/send_custom_channel_message: contact upsert, outbound message, delivery job, one transaction. */
export async function sendCustomChannelMessage(
  ctx: AppContext,
  account: AccountRow,
  input: SendInput,
): Promise<{ messageId: string; contactId: string }> {
  requireText(input.fromId, "customData.fromId");
  requireText(input.customChannel, "customData.customChannel");
  requireText(input.body, "customData.body");
  const email = given(input.email);
  const normalisedEmail = email === undefined ? undefined : normaliseEmail(email);
  if (normalisedEmail !== undefined && !isValidEmail(normalisedEmail)) {
    throw new AppError("INVALID_EMAIL", `customData.email "${email}" is not a valid e-mail address`);
  }
  if (!account.webhook_url) {
    throw new AppError(
      "WEBHOOK_NOT_CONFIGURED",
      "No custom channel webhook URL is configured for this account; set it in the settings first",
    );
  }
  const firstName = given(input.firstName);
  const lastName = given(input.lastName);
  const channel = input.customChannel.trim();
  const now = Date.now();
  const message = await ctx.db.write(async (trx) => {
    const { contact, created } = await findOrCreateContactByExternalId(trx, account.id, {
      externalId: input.fromId,
      phone: toE164(input.fromId),
      firstName: firstName ?? null,
      lastName: lastName ?? null,
      email: normalisedEmail ?? null,
    });
    if (!created) {
      await updateContactDetails(
        trx,
        account.id,
        contact.id,
        {
          ...(firstName === undefined ? {} : { first_name: firstName }),
          ...(lastName === undefined ? {} : { last_name: lastName }),
          ...(normalisedEmail === undefined ? {} : { email: normalisedEmail }),
        },
        now,
      );
    }
    const { conversation } = await findOrCreateConversation(trx, account.id, contact.id, channel, now);
    return createOutboundMessage(trx, account.id, {
      conversationId: conversation.id,
      contactId: contact.id,
      body: input.body,
      sender: "api",
      channel,
      toId: input.fromId,
      campaignId: given(input.campaignId) ?? null,
      at: now,
    });
  });
  return { messageId: message.id, contactId: message.contact_id };
}

/**
 * A person's reply from the inbox (or the API extension): pauses the bot on the conversation, since
 * the bot never talks over a human, and goes out like every other outbound message. The modules' reply
 * hooks run in its transaction (the campaign's follow-up clock starts again).
 */
export async function sendHumanReply(
  ctx: AppContext,
  accountId: string,
  conversationId: string,
  body: string,
  userId: string | null,
  media: { contentType: string; size: number; sha256: string } | null = null,
): Promise<MessageRow> {
  // An attachment may go alone; without one the reply needs text.
  if (!media) requireText(body, "body");
  const now = Date.now();
  const message = await ctx.db.write(async (trx) => {
    const conversation = await findConversationById(trx, accountId, conversationId);
    if (!conversation) {
      throw new AppError("CONVERSATION_NOT_FOUND", `No conversation ${conversationId} in this account`);
    }
    const contact = await findContactById(trx, accountId, conversation.contact_id);
    const channel = conversation.channel ?? (await lastChannelOf(trx, accountId, conversation.contact_id));
    await pauseBot(trx, accountId, conversationId, now);
    const author = userId ?? (await findOwnerUserId(trx, accountId)) ?? null;
    // A person answered: the conversation no longer needs one (the thread says who took it back).
    await handBackToPerson(trx, accountId, conversationId, author, now);
    const reply = await createOutboundMessage(trx, accountId, {
      conversationId,
      contactId: conversation.contact_id,
      body,
      sender: "human",
      channel,
      toId: contact?.external_id ?? null,
      campaignId: conversation.campaign_id,
      userId: author,
      media,
      at: now,
    });
    for (const hook of ctx.onHumanReply) await hook(trx, reply);
    return reply;
  });
  return message;
}

/**
 * Queues a new attempt now for a failed outbound message and restarts its retry schedule. A retry
 * that is still queued is replaced (never two deliveries in parallel); one that is running right now
 * is left to finish and decides the outcome.
 */
export async function resendMessage(ctx: AppContext, accountId: string, messageId: string): Promise<void> {
  await ctx.db.write(async (trx) => {
    const m = await findMessageById(trx, accountId, messageId);
    if (!m) throw new AppError("MESSAGE_NOT_FOUND", `No message ${messageId} in this account`);
    if (m.direction !== "outbound" || m.status !== "failed") {
      throw new AppError(
        "MESSAGE_NOT_FAILED",
        m.direction === "outbound"
          ? `Only a failed message can be resent; message ${messageId} is ${m.status}`
          : `Message ${messageId} is an incoming message; only failed outbound messages can be resent`,
      );
    }
    if (!(await markPendingForResend(trx, accountId, messageId, Date.now()))) {
      throw new AppError("MESSAGE_NOT_FAILED", `Message ${messageId} is no longer failed`);
    }
    conversationChanged(trx, accountId, m.conversation_id);
    const jobs = await activeJobsOf(trx, accountId, deliveryJob.type, messageId);
    await cancelQueuedJobs(
      trx,
      jobs.filter((j) => j.status === "queued").map((j) => j.id),
    );
    if (!jobs.some((j) => j.status === "running")) {
      await enqueueJobs(trx, [deliveryJob.create({ messageId, trigger: "manual" }, { accountId })]);
    }
  });
}

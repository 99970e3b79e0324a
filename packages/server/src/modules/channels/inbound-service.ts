// A provider's calls on a channel's inbound URL. The request is checked (the provider's signature or
// secret token) and its payload kept as a job in one commit before Parley answers, so the provider
// hears back within its timeout and nothing it was told was received can be lost; the job then turns
// the payload into incoming messages (idempotent on the provider's message id: providers retry, and so
// do jobs), status changes of replies, and STOP/START.
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import type { ChannelRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { defineJob, enqueueJobs, type JobContext, type JobResult } from "../../platform/jobs.ts";
import { conversationChanged } from "../../platform/live.ts";
import {
  findOrCreateContactByExternalId,
  findOrCreateContactByPhone,
  setSmsOptOut,
} from "../contacts/repo.ts";
import { sniff } from "../messaging/media/sniff.ts";
import { storeBlob } from "../messaging/media/store.ts";
import { applyProviderStatus, findMessageByExternalId } from "../messaging/repo.ts";
import { errorJson } from "../messaging/view.ts";
import { adapterOf } from "./adapters/index.ts";
import type {
  ChannelAdapter,
  DecryptedChannel,
  InboundEvent,
  InboundReply,
  InboundRequest,
} from "./adapters/types.ts";
import * as repo from "./repo.ts";
import { acceptChannelMessage, decryptChannel } from "./service.ts";

export const channelInboundJob = defineJob(
  "channel.inbound",
  Type.Object({ channelId: Type.String(), payload: Type.Unknown(), receivedAt: Type.Number() }),
);

/** A status callback can overtake the commit that records the provider's id: look again shortly. */
const STATUS_RETRY_MS = 2_000;
const STATUS_RETRIES = 3;

const ACCEPTED: InboundReply = { status: 200, contentType: "application/json", body: '{"ok":true}' };

async function providerChannel(
  ctx: AppContext,
  channelId: string,
): Promise<{ row: ChannelRow; channel: DecryptedChannel; adapter: ChannelAdapter }> {
  const row = await repo.findChannelPublic(ctx.db.kysely, channelId);
  const adapter = row ? adapterOf(row.type) : undefined;
  // A website chat has no inbound URL; to a caller it does not exist.
  if (!row || !adapter?.authenticate) {
    throw new AppError("CHANNEL_NOT_FOUND", `No provider channel with id ${channelId}`);
  }
  return { row, channel: decryptChannel(ctx, row), adapter };
}

/** Meta's subscription handshake (GET with hub.mode, hub.verify_token, hub.challenge). */
export async function verifySubscription(
  ctx: AppContext,
  channelId: string,
  query: Record<string, string>,
): Promise<InboundReply> {
  const { channel, adapter } = await providerChannel(ctx, channelId);
  if (!adapter.verifySubscription) {
    throw new AppError("METHOD_NOT_ALLOWED", "This channel's inbound URL takes POST only");
  }
  return adapter.verifySubscription(channel, query);
}

/** A POST from the provider: checked, kept as a job, answered. Nothing is kept when the check fails. */
export async function receiveInbound(
  ctx: AppContext,
  channelId: string,
  req: InboundRequest,
): Promise<InboundReply> {
  const { row, channel, adapter } = await providerChannel(ctx, channelId);
  const check = adapter.authenticate!(channel, req);
  if (!check.ok) {
    const code =
      check.status === 400 ? "VALIDATION_ERROR" : check.status === 401 ? "UNAUTHORIZED" : "FORBIDDEN";
    throw new AppError(code, check.message);
  }
  await ctx.db.write((trx) =>
    enqueueJobs(trx, [
      channelInboundJob.create(
        { channelId, payload: check.payload, receivedAt: Date.now() },
        { accountId: row.account_id },
      ),
    ]),
  );
  return adapter.inboundReply?.(check.payload) ?? adapter.acceptedReply ?? ACCEPTED;
}

/** The inbound job: every event of one provider call, each idempotent, so a rerun repeats nothing. */
export async function processInbound(
  ctx: AppContext,
  payload: { channelId: string; payload: unknown },
  job: JobContext,
): Promise<JobResult> {
  const accountId = job.accountId;
  if (!accountId) return { dead: true, error: "channel.inbound job without an account" };
  const row = await repo.findChannel(ctx.db.kysely, accountId, payload.channelId);
  const adapter = row ? adapterOf(row.type) : undefined;
  // The channel was deleted after the call was accepted: its conversations are history now.
  if (!row || !adapter?.parseInbound) return undefined;
  const channel = decryptChannel(ctx, row);
  let statusMissed = false;
  // STOP/START first: the opt-out is committed before the message that carried it (and its bot reply).
  const events = adapter.parseInbound(payload.payload);
  events.sort((a, b) => Number(a.kind === "message") - Number(b.kind === "message"));
  for (const event of events) {
    if (event.kind === "message") await receiveMessage(ctx, row, channel, adapter, event, job);
    else if (event.kind === "status") {
      const found = await ctx.db.write(async (trx) => {
        const at = Date.now();
        const error = event.error
          ? errorJson({
              statusCode: null,
              errorClass: "provider_status",
              message: event.error.message.includes(event.error.code)
                ? event.error.message
                : `${event.error.code}: ${event.error.message}`,
              responseBody: null,
              at,
            })
          : null;
        const hit = await applyProviderStatus(
          trx,
          accountId,
          event.providerMessageId,
          event.status,
          error,
          at,
        );
        if (hit?.changed) conversationChanged(trx, accountId, hit.conversationId);
        return hit !== undefined;
      });
      if (!found) statusMissed = true;
    } else {
      const at = event.kind === "opt_out" ? Date.now() : null;
      await ctx.db.write(async (trx) => {
        // STOP may be a number's very first text: its contact is made here, so the opt-out holds.
        if (at !== null) {
          await findOrCreateContactByPhone(trx, accountId, {
            phone: event.phone,
            firstName: null,
            lastName: null,
          });
        }
        await setSmsOptOut(trx, accountId, event.phone, at);
      });
    }
  }
  // A status for a reply whose send has not committed yet (or that Parley never sent): look again a
  // few times, then let it go.
  if (statusMissed && job.attempt <= STATUS_RETRIES) {
    return { retryAt: Date.now() + STATUS_RETRY_MS, error: "status for a message not known yet" };
  }
  return undefined;
}

async function receiveMessage(
  ctx: AppContext,
  row: ChannelRow,
  channel: DecryptedChannel,
  adapter: ChannelAdapter,
  event: Extract<InboundEvent, { kind: "message" }>,
  job: JobContext,
): Promise<void> {
  const accountId = row.account_id;
  // A repeated delivery (or a rerun job) finds the message stored: no second media fetch.
  if (await findMessageByExternalId(ctx.db.kysely, accountId, event.externalId)) return;
  const contactId = await ctx.db.write(async (trx) => {
    const { phone, externalId, firstName = null, lastName = null } = event.contact;
    if (phone) return (await findOrCreateContactByPhone(trx, accountId, { phone, firstName, lastName })).id;
    if (!externalId) throw new Error(`${row.type} event without a contact key`);
    const found = await findOrCreateContactByExternalId(trx, accountId, {
      externalId,
      phone: null,
      firstName,
      lastName,
      email: null,
    });
    return found.contact.id;
  });
  let body = event.body;
  let media: { contentType: string; size: number; sha256: string } | null = null;
  if (event.media && adapter.fetchMedia) {
    try {
      const file = await adapter.fetchMedia(ctx, channel, event.media);
      const checked = await sniff(file.bytes, event.media.contentType ?? file.contentType);
      if (checked.ok) {
        const blob = await storeBlob(ctx.storage, file.bytes, checked.contentType);
        media = { contentType: checked.contentType, size: blob.size, sha256: blob.sha256 };
      } else {
        body = withNote(body, `[attachment refused: ${checked.reason}]`);
      }
    } catch (err) {
      // The provider's file server may be down for a moment: the job tries again, and on its last
      // attempt keeps the message without its attachment rather than losing the message.
      if (job.attempt < job.maxAttempts) throw err;
      job.log.warn({ err, channelId: row.id }, "attachment could not be fetched");
      body = withNote(body, "[attachment could not be fetched from the provider]");
    }
  }
  if (body.trim() === "" && !media) return;
  await acceptChannelMessage(ctx, row, {
    contactId,
    fromId: event.address,
    externalId: event.externalId,
    body,
    media,
    botReply: !event.providerKeyword,
  });
}

function withNote(body: string, note: string): string {
  return body.trim() === "" ? note : `${body}\n${note}`;
}

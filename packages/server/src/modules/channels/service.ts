// Channel rules: create/read/update/delete with each type's validation, secrets sealed at rest and
// masked in every answer, and the incoming side every built-in channel shares (acceptChannelMessage).
import type { Config } from "../../config.ts";
import type { AppContext } from "../../context.ts";
import type { ChannelRow, ChannelStatus, ChannelType } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { decodeCursor, toPage } from "../../platform/pagination.ts";
import { loadSecretKey, maskSecret, SecretBox } from "../../platform/secrets.ts";
import { iso } from "../../platform/text.ts";
import { findCampaign } from "../campaigns/repo.ts";
import { acceptChannelIncoming } from "../messaging/service.ts";
import { adapterOf } from "./adapters/index.ts";
import type { ChannelAdapter, DecryptedChannel } from "./adapters/types.ts";
import * as repo from "./repo.ts";

// ---- secrets ------------------------------------------------------------------------------------

/** This app's secret box (the key is read, or generated into DATA_DIR, once per app). */
export function secretBox(ctx: AppContext): SecretBox {
  return ctx.caches.get("channels.secretBox", () =>
    Object.assign(new SecretBox(loadSecretKey(ctx.config)), { clear: () => {} }),
  );
}

export function decryptChannel(ctx: AppContext, row: ChannelRow): DecryptedChannel {
  const { config, secrets, ...rest } = row;
  return {
    ...rest,
    config: JSON.parse(config) as Record<string, unknown>,
    secrets: secrets ? secretBox(ctx).open<Record<string, unknown>>(secrets) : {},
  };
}

// ---- views --------------------------------------------------------------------------------------

/**
 * PUBLIC_URL when set (config.publicUrl), else https://localhost:<PORT>: every link a channel shows
 * (the inbound URL, the widget snippet) starts with it.
 */
export function publicUrlOf(config: Config): string {
  const set = (config as Config & { publicUrl?: string | null }).publicUrl;
  return (set ?? `https://localhost:${config.port}`).replace(/\/+$/, "");
}

export function channelView(config: Config, ch: DecryptedChannel) {
  const base = publicUrlOf(config);
  const masked: Record<string, unknown> = { ...ch.config };
  for (const [key, value] of Object.entries(ch.secrets)) {
    masked[key] = typeof value === "string" ? maskSecret(value) : "••••";
  }
  return {
    id: ch.id,
    type: ch.type,
    name: ch.name,
    status: ch.status,
    lastError: ch.last_error,
    campaignId: ch.campaign_id,
    config: masked,
    inboundUrl: ch.type === "web" ? null : `${base}/v1/channels/${ch.id}/inbound`,
    embedSnippet:
      ch.type === "web" ? `<script src="${base}/widget.js" data-channel="${ch.id}" async></script>` : null,
    createdAt: iso(ch.created_at),
    updatedAt: iso(ch.updated_at),
  };
}

export type ChannelView = ReturnType<typeof channelView>;

// ---- reads --------------------------------------------------------------------------------------

export async function requireChannel(ctx: AppContext, accountId: string, channelId: string) {
  const row = await repo.findChannel(ctx.db.kysely, accountId, channelId);
  if (!row) throw new AppError("CHANNEL_NOT_FOUND", `No channel with id ${channelId}`);
  return row;
}

export async function getChannel(ctx: AppContext, accountId: string, channelId: string) {
  return channelView(ctx.config, decryptChannel(ctx, await requireChannel(ctx, accountId, channelId)));
}

export async function pageChannels(
  ctx: AppContext,
  accountId: string,
  query: { limit?: number; cursor?: string },
) {
  const limit = query.limit ?? 50;
  const rows = await repo.listChannels(ctx.db.kysely, accountId, decodeCursor(query.cursor), limit + 1);
  return toPage(
    rows,
    limit,
    (r) => r.id,
    (r) => channelView(ctx.config, decryptChannel(ctx, r)),
  );
}

// ---- writes -------------------------------------------------------------------------------------

export interface CreateChannelInput {
  type: ChannelType;
  name: string;
  config?: unknown;
  campaignId?: string | null | undefined;
}

function adapterFor(type: ChannelType): ChannelAdapter {
  const adapter = adapterOf(type);
  if (!adapter) throw new AppError("VALIDATION_ERROR", `unknown channel type ${type}`);
  return adapter;
}

async function checkCampaign(ctx: AppContext, accountId: string, campaignId: string | null | undefined) {
  if (!campaignId) return;
  if (!(await findCampaign(ctx.db.kysely, accountId, campaignId))) {
    throw new AppError("CAMPAIGN_NOT_FOUND", `campaign ${campaignId} not found`);
  }
}

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "") throw new AppError("VALIDATION_ERROR", "name must not be empty");
  return trimmed;
}

export async function createChannel(ctx: AppContext, accountId: string, input: CreateChannelInput) {
  const adapter = adapterFor(input.type);
  const name = cleanName(input.name);
  const parsed = adapter.parseConfig(input.config);
  await checkCampaign(ctx, accountId, input.campaignId);
  const row = await storeChannel(ctx, accountId, {
    type: input.type,
    name,
    campaignId: input.campaignId ?? null,
    ...parsed,
  });
  await connect(ctx, adapter, row);
  return getChannel(ctx, accountId, row.id);
}

/**
 * Tells the provider where to post (Telegram's setWebhook). A refusal does not undo the channel: it is
 * kept with status `error` and the provider's reason, so the person can fix the token and resume it.
 */
async function connect(ctx: AppContext, adapter: ChannelAdapter, row: ChannelRow): Promise<void> {
  if (!adapter.connect) return;
  const channel = decryptChannel(ctx, row);
  const inboundUrl = channelView(ctx.config, channel).inboundUrl;
  if (!inboundUrl) return;
  try {
    await adapter.connect(ctx, channel, inboundUrl);
    if (row.status === "error") await setStatus(ctx, row.account_id, row.id, "active", null);
  } catch (err) {
    const reason = err instanceof AppError ? err.message : "the provider could not be reached";
    if (!(err instanceof AppError)) ctx.log.warn({ err, channelId: row.id }, "channel connect failed");
    await setStatus(ctx, row.account_id, row.id, "error", reason);
  }
}

async function setStatus(
  ctx: AppContext,
  accountId: string,
  channelId: string,
  status: ChannelStatus,
  lastError: string | null,
): Promise<void> {
  await ctx.db.write((trx) => repo.setChannelStatus(trx, accountId, channelId, status, lastError));
}

/** A provider refused the channel's credentials: the channel turns `error` with the provider's words. */
export async function markChannelError(
  ctx: AppContext,
  accountId: string,
  channelId: string,
  reason: string,
): Promise<void> {
  await setStatus(ctx, accountId, channelId, "error", reason.slice(0, 500));
}

/**
 * The one place a channel row is written from parsed settings: the secrets are sealed here, so the
 * database never holds them in clear.
 */
async function storeChannel(
  ctx: AppContext,
  accountId: string,
  c: {
    type: ChannelType;
    name: string;
    campaignId: string | null;
    config: Record<string, unknown>;
    secrets: Record<string, unknown>;
  },
): Promise<ChannelRow> {
  const now = Date.now();
  const row: ChannelRow = {
    id: newId("channel"),
    account_id: accountId,
    type: c.type,
    name: c.name,
    status: "active",
    last_error: null,
    campaign_id: c.campaignId,
    config: JSON.stringify(c.config),
    secrets: Object.keys(c.secrets).length > 0 ? secretBox(ctx).seal(c.secrets) : null,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.write((trx) => repo.insertChannel(trx, row));
  return row;
}

export interface UpdateChannelInput {
  name?: string | undefined;
  config?: unknown;
  campaignId?: string | null | undefined;
  /** A person pauses or resumes a channel; `error` is Parley's to set. */
  status?: Exclude<ChannelStatus, "error"> | undefined;
}

export async function updateChannel(
  ctx: AppContext,
  accountId: string,
  channelId: string,
  input: UpdateChannelInput,
) {
  const current = decryptChannel(ctx, await requireChannel(ctx, accountId, channelId));
  const adapter = adapterFor(current.type);
  const name = input.name === undefined ? undefined : cleanName(input.name);
  const parsed =
    input.config === undefined
      ? undefined
      : adapter.parseConfig(input.config, { config: current.config, secrets: current.secrets });
  await checkCampaign(ctx, accountId, input.campaignId);
  const now = Date.now();
  await ctx.db.write((trx) =>
    repo.updateChannel(trx, accountId, channelId, {
      ...(name !== undefined ? { name } : {}),
      ...(parsed
        ? {
            config: JSON.stringify(parsed.config),
            secrets: Object.keys(parsed.secrets).length > 0 ? secretBox(ctx).seal(parsed.secrets) : null,
          }
        : {}),
      ...(input.campaignId !== undefined ? { campaign_id: input.campaignId } : {}),
      // Resuming clears the last error too; pausing keeps it visible.
      ...(input.status === "active" ? { status: "active", last_error: null } : {}),
      ...(input.status === "paused" ? { status: "paused" } : {}),
      updated_at: now,
    }),
  );
  // New credentials, or a resume after an error: the provider is told again (and may refuse again).
  if (parsed || input.status === "active") {
    await connect(ctx, adapter, await requireChannel(ctx, accountId, channelId));
  }
  return getChannel(ctx, accountId, channelId);
}

export async function deleteChannel(ctx: AppContext, accountId: string, channelId: string): Promise<void> {
  const row = await requireChannel(ctx, accountId, channelId);
  const adapter = adapterOf(row.type);
  if (adapter?.disconnect) {
    // Best effort: a provider that cannot be reached does not keep a channel the person wants gone.
    await adapter.disconnect(ctx, decryptChannel(ctx, row)).catch((err: unknown) => {
      ctx.log.warn({ err, channelId }, "channel disconnect failed");
    });
  }
  const deleted = await ctx.db.write((trx) => repo.deleteChannel(trx, accountId, channelId));
  if (!deleted) throw new AppError("CHANNEL_NOT_FOUND", `No channel with id ${channelId}`);
}

// ---- incoming -----------------------------------------------------------------------------------

export interface ChannelMessageInput {
  contactId: string;
  /** The contact's external id (`web:<visitorId>` for a widget visitor), stored as the message's from. */
  fromId?: string;
  /** The channel's own message id, unique per account: prefixed by the channel, e.g. `web:<uuid>`. */
  externalId: string;
  body: string;
  /** An attachment already sniffed and stored in the blob store (messaging/media/store.ts). */
  media?: { contentType: string; size: number; sha256: string } | null;
  /** When the channel received it (unused for ordering today: messages are stored at commit time). */
  at?: number;
  /** False: the bot does not answer it (an SMS keyword the provider answers itself). */
  botReply?: boolean;
}

/**
 * A message a built-in channel received: the conversation (account, contact, channel) upserted, with
 * the channel's campaign when set, the message stored idempotently on externalId (a duplicate answers
 * the original id), the bot job queued, in one transaction (messaging's incoming rules).
 */
export async function acceptChannelMessage(
  ctx: AppContext,
  channel: Pick<ChannelRow, "id" | "account_id" | "campaign_id">,
  input: ChannelMessageInput,
): Promise<{ messageId: string; conversationId: string; duplicate: boolean }> {
  return acceptChannelIncoming(ctx, channel.account_id, {
    contactId: input.contactId,
    channelId: channel.id,
    campaignId: channel.campaign_id,
    externalId: input.externalId,
    fromId: input.fromId ?? input.contactId,
    body: input.body,
    media: input.media ?? null,
    botReply: input.botReply ?? true,
  });
}

// ---- outgoing -----------------------------------------------------------------------------------

/**
 * For the delivery job: the built-in channel a conversation belongs to, decrypted, with its adapter;
 * undefined when the channel is gone (deleted) or its type has no adapter.
 */
export async function channelForDelivery(
  ctx: AppContext,
  accountId: string,
  channelId: string,
): Promise<{ channel: DecryptedChannel; adapter: ChannelAdapter } | undefined> {
  const row = await repo.findChannel(ctx.db.kysely, accountId, channelId);
  const adapter = row ? adapterOf(row.type) : undefined;
  if (!row || !adapter) return undefined;
  return { channel: decryptChannel(ctx, row), adapter };
}

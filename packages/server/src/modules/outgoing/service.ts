// Outgoing campaigns: a campaign's first message to every member of a list, each on the custom channel
// label it is known on (the campaign's label only for members without one; neither: skipped, with the
// reason stored). A job sends the members of one tick (at most 10 s, and half a job lease) paced evenly
// at the campaign's rate per minute (at most OUTGOING_MAX_PER_MINUTE), in transactions that re-read the
// campaign's state, write each member's send row (unique per campaign and contact), take the credit
// where metering applies, and queue the message on the normal delivery path: one member per
// transaction, or the members of one 50 ms slot at fast rates. Pausing stops the next slot at once;
// resuming, or a restart, never sends anyone the first message twice.
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import {
  activeJobsOf,
  defineJob,
  enqueueJobs,
  type JobContext,
  type JobResult,
} from "../../platform/jobs.ts";
import { decodeCursor, toPage } from "../../platform/pagination.ts";
import { iso } from "../../platform/text.ts";
import {
  type BusinessHours,
  hoursPlaceholders,
  isOpen,
  loadBusinessHours,
  nextOpening,
} from "../accounts/business-hours.ts";
import { findAccountById } from "../accounts/repo.ts";
import { parseFollowUps, scheduleFollowUp } from "../bot/follow-ups.ts";
import { followUpFigures } from "../bot/repo.ts";
import { outgoingOf, requireCampaign } from "../bot/service.ts";
import * as campaigns from "../campaigns/repo.ts";
import { findChannel } from "../channels/repo.ts";
import { render } from "../contacts/placeholders.ts";
import {
  findConversationOnChannel,
  findOrCreateConversation,
  setConversationCampaign,
} from "../conversations/repo.ts";
import { debit } from "../credits/ledger.ts";
import { createOutboundMessage } from "../delivery/outbound.ts";
import { notify } from "../notifications/service.ts";
import * as repo from "./repo.ts";

export const TICK_MS = 10_000;
/**
 * A campaign held to business hours while closed checks the hours again at least this often, so a
 * change of the hours (or of onlyInHours) is seen without waiting for the opening it computed.
 */
const HOURS_RECHECK_MS = 60_000;
/** At rates above one member per SLOT_MS, the members due within one slot share a transaction. */
const SLOT_MS = 50;

const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
/** One first message costs one credit (hundredths) where metering applies. */
const FIRST_MESSAGE_COST = 100;

export const outgoingJob = defineJob(
  "outgoing.send",
  Type.Object({
    campaignId: Type.String({ minLength: 1 }),
    /** When the tick's first member is due (the previous tick's pace); absent: now. */
    at: Type.Optional(Type.Number()),
  }),
  { subject: (p) => p.campaignId },
);

class Stop extends Error {
  readonly reason: "paused" | "out_of_credits";
  constructor(reason: "paused" | "out_of_credits") {
    super(reason);
    this.reason = reason;
  }
}

/** An outgoing campaign finished or paused: its owners and admins are told (and the events webhook). */
async function tellCampaignState(
  trx: Parameters<typeof notify>[0],
  accountId: string,
  campaignId: string,
  name: string | null,
  what: "done" | "paused" | "out_of_credits",
): Promise<void> {
  const label = name ? `"${name}"` : "An outgoing campaign";
  const sentence = {
    done: ["finished", "Every member of its list got its first message."],
    paused: ["was paused", "A person paused it; start it again from the campaign page."],
    out_of_credits: ["paused: out of credits", "It stops until credits are added, then start it again."],
  }[what];
  await notify(trx, {
    accountId,
    kind: what === "done" ? "campaign.finished" : "campaign.paused",
    title: `${label} ${sentence[0]}`,
    body: sentence[1] ?? "",
    link: `/campaigns/${campaignId}`,
    audience: "managers",
    webhook: {
      campaign_id: campaignId,
      state: what === "done" ? "done" : "paused",
      reason: what === "done" ? null : what,
    },
    at: Date.now(),
  });
}

async function ensureJob(trx: Parameters<typeof enqueueJobs>[0], accountId: string, campaignId: string) {
  const active = await activeJobsOf(trx, accountId, outgoingJob.type, campaignId);
  if (active.length === 0) await enqueueJobs(trx, [outgoingJob.create({ campaignId }, { accountId })]);
}

export async function startOutgoing(ctx: AppContext, accountId: string, campaignId: string) {
  const c = await requireCampaign(ctx.db, accountId, campaignId);
  if (!outgoingOf(c)) {
    throw new AppError("VALIDATION_ERROR", "this campaign has no outgoing message: set outgoing first");
  }
  // Also after "done": members added to the list since then get theirs (nobody gets it twice).
  await ctx.db.write(async (trx) => {
    await campaigns.setOutgoingState(trx, accountId, campaignId, "running", null);
    await ensureJob(trx, accountId, campaignId);
  });
  return outgoingStats(ctx, accountId, campaignId);
}

export async function pauseOutgoing(ctx: AppContext, accountId: string, campaignId: string) {
  const c = await requireCampaign(ctx.db, accountId, campaignId);
  if (c.outgoing_state === "running") {
    await ctx.db.write(async (trx) => {
      if (await campaigns.setOutgoingState(trx, accountId, campaignId, "paused", "paused", "running")) {
        await tellCampaignState(trx, accountId, c.id, c.name, "paused");
      }
    });
  }
  return outgoingStats(ctx, accountId, campaignId);
}

export async function outgoingStats(ctx: AppContext, accountId: string, campaignId: string) {
  const c = await requireCampaign(ctx.db, accountId, campaignId);
  const o = outgoingOf(c);
  const followUps = await followUpFigures(ctx.db.kysely, accountId, campaignId);
  const f = o
    ? await repo.sendFigures(ctx.db.kysely, accountId, campaignId, o.listId)
    : {
        members: 0,
        reached: 0,
        skipped: 0,
        noKnownChannel: 0,
        noPhone: 0,
        optedOut: 0,
        sent: 0,
        failed: 0,
        pending: 0,
        replied: 0,
      };
  let resumesAt: string | null = null;
  if (o?.onlyInHours && c.outgoing_state === "running") {
    const now = Date.now();
    const opening = nextOpening(await loadBusinessHours(ctx.db.kysely, accountId), now);
    if (opening > now) resumesAt = iso(opening);
  }
  return {
    state: c.outgoing_state,
    pausedReason: c.outgoing_reason,
    resumesAt,
    members: f.members,
    queued: Math.max(0, f.members - f.reached),
    sent: f.sent,
    pending: f.pending,
    failed: f.failed,
    skipped: f.skipped,
    // Rows from before reasons were stored are all members without a fromId.
    skippedByReason: {
      no_custom_channel_id: f.skipped - f.noKnownChannel - f.noPhone - f.optedOut,
      no_known_channel: f.noKnownChannel,
      no_phone: f.noPhone,
      opted_out: f.optedOut,
    },
    replied: f.replied,
    followUps,
  };
}

/** The members the campaign skipped, each with why, a page at a time. */
export async function skippedMembers(
  ctx: AppContext,
  accountId: string,
  campaignId: string,
  query: { limit?: number; cursor?: string },
) {
  await requireCampaign(ctx.db, accountId, campaignId);
  const limit = query.limit ?? 50;
  const rows = await repo.skippedMembers(
    ctx.db.kysely,
    accountId,
    campaignId,
    decodeCursor(query.cursor),
    limit + 1,
  );
  return toPage(
    rows,
    limit,
    (r) => r.id,
    (r) => ({
      contactId: r.id,
      firstName: r.first_name,
      lastName: r.last_name,
      phone: r.phone,
      email: r.email,
      reason: r.reason ?? ("no_custom_channel_id" as const),
      skippedAt: iso(Number(r.created_at)),
    }),
  );
}

/**
 * One tick: the next members up to the rate, each in its own transaction (several per transaction at
 * fast rates, see SLOT_MS); then the next tick.
 */
export async function sendTick(
  ctx: AppContext,
  accountId: string,
  campaignId: string,
  at?: number,
): Promise<void> {
  const db = ctx.db;
  const c = await campaigns.findCampaign(db.kysely, accountId, campaignId);
  const o = c ? outgoingOf(c) : null;
  if (!c || !o || c.outgoing_state !== "running") return;
  const account = await findAccountById(db.kysely, accountId);
  if (!account) return;
  if (account.suspended_at != null) {
    // Suspended by its agency: nothing goes out; the campaign stays running and goes on once resumed.
    await tickLater(ctx, accountId, campaignId, Date.now() + HOURS_RECHECK_MS);
    return;
  }
  const hours = await loadBusinessHours(db.kysely, accountId);
  if (o.onlyInHours && !isOpen(hours, Date.now())) {
    await waitForOpening(ctx, accountId, campaignId, hours);
    return;
  }
  const metered =
    ctx.config.botMetering === "all" ||
    (ctx.config.botMetering === "subaccounts" && account.kind === "subaccount");
  // Evenly paced: member k of this tick at start + k × interval (absolute times, so slow writes do not
  // add up), and the next tick due when its first member is.
  // A campaign saved under a higher ceiling than the server's now is sent at the ceiling.
  const interval = 60_000 / Math.min(o.ratePerMinute, ctx.config.outgoingMaxPerMinute);
  const tickMs = Math.min(TICK_MS, ctx.config.jobLeaseMs / 2);
  const perTick = Math.max(1, Math.floor(tickMs / interval));
  const members = await repo.membersNotReached(db.kysely, accountId, o.listId, campaignId, perTick);
  const followUps = parseFollowUps(c.follow_ups);
  // A campaign through a provider channel (a deleted one: its messages fail with channel_deleted).
  const viaChannel = o.channelId
    ? ((await findChannel(db.kysely, accountId, o.channelId)) ?? { id: o.channelId, type: "deleted" })
    : null;
  // Keep the previous tick's pace; a tick that starts late (a restart) starts now, without a burst.
  const now = Date.now();
  const start = at !== undefined && at > now - interval ? at : now;
  const placeholders = hoursPlaceholders(hours, now);
  type Member = (typeof members)[number];
  /** One member's send row (and message, debit) inside the caller's transaction. */
  const sendOne = async (
    trx: Parameters<Parameters<typeof db.write>[0]>[0],
    contact: Member,
    name: string,
  ) => {
    const now = Date.now();
    if (viaChannel) {
      await sendOnChannel(trx, contact, name, viaChannel, now);
      return;
    }
    // A member last heard on a built-in channel (the website chat) gets it in that conversation,
    // through the channel's adapter: never through the custom webhook under a label it never used.
    if (contact.built_in_conversation_id) {
      if (!(await repo.claimSend(trx, accountId, campaignId, contact.id, "sent", now))) return;
      await sendFirstMessage(trx, contact, name, contact.built_in_conversation_id, null, now);
      return;
    }
    // Each member on the channel it is known on; the campaign's label only where it has none.
    const channel = contact.known_channel ?? o.channel ?? null;
    const skip = !contact.external_id
      ? ("no_custom_channel_id" as const)
      : channel === null
        ? ("no_known_channel" as const)
        : null;
    if (skip) {
      await repo.claimSend(trx, accountId, campaignId, contact.id, "skipped", now, skip);
      return;
    }
    if (!(await repo.claimSend(trx, accountId, campaignId, contact.id, "sent", now))) return;
    const { conversation } = await findOrCreateConversation(trx, accountId, contact.id, channel, now);
    await sendFirstMessage(trx, contact, name, conversation.id, channel, now);
  };
  /**
   * A campaign through a provider channel: each member in its conversation there. Phone channels reach
   * anyone with a phone (SMS not after STOP); the others only people who wrote there before.
   */
  const sendOnChannel = async (
    trx: Parameters<Parameters<typeof db.write>[0]>[0],
    contact: Member,
    name: string,
    channel: { id: string; type: string },
    now: number,
  ) => {
    const byPhone = channel.type === "whatsapp" || channel.type === "twilio_sms";
    let skip: "no_phone" | "opted_out" | "no_known_channel" | null = null;
    if (byPhone && !contact.phone) skip = "no_phone";
    else if (channel.type === "twilio_sms" && contact.sms_opted_out_at != null) skip = "opted_out";
    else if (!byPhone && !(await findConversationOnChannel(trx, accountId, contact.id, channel.id)))
      skip = "no_known_channel";
    if (skip) {
      await repo.claimSend(trx, accountId, campaignId, contact.id, "skipped", now, skip);
      return;
    }
    if (!(await repo.claimSend(trx, accountId, campaignId, contact.id, "sent", now))) return;
    const { conversation } = await findOrCreateConversation(
      trx,
      accountId,
      contact.id,
      null,
      now,
      channel.id,
    );
    await sendFirstMessage(trx, contact, name, conversation.id, null, now);
  };
  /** The first message in the member's conversation, paid for when metered, with its send row. */
  const sendFirstMessage = async (
    trx: Parameters<Parameters<typeof db.write>[0]>[0],
    contact: Member,
    name: string,
    conversationId: string,
    channel: string | null,
    now: number,
  ) => {
    const message = await createOutboundMessage(trx, accountId, {
      sender: "bot",
      channel,
      toId: contact.external_id,
      campaignId,
      conversationId,
      contactId: contact.id,
      body: render(o.message, contact, placeholders),
      template: o.template
        ? {
            ...o.template,
            parameters: o.template.parameters.map((p) => render(p, contact, placeholders)),
          }
        : null,
      at: now,
    });
    if (metered) {
      const paid = await debit(trx, accountId, {
        amount: FIRST_MESSAGE_COST,
        kind: "bot_reply",
        messageId: message.id,
        description: `Outgoing campaign first message (${name})`,
      });
      // Rolls the transaction back: nobody gets a message the account could not pay for.
      if (!paid) throw new Stop("out_of_credits");
    }
    await repo.setSendMessage(trx, accountId, campaignId, contact.id, message.id);
    await setConversationCampaign(trx, accountId, conversationId, campaignId);
    // A member who does not answer gets the campaign's follow-ups, as after a bot reply: the clock
    // starts at the first message, in its transaction (once: the send row is claimed once).
    await scheduleFollowUp(trx, accountId, {
      conversationId,
      campaignId,
      step: 1,
      afterMessageId: message.id,
      at: now,
      steps: followUps,
    });
  };
  /** A slot's members in one transaction that first re-reads the campaign's state (a pause stops it). */
  const sendSlot = (slot: Member[]) =>
    db.write(async (trx) => {
      const current = await campaigns.findCampaign(trx, accountId, campaignId);
      if (current?.outgoing_state !== "running") throw new Stop("paused");
      for (const contact of slot) await sendOne(trx, contact, current.name);
    });
  // At fast rates one commit per member cannot keep up (PostgreSQL ~85 a second here): members due
  // within SLOT_MS of each other share a transaction, sent at the slot's first member's time.
  const perSlot = Math.max(1, Math.floor(SLOT_MS / interval));
  /** Members this tick reached (fewer than fetched when the business closed during the tick). */
  let reached = members.length;
  try {
    for (let k = 0; k < members.length; k += perSlot) {
      const slot = members.slice(k, k + perSlot);
      await sleepUntil(start + k * interval);
      if (o.onlyInHours && !isOpen(hours, Date.now())) {
        reached = k;
        break;
      }
      try {
        await sendSlot(slot);
      } catch (err) {
        // Out of credits within a shared slot: its members again one by one, so those the account
        // can still pay for are sent and the one it cannot pauses the campaign.
        if (!(err instanceof Stop && err.reason === "out_of_credits" && slot.length > 1)) throw err;
        for (const contact of slot) await sendSlot([contact]);
      }
    }
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    if (err.reason === "out_of_credits") {
      await db.write(async (trx) => {
        if (
          await campaigns.setOutgoingState(trx, accountId, campaignId, "paused", "out_of_credits", "running")
        ) {
          await tellCampaignState(trx, accountId, campaignId, c.name, "out_of_credits");
        }
      });
    }
    return;
  }
  if (reached < members.length) {
    await waitForOpening(ctx, accountId, campaignId, hours);
    return;
  }
  await db.write(async (trx) => {
    const current = await campaigns.findCampaign(trx, accountId, campaignId);
    if (current?.outgoing_state !== "running") return;
    if (members.length < perTick) {
      // Everyone on the list now was reached (members added later: start it again).
      const left = await repo.membersNotReached(trx, accountId, o.listId, campaignId, 1);
      if (left.length === 0) {
        if (await campaigns.setOutgoingState(trx, accountId, campaignId, "done", null, "running")) {
          await tellCampaignState(trx, accountId, campaignId, c.name, "done");
        }
        return;
      }
    }
    // Claimable half a second early: the next tick waits for its first member's time itself, so the
    // worker's polling (every 250 ms) adds no gap between ticks.
    const next = start + members.length * interval;
    await enqueueJobs(trx, [
      outgoingJob.create({ campaignId, at: next }, { accountId, runAt: Math.max(Date.now(), next - 500) }),
    ]);
  });
}

/**
 * Closed, on a campaign held to business hours: the next tick at the next opening (or sooner, to look
 * at the hours again), if the campaign is still running. The campaign stays "running".
 */
async function waitForOpening(
  ctx: AppContext,
  accountId: string,
  campaignId: string,
  hours: BusinessHours | null,
): Promise<void> {
  const now = Date.now();
  const opening = nextOpening(hours, now);
  await tickLater(ctx, accountId, campaignId, Math.min(opening, now + HOURS_RECHECK_MS), opening);
}

/** The next tick at runAt (carrying `at` when it is the member's due time), if still running. */
async function tickLater(
  ctx: AppContext,
  accountId: string,
  campaignId: string,
  runAt: number,
  opening?: number,
): Promise<void> {
  await ctx.db.write(async (trx) => {
    const current = await campaigns.findCampaign(trx, accountId, campaignId);
    if (current?.outgoing_state !== "running") return;
    await enqueueJobs(trx, [
      outgoingJob.create(runAt === opening ? { campaignId, at: opening } : { campaignId }, {
        accountId,
        runAt,
      }),
    ]);
  });
}

export function outgoingHandler(ctx: AppContext) {
  return async (payload: { campaignId: string; at?: number }, job: JobContext): Promise<JobResult> => {
    if (!job.accountId) return { dead: true, error: "outgoing.send job without an account" };
    await sendTick(ctx, job.accountId, payload.campaignId, payload.at);
    return undefined;
  };
}

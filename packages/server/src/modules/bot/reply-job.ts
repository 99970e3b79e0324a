// The `bot.reply` job: one inbound text message in, at most one bot reply out.
//
// At-least-once safe: the reply carries external_id "bot:<inbound id>" (unique per account), is checked
// before and inside the writing transaction, and a unique violation from a concurrent twin counts as
// done. The reply, its credit debit, the conversation's campaign and any human alert are one transaction.
// The fallback goes out once per unanswered run: while the last one still waits for an answer (a
// person's or the bot's), further unanswerable messages only keep the human alert up.

import type { Transaction } from "kysely";
import type { AppContext } from "../../context.ts";
import { isUniqueViolation } from "../../platform/db/index.ts";
import type {
  AccountRow,
  CampaignRow,
  ConversationRow,
  Database,
  MessageRow,
} from "../../platform/db/schema.ts";
import { newId } from "../../platform/ids.ts";
import {
  type BatchJobHandler,
  enqueueJobs,
  finishJobsIn,
  type JobContext,
  type JobHandler,
} from "../../platform/jobs.ts";
import { iso, oneLine } from "../../platform/text.ts";
import {
  type BusinessHours,
  hoursPlaceholders,
  isOpen,
  loadBusinessHours,
  nextOpening,
} from "../accounts/business-hours.ts";
import { findAccountById } from "../accounts/repo.ts";
import * as campaignRepo from "../campaigns/repo.ts";
import { render } from "../contacts/placeholders.ts";
import { findContactById } from "../contacts/repo.ts";
import * as conversations from "../conversations/repo.ts";
import { debit } from "../credits/ledger.ts";
import {
  createOutboundMessage,
  createOutboundMessages,
  type OutboundMessageInput,
} from "../delivery/outbound.ts";
import { findMessageByExternalId } from "../messaging/repo.ts";
import { type Suggestion, suggestionsOf } from "../messaging/suggestions.ts";
import { notify } from "../notifications/service.ts";
import { choicesMessage, readPick, suggestionsFrom } from "./choices.ts";
import { type CachedEngine, knowledgeOf } from "./engine-cache.ts";
import {
  DEFAULT_LLM_TIMEOUT_MS,
  type FunctionRun,
  functionOutputForModel,
  generateLlmReply,
  HISTORY_MESSAGES,
  KNOWLEDGE_PASSAGES,
  LIMIT_REACHED,
  type LlmFunctions,
  type LlmUsage,
  resolveLlmTarget,
} from "./engine-llm.ts";
import { parseFollowUps, scheduleFollowUp } from "./follow-ups.ts";
import {
  argumentErrors,
  type BotFunction,
  callFunction,
  FUNCTION_LIMITS,
  parseFunctions,
  shorten,
} from "./functions.ts";
import { asksForPerson, FUNCTION_FAILURE_MESSAGE, HANDOVER_MESSAGE } from "./handover.ts";
import * as repo from "./repo.ts";
import { chooseCampaign } from "./routing.ts";
import { summaryJob } from "./summary.ts";

// The job type is the messaging module's: it enqueues one for every inbound text.
export { BOT_REPLY_JOB, botReplyJob } from "../messaging/jobs.ts";
export const HUMAN_ALERT_EVENT = "conversation.human_alert" as const;
/** Replies longer than an inbound message may be are cut (a runaway model must not store megabytes). */
const MAX_REPLY_CHARS = 10_000;

export type AlertReason =
  | "no_answer"
  | "llm_error"
  | "llm_not_configured"
  | "out_of_credits"
  /** A custom function the LLM called failed (error, timeout, blocked address). */
  | "function_error"
  /** The customer asked for a person: the bot handed over and paused itself. */
  | "human_requested"
  /** Outside business hours on a campaign with an away message: the bot did not answer. */
  | "outside_hours";

export type SkipReason =
  | "message_not_found"
  | "not_inbound_text"
  | "already_replied"
  | "account_bot_off"
  | "contact_bot_off"
  | "conversation_paused"
  | "no_campaign"
  | "campaign_not_live"
  /** The fallback already went out in this conversation and nobody has answered since (alert kept). */
  | "fallback_already_sent"
  /** Outside business hours, the away message already went out in this closed period (alert kept). */
  | "away_already_sent";

export type BotOutcome =
  | {
      action: "replied";
      replyId: string;
      campaignId: string;
      engine: "builtin" | "llm";
      alert: AlertReason | null;
      debited: number;
    }
  | { action: "skipped"; reason: SkipReason }
  | { action: "alerted"; reason: "out_of_credits"; campaignId: string }
  | { action: "away"; messageId: string; campaignId: string; debited: number };

export interface BotOptions {
  /** Total time for one LLM reply including its retry (tests shorten it). */
  llmTimeoutMs?: number;
}

class OutOfCredits extends Error {}

function switchesBlock(sw: conversations.BotSwitches): SkipReason | null {
  if (!sw.accountActive) return "account_bot_off";
  if (!sw.contactActive) return "contact_bot_off";
  if (sw.conversationPaused) return "conversation_paused";
  return null;
}

export function botReplyHandler(
  ctx: AppContext,
  options: BotOptions = {},
): JobHandler<{ messageId: string }> {
  return async ({ messageId }, job: JobContext) => {
    const outcome = await runBotReply(ctx, messageId, { ...options, accountId: job.accountId, log: job.log });
    job.log.debug({ messageId, outcome }, "bot.reply done");
    return undefined;
  };
}

/** The worker's batch handler: replies claimed together (see runBotReplies). */
export function botReplyBatchHandler(
  ctx: AppContext,
  options: BotOptions = {},
): BatchJobHandler<{ messageId: string }> {
  return async (jobs) => {
    const settled = await runBotReplies(
      ctx,
      jobs.map(({ payload, ctx: job }) => ({ messageId: payload.messageId, job })),
      options,
    );
    return settled.map((s, i) => {
      if (s.status === "rejected") return s;
      jobs[i]?.ctx.log.debug({ messageId: jobs[i]?.payload.messageId, outcome: s.value }, "bot.reply done");
      return { status: "fulfilled", value: undefined };
    });
  };
}

const ALERT_WHY: Record<AlertReason, string> = {
  no_answer: "The bot had no answer to the customer's question.",
  llm_error: "The bot's language model failed to answer.",
  llm_not_configured: "The campaign uses the LLM engine, but no LLM is configured.",
  out_of_credits: "The account is out of credits, so the bot could not answer.",
  function_error: "A function the bot called failed.",
  human_requested: "The customer asked to talk to a person.",
  outside_hours: "The customer wrote outside business hours and got the away message.",
};

/**
 * Sets the alert; only the call that raised it tells people (the bell, e-mail, the events webhook),
 * at once or, outside business hours, at the next opening.
 */
async function raiseAlert(
  trx: Parameters<typeof conversations.raiseHumanAlert>[0],
  account: AccountRow,
  conversation: ConversationRow,
  reason: AlertReason,
  inboundId: string,
  at: number,
): Promise<boolean> {
  const raised = await conversations.raiseHumanAlert(trx, account.id, conversation.id, reason, at);
  if (!raised) return false;
  const contact = await findContactById(trx, account.id, conversation.contact_id);
  const who =
    [contact?.first_name, contact?.last_name].filter(Boolean).join(" ") ||
    contact?.phone ||
    contact?.email ||
    "A customer";
  await notify(trx, {
    accountId: account.id,
    kind: HUMAN_ALERT_EVENT,
    title: `${who} needs a human`,
    body: ALERT_WHY[reason],
    link: `/inbox/${conversation.id}`,
    ...(conversation.assignee_id ? { userIds: [conversation.assignee_id] } : {}),
    audience: "team",
    webhook: {
      conversation_id: conversation.id,
      contact_id: conversation.contact_id,
      reason,
      message_id: inboundId,
      created_at: iso(at),
    },
    at,
  });
  return true;
}

/** What one reply reads through: direct look-ups for one job, remembered ones for a batch. */
interface ReplyLookups {
  account(accountId: string): Promise<AccountRow | undefined>;
  conversation(
    accountId: string,
    conversationId: string,
  ): Promise<conversations.ConversationWithSwitches | undefined>;
  routing(accountId: string): Promise<campaignRepo.RoutingCandidate[]>;
  campaign(accountId: string, campaignId: string): Promise<CampaignRow | undefined>;
  hours(accountId: string): Promise<BusinessHours | null>;
  knowledge(campaign: CampaignRow): Promise<CachedEngine>;
}

function directLookups(ctx: AppContext): ReplyLookups {
  const db = ctx.db.kysely;
  return {
    account: (id) => findAccountById(db, id),
    conversation: (accountId, id) => conversations.findConversationWithSwitches(db, accountId, id),
    routing: (accountId) => campaignRepo.routingCandidates(db, accountId),
    campaign: (accountId, id) => campaignRepo.findCampaign(db, accountId, id),
    hours: (accountId) => loadBusinessHours(db, accountId),
    knowledge: (campaign) => knowledgeOf(ctx, campaign),
  };
}

/** A reply decided and generated, ready to be written. */
interface ReplyPlan {
  inbound: MessageRow;
  account: AccountRow;
  conversation: ConversationRow;
  campaign: CampaignRow;
  engine: "builtin" | "llm";
  cost: number;
  generated: Generated;
  body: string;
}

export async function runBotReply(
  ctx: AppContext,
  messageId: string,
  options: BotOptions & { accountId?: string | null; log?: AppContext["log"] } = {},
): Promise<BotOutcome> {
  // Few statements: the message with its past (twin reply, outgoing campaign, pending choices) in one
  // read, then the account and the conversation with its switches side by side.
  const input = await repo.readReplyInput(ctx.db.kysely, messageId);
  const prepared = await prepareReply(ctx, input, options, directLookups(ctx));
  return "done" in prepared ? prepared.done : writeReply(ctx, prepared.plan);
}

/**
 * Everything before the reply's write: the checks (each a skip), routing, credits, business hours (the
 * away message and the out-of-credits alert are written here, they are rare) and the answer itself.
 */
async function prepareReply(
  ctx: AppContext,
  input: repo.ReplyInput | undefined,
  options: BotOptions & { accountId?: string | null; log?: AppContext["log"] },
  lookups: ReplyLookups,
): Promise<{ done: BotOutcome } | { plan: ReplyPlan }> {
  const { db, config } = ctx;
  const log = options.log ?? ctx.log;
  const skip = (reason: SkipReason) => ({ done: { action: "skipped" as const, reason } });
  if (!input || (options.accountId && input.message.account_id !== options.accountId)) {
    return skip("message_not_found");
  }
  const inbound = input.message;
  // Reactions and outbound messages never reach the bot, whoever queued the job.
  if (inbound.direction !== "inbound" || inbound.type !== "text") return skip("not_inbound_text");
  const accountId = inbound.account_id;
  if (input.replied) return skip("already_replied");
  const [account, found] = await Promise.all([
    lookups.account(accountId),
    lookups.conversation(accountId, inbound.conversation_id),
  ]);
  if (!account || !found) return skip("message_not_found");
  const { conversation, switches } = found;
  const blocked = switchesBlock(switches);
  if (blocked) return skip(blocked);

  const route = chooseCampaign(
    await lookups.routing(accountId),
    { campaignId: inbound.campaign_id, body: inbound.body },
    input.outgoingCampaignId,
  );
  const campaign = route ? await lookups.campaign(accountId, route.campaignId) : undefined;
  if (!campaign) return skip("no_campaign");
  if (campaign.status !== "live") {
    await db.write((trx) =>
      conversations.setConversationCampaign(trx, accountId, conversation.id, campaign.id),
    );
    return skip("campaign_not_live");
  }

  const target = resolveLlmTarget(account, config, campaign.model);
  const engine: "builtin" | "llm" =
    campaign.engine === "auto" ? (target ? "llm" : "builtin") : campaign.engine;
  // Accounts that bring their own LLM key never pay; otherwise BOT_METERING says who does.
  const free = engine === "llm" && target !== null && target.ownLlm;
  const metered =
    config.botMetering === "all" || (config.botMetering === "subaccounts" && account.kind === "subaccount");
  const cost = free || !metered ? 0 : Math.round(config.botReplyCost * 100);

  if (cost > 0 && account.credits < cost) {
    // Checked before generating so an empty balance never pays for an LLM call; the debit below is
    // the authoritative check.
    await alertOutOfCredits(ctx, account, conversation, campaign.id, inbound);
    return { done: { action: "alerted", reason: "out_of_credits", campaignId: campaign.id } };
  }

  if (campaign.outside_hours === "away") {
    const hours = await lookups.hours(accountId);
    if (!isOpen(hours, Date.now())) {
      return { done: await sendAwayMessage(ctx, { account, conversation, campaign, inbound, hours, cost }) };
    }
  }

  const generated = await generate(ctx, {
    inbound,
    pendingSuggestions: input.pendingSuggestions,
    account,
    campaign,
    engine,
    target,
    options,
    log,
    knowledge: lookups.knowledge,
  });
  const body = generated.body.slice(0, MAX_REPLY_CHARS);
  return { plan: { inbound, account, conversation, campaign, engine, cost, generated, body } };
}

/** The reply of one plan in its own transaction, with every rule (fallback once, alerts, hand-over). */
async function writeReply(ctx: AppContext, plan: ReplyPlan): Promise<BotOutcome> {
  const { db } = ctx;
  const { inbound, account, conversation, campaign, engine, cost, generated } = plan;
  const accountId = account.id;
  const externalId = `bot:${inbound.id}`;
  const now = Date.now();
  let result: BotOutcome;
  try {
    result = await db.write(async (trx): Promise<BotOutcome> => {
      // A person may have replied (pausing the bot) while the model was thinking. A twin run's reply
      // is caught by the unique external id when this one is written (the catch below).
      const late = await conversations.findConversationWithSwitches(trx, accountId, conversation.id);
      const blockedLate = late ? switchesBlock(late.switches) : "message_not_found";
      if (blockedLate) return { action: "skipped", reason: blockedLate };
      const setCampaign = async () => {
        if (late?.conversation.campaign_id !== campaign.id)
          await conversations.setConversationCampaign(trx, accountId, conversation.id, campaign.id);
      };
      // The fallback once per unanswered run: decided here, from the conversation's state in this
      // transaction (locked on PostgreSQL), so concurrent messages still produce exactly one. A request
      // for a person is always answered (the bot then pauses, so it cannot repeat).
      if (
        generated.outcome === "fallback" &&
        generated.alert &&
        (await repo.fallbackAwaitsAnswer(trx, db.dialect, accountId, conversation.id))
      ) {
        if (await findMessageByExternalId(trx, accountId, externalId)) {
          return { action: "skipped", reason: "already_replied" };
        }
        await setCampaign();
        await raiseAlert(trx, account, conversation, generated.alert, inbound.id, now);
        return { action: "skipped", reason: "fallback_already_sent" };
      }
      const [reply] = await createOutboundMessages(trx, accountId, [replyMessage(plan, now)]);
      const replyId = (reply as MessageRow).id;
      await recordReply(trx, plan, replyId, now);
      await setCampaign();
      if (generated.outcome === "handover")
        await conversations.pauseBot(trx, accountId, conversation.id, now);
      if (generated.alert) {
        await raiseAlert(trx, account, conversation, generated.alert, inbound.id, now);
        // The person who picks it up reads a summary first; written after this commits.
        await enqueueJobs(trx, [
          summaryJob.create({ conversationId: conversation.id, reason: generated.alert }, { accountId }),
        ]);
      }
      return {
        action: "replied",
        replyId,
        campaignId: campaign.id,
        engine,
        alert: generated.alert,
        debited: cost / 100,
      };
    });
  } catch (err) {
    if (err instanceof OutOfCredits) {
      await alertOutOfCredits(ctx, account, conversation, campaign.id, inbound);
      return { action: "alerted", reason: "out_of_credits", campaignId: campaign.id };
    }
    // A concurrent run of this job committed the reply first.
    if (isUniqueViolation(err)) return { action: "skipped", reason: "already_replied" };
    throw err;
  }
  return result;
}

function replyMessage(plan: ReplyPlan, at: number): OutboundMessageInput {
  const { inbound, campaign, conversation, generated, body } = plan;
  return {
    sender: "bot",
    channel: inbound.channel,
    toId: inbound.from_id,
    campaignId: campaign.id,
    externalId: `bot:${inbound.id}`,
    conversationId: conversation.id,
    contactId: inbound.contact_id,
    body,
    botOutcome: generated.outcome,
    suggestions: generated.suggestions ?? null,
    at,
  };
}

/** What a written reply brings with it: its LLM usage, its debit, the follow-up clock. */
async function recordReply(trx: Transaction<Database>, plan: ReplyPlan, replyId: string, now: number) {
  const { account, conversation, campaign, cost, generated } = plan;
  const accountId = account.id;
  if (generated.usage) {
    await repo.insertBotReply(trx, {
      message_id: replyId,
      account_id: accountId,
      conversation_id: conversation.id,
      input_tokens: generated.usage.inputTokens,
      output_tokens: generated.usage.outputTokens,
      function_calls: generated.functionCalls,
      created_at: now,
    });
  }
  if (cost > 0) {
    const debited = await debit(trx, accountId, {
      amount: cost,
      kind: "bot_reply",
      messageId: replyId,
      description: `AI bot reply (campaign ${campaign.name})`,
    });
    if (!debited) throw new OutOfCredits();
  }
  // An answer starts the follow-up clock; a fallback or hand-over leaves the customer waiting for a
  // person (alert up), who starts it with their reply.
  if (generated.outcome === "answer") {
    await scheduleFollowUp(trx, accountId, {
      conversationId: conversation.id,
      campaignId: campaign.id,
      step: 1,
      afterMessageId: replyId,
      at: now,
      steps: parseFollowUps(campaign.follow_ups),
    });
  }
}

/**
 * Replies due together (the worker's claim): their inputs in one read, the account, routing, campaign
 * and knowledge read once per batch, and the plain replies (an answer or a "Did you mean", no alert)
 * written in one transaction that also ends their jobs. Replies with more to them (a fallback, a
 * hand-over, an alert) go through writeReply one by one, as does every reply of a batch whose write
 * failed (a twin run's reply, credits that ran out): the batch rolled back whole, so each is decided
 * again alone.
 */
export async function runBotReplies(
  ctx: AppContext,
  jobs: Array<{ messageId: string; job: JobContext }>,
  options: BotOptions = {},
): Promise<Array<PromiseSettledResult<BotOutcome>>> {
  const db = ctx.db.kysely;
  const inputs = await repo.readReplyInputs(
    db,
    jobs.map((j) => j.messageId),
  );
  const preloaded = new Map<string, Promise<Map<string, conversations.ConversationWithSwitches>>>();
  const byAccount = Map.groupBy(inputs.values(), (input) => input.message.account_id);
  for (const [accountId, accountInputs] of byAccount) {
    const ids = new Set(accountInputs.map((input) => input.message.conversation_id));
    preloaded.set(accountId, conversations.findConversationsWithSwitches(db, accountId, [...ids]));
  }
  const direct = directLookups(ctx);
  const lookups: ReplyLookups = {
    account: remembered(direct.account),
    // Every conversation of the batch was read above; a missing one is not found.
    conversation: async (accountId, id) => (await preloaded.get(accountId))?.get(id),
    routing: remembered(direct.routing),
    campaign: remembered(direct.campaign),
    hours: remembered(direct.hours),
    knowledge: rememberedBy((c: CampaignRow) => c.id, direct.knowledge),
  };
  const prepared = await Promise.allSettled(
    jobs.map(({ messageId, job }) =>
      prepareReply(
        ctx,
        inputs.get(messageId),
        { ...options, accountId: job.accountId, log: job.log },
        lookups,
      ),
    ),
  );
  const results: Array<PromiseSettledResult<BotOutcome> | undefined> = prepared.map((p) =>
    p.status === "rejected"
      ? p
      : "done" in p.value
        ? { status: "fulfilled", value: p.value.done }
        : undefined,
  );
  const plain: number[] = [];
  const alone: number[] = [];
  prepared.forEach((p, i) => {
    if (p.status !== "fulfilled" || !("plan" in p.value)) return;
    const { generated } = p.value.plan;
    if (generated.alert === null && (generated.outcome === "answer" || generated.outcome === "choices"))
      plain.push(i);
    else alone.push(i);
  });
  const planOf = (i: number) => (prepared[i] as PromiseFulfilledResult<{ plan: ReplyPlan }>).value.plan;
  const one = async (i: number) => {
    results[i] = await settle(writeReply(ctx, planOf(i)));
  };
  const written =
    plain.length > 1
      ? await settle(
          writeReplies(
            ctx,
            plain.map((i) => ({ plan: planOf(i), job: (jobs[i] as { job: JobContext }).job })),
          ),
        )
      : null;
  if (written?.status === "fulfilled") {
    plain.forEach((i, k) => {
      results[i] = { status: "fulfilled", value: written.value[k] as BotOutcome };
    });
    for (const i of plain) (jobs[i] as { job: JobContext }).job.finished();
    await Promise.all(alone.map(one));
  } else {
    if (written)
      ctx.log.debug({ err: written.reason }, "bot replies written together failed; writing them one by one");
    await Promise.all([...plain, ...alone].map(one));
  }
  return results.map((r) => r ?? { status: "rejected", reason: new Error("no outcome") });
}

/**
 * The plain replies of a batch in one transaction: their switches read again (a person may have
 * paused the bot meanwhile), the replies, their delivery jobs and conversation updates written
 * together, and their jobs ended in the same commit.
 */
async function writeReplies(
  ctx: AppContext,
  items: Array<{ plan: ReplyPlan; job: JobContext }>,
): Promise<BotOutcome[]> {
  const now = Date.now();
  const byAccount = Map.groupBy(
    items.map((item, at) => ({ ...item, at })),
    ({ plan }) => plan.account.id,
  );
  return ctx.db.write(async (trx) => {
    const outcomes: BotOutcome[] = [];
    for (const [accountId, group] of byAccount) {
      const late = await conversations.findConversationsWithSwitches(trx, accountId, [
        ...new Set(group.map(({ plan }) => plan.conversation.id)),
      ]);
      const open = group.filter(({ plan, at }) => {
        const found = late.get(plan.conversation.id);
        const blocked = found ? switchesBlock(found.switches) : "message_not_found";
        if (blocked) outcomes[at] = { action: "skipped", reason: blocked };
        return !blocked;
      });
      // The deliveries run in this worker as soon as the batch commits, without a claim of their own.
      const replies = await createOutboundMessages(
        trx,
        accountId,
        open.map(({ plan }) => replyMessage(plan, now)),
        (q, jobs) => (items[0] as { job: JobContext }).job.enqueueHere(q as Transaction<Database>, jobs),
      );
      const campaignSet = new Set<string>();
      for (const [k, { plan, at }] of open.entries()) {
        const replyId = (replies[k] as MessageRow).id;
        await recordReply(trx, plan, replyId, now);
        const conversationId = plan.conversation.id;
        if (
          late.get(conversationId)?.conversation.campaign_id !== plan.campaign.id &&
          !campaignSet.has(conversationId)
        ) {
          campaignSet.add(conversationId);
          await conversations.setConversationCampaign(trx, accountId, conversationId, plan.campaign.id);
        }
        outcomes[at] = {
          action: "replied",
          replyId,
          campaignId: plan.campaign.id,
          engine: plan.engine,
          alert: null,
          debited: plan.cost / 100,
        };
      }
    }
    await finishJobsIn(
      trx,
      items.map(({ job }) => job),
    );
    return outcomes;
  });
}

async function settle<T>(p: Promise<T>): Promise<PromiseSettledResult<T>> {
  try {
    return { status: "fulfilled", value: await p };
  } catch (reason) {
    return { status: "rejected", reason };
  }
}

/** A look-up read once per batch per key. */
function remembered<A extends string[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return rememberedBy((...args: A) => args.join("\u0000"), fn);
}

function rememberedBy<A extends unknown[], R>(
  key: (...args: A) => string,
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  const seen = new Map<string, Promise<R>>();
  return (...args: A) => {
    const k = key(...args);
    let p = seen.get(k);
    if (!p) {
      p = fn(...args);
      seen.set(k, p);
    }
    return p;
  };
}

/**
 * Outside business hours on an "away" campaign: instead of an answer, the away message, once per closed
 * period and conversation (external id "away:<conversation>:<next opening>", unique per account, so a
 * twin run or a second message of the same night writes nothing), and a human alert for the opening.
 */
async function sendAwayMessage(
  ctx: AppContext,
  input: {
    account: AccountRow;
    conversation: ConversationRow;
    campaign: CampaignRow;
    inbound: MessageRow;
    hours: BusinessHours | null;
    cost: number;
  },
): Promise<BotOutcome> {
  const { db } = ctx;
  const { account, conversation, campaign, inbound, hours, cost } = input;
  const accountId = account.id;
  const now = Date.now();
  const externalId = `away:${conversation.id}:${nextOpening(hours, now)}`;
  const contact = await findContactById(db.kysely, accountId, inbound.contact_id);
  const body = render(
    campaign.away_message,
    contact ?? { first_name: null, last_name: null, phone: null, email: null },
    hoursPlaceholders(hours, now),
  );
  /** The period's away message is out: the customer's message still waits for a person. */
  const alertOnly = async (trx: Parameters<Parameters<typeof db.write>[0]>[0]) => {
    await conversations.setConversationCampaign(trx, accountId, conversation.id, campaign.id);
    await raiseAlert(trx, account, conversation, "outside_hours", inbound.id, now);
  };
  try {
    return await db.write(async (trx): Promise<BotOutcome> => {
      const sw = await conversations.readSwitches(trx, accountId, conversation.id);
      const late = sw ? switchesBlock(sw) : "message_not_found";
      if (late) return { action: "skipped", reason: late };
      if (await findMessageByExternalId(trx, accountId, externalId)) {
        await alertOnly(trx);
        return { action: "skipped", reason: "away_already_sent" };
      }
      const message = await createOutboundMessage(trx, accountId, {
        sender: "bot",
        channel: inbound.channel,
        toId: inbound.from_id,
        campaignId: campaign.id,
        externalId,
        conversationId: conversation.id,
        contactId: inbound.contact_id,
        body,
        botOutcome: "away",
        at: now,
      });
      if (cost > 0) {
        const debited = await debit(trx, accountId, {
          amount: cost,
          kind: "bot_reply",
          messageId: message.id,
          description: `Away message (campaign ${campaign.name})`,
        });
        if (!debited) throw new OutOfCredits();
      }
      await alertOnly(trx);
      return { action: "away", messageId: message.id, campaignId: campaign.id, debited: cost / 100 };
    });
  } catch (err) {
    if (err instanceof OutOfCredits) {
      await alertOutOfCredits(ctx, account, conversation, campaign.id, inbound);
      return { action: "alerted", reason: "out_of_credits", campaignId: campaign.id };
    }
    // A twin run wrote this period's away message first.
    if (isUniqueViolation(err)) return { action: "skipped", reason: "away_already_sent" };
    throw err;
  }
}

async function alertOutOfCredits(
  ctx: AppContext,
  account: AccountRow,
  conversation: ConversationRow,
  campaignId: string,
  inbound: MessageRow,
): Promise<void> {
  await ctx.db.write(async (trx) => {
    await conversations.setConversationCampaign(trx, account.id, conversation.id, campaignId);
    await raiseAlert(trx, account, conversation, "out_of_credits", inbound.id, Date.now());
  });
}

interface Generated {
  body: string;
  alert: AlertReason | null;
  outcome: "answer" | "fallback" | "handover" | "choices";
  /** "Did you mean": the choices offered, shown as buttons where the channel has them. */
  suggestions?: Suggestion[];
  /** The LLM's token use (LLM replies only). */
  usage: LlmUsage | null;
  functionCalls: number;
}

const NO_USAGE = { usage: null, functionCalls: 0 };

async function generate(
  ctx: AppContext,
  input: {
    inbound: MessageRow;
    /** The "Did you mean" choices the customer may be answering (ReplyInput). */
    pendingSuggestions: string | null;
    account: AccountRow;
    campaign: CampaignRow;
    engine: "builtin" | "llm";
    target: ReturnType<typeof resolveLlmTarget>;
    options: BotOptions;
    log: AppContext["log"];
    /** The campaign's engine (a batch reads it once per campaign). */
    knowledge: (campaign: CampaignRow) => Promise<CachedEngine>;
  },
): Promise<Generated> {
  const { inbound, campaign, target, log } = input;
  const fallback = { body: campaign.fallback_message, outcome: "fallback" as const };
  const handover = {
    body: HANDOVER_MESSAGE,
    alert: "human_requested" as const,
    outcome: "handover" as const,
  };
  if (asksForPerson(inbound.body)) return { ...handover, ...NO_USAGE };
  const { entries, engine } = await input.knowledge(campaign);
  if (input.engine === "builtin") {
    // The customer answering the bot's "Did you mean": the picked entry's answer (if the knowledge
    // still holds that entry under that name). Anything else is a new question.
    const offered = suggestionsOf(input.pendingSuggestions);
    const pick = offered.length ? readPick(inbound.body, offered) : null;
    const picked =
      pick && oneLine(entries[pick.entry]?.question ?? "") === pick.title
        ? engine.answerOf(pick.entry)
        : null;
    if (picked) return { body: picked.answer, alert: null, outcome: "answer", ...NO_USAGE };
    const decision = engine.decide(inbound.body);
    if (decision.kind === "answer")
      return { body: decision.match.answer, alert: null, outcome: "answer", ...NO_USAGE };
    if (decision.kind === "choices") {
      return {
        body: choicesMessage(decision.choices),
        alert: null,
        outcome: "choices",
        suggestions: suggestionsFrom(decision.choices),
        ...NO_USAGE,
      };
    }
    return { ...fallback, alert: "no_answer", ...NO_USAGE };
  }
  if (!target) {
    log.warn({ campaignId: campaign.id }, "campaign uses the llm engine but no LLM is configured");
    return { ...fallback, alert: "llm_not_configured", ...NO_USAGE };
  }
  try {
    const history = await repo.recentHistory(
      ctx.db.kysely,
      inbound.account_id,
      inbound.contact_id,
      inbound.id,
      HISTORY_MESSAGES,
      inbound.conversation_id,
    );
    const defs = parseFunctions(campaign.functions);
    const out = await generateLlmReply(
      target,
      {
        instructions: campaign.instructions,
        passages: entries.length ? engine.top(inbound.body, KNOWLEDGE_PASSAGES) : [],
        history,
      },
      {
        fetcher: ctx.fetcher,
        timeoutMs: input.options.llmTimeoutMs ?? DEFAULT_LLM_TIMEOUT_MS,
        ...(defs.length > 0 ? { functions: functionHooks(ctx, input.account, inbound, campaign, defs) } : {}),
      },
    );
    const used = { usage: out.usage, functionCalls: out.functionCalls };
    switch (out.kind) {
      case "answer":
        return { body: out.text, alert: null, outcome: "answer", ...used };
      case "person":
        return { ...handover, ...used };
      case "function_failed":
        return { body: FUNCTION_FAILURE_MESSAGE, alert: "function_error", outcome: "fallback", ...used };
      case "handoff":
        return { ...fallback, alert: "no_answer", ...used };
    }
  } catch (err) {
    // Never a crash and never a lost message: the customer gets the fallback, a person gets the alert.
    log.warn(
      {
        err: err instanceof Error ? { name: err.name, message: err.message } : String(err),
        campaignId: campaign.id,
      },
      "LLM reply failed; sending the fallback message",
    );
    return { ...fallback, alert: "llm_error", ...NO_USAGE };
  }
}

/** Validates, calls and records the model's function calls for one reply. */
function functionHooks(
  ctx: AppContext,
  account: AccountRow,
  inbound: MessageRow,
  campaign: CampaignRow,
  defs: BotFunction[],
): LlmFunctions {
  const record = (row: {
    id?: string;
    name: string;
    arguments: string;
    status: "ok" | "error" | "timeout" | "blocked" | "invalid_arguments";
    statusCode?: number | null;
    durationMs?: number;
    response?: string | null;
    error: string | null;
  }) =>
    ctx.db.write((trx) =>
      repo.insertFunctionCall(trx, {
        id: row.id ?? newId("functionCall"),
        account_id: inbound.account_id,
        conversation_id: inbound.conversation_id,
        message_id: inbound.id,
        campaign_id: campaign.id,
        name: row.name,
        arguments: row.arguments.slice(0, 4_000),
        status: row.status,
        status_code: row.statusCode ?? null,
        duration_ms: row.durationMs ?? 0,
        response: shorten(row.response ?? null, FUNCTION_LIMITS.threadChars),
        error: row.error,
        created_at: Date.now(),
      }),
    );
  return {
    defs,
    async run(fn, input): Promise<FunctionRun> {
      if (input === LIMIT_REACHED) {
        const message = `this reply already made ${FUNCTION_LIMITS.callsPerReply} function calls: answer with what you have`;
        await record({ name: fn.name, arguments: "null", status: "invalid_arguments", error: message });
        return { ok: false, retry: true, message };
      }
      const args = JSON.stringify(input ?? null);
      const invalid = argumentErrors(fn, input);
      if (invalid) {
        await record({ name: fn.name, arguments: args, status: "invalid_arguments", error: invalid });
        return {
          ok: false,
          retry: true,
          message: `invalid arguments: ${invalid}. Call ${fn.name} again with arguments that match its parameters.`,
        };
      }
      const result = await callFunction(ctx, account, fn, input, {
        conversationId: inbound.conversation_id,
        contactId: inbound.contact_id,
        messageId: inbound.id,
        campaignId: campaign.id,
      });
      await record({
        id: result.id,
        name: fn.name,
        arguments: args,
        status: result.status,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        response: result.body,
        error: result.error,
      });
      if (result.status !== "ok") return { ok: false, retry: false };
      return { ok: true, output: functionOutputForModel(result.body ?? "") };
    },
    async refused(name, rawInput, error) {
      await record({ name, arguments: rawInput, status: "invalid_arguments", error });
    },
  };
}

// Follow-ups: a campaign's steps sent to a customer who went quiet (issue 35, docs/automation.md).
//
// The clock: when one of our messages is written in a conversation whose campaign has steps (a bot reply
// that answered, a person's reply, a follow-up), the job of the next step is queued in the same
// transaction, to run `after` later. Cancellation costs nothing on the ingestion path: the job, when it
// runs, sends only if that message is still the conversation's newest, so any message since (the
// customer's, or a person's, which queues its own step 1) stops it. Exactly once: the follow-up carries
// external_id "followup:<afterMessageId>:<step>" (unique per account), checked before and inside the
// writing transaction, and a unique violation from a twin run counts as done. The follow-up, its credit
// debit and the next step's job are one transaction.
import type { Kysely, Transaction } from "kysely";
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import { isUniqueViolation } from "../../platform/db/index.ts";
import type {
  CampaignRow,
  ContactRow,
  ConversationRow,
  Database,
  MessageRow,
} from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import {
  defineJob,
  enqueueJobs,
  type JobContext,
  type JobHandler,
  type JobResult,
} from "../../platform/jobs.ts";
import { hoursPlaceholders, loadBusinessHours, nextOpening } from "../accounts/business-hours.ts";
import { findAccountById } from "../accounts/repo.ts";
import * as campaignRepo from "../campaigns/repo.ts";
import { findChannel } from "../channels/repo.ts";
import { render } from "../contacts/placeholders.ts";
import { findContactById } from "../contacts/repo.ts";
import * as conversations from "../conversations/repo.ts";
import { debit } from "../credits/ledger.ts";
import { createOutboundMessage } from "../delivery/outbound.ts";
import { findMessageByExternalId } from "../messaging/repo.ts";
import { generateFollowUpText, HISTORY_MESSAGES, type LlmUsage, resolveLlmTarget } from "./engine-llm.ts";
import * as repo from "./repo.ts";

export const FOLLOW_UP_LIMITS = {
  steps: 9,
  text: 2_000,
  minSeconds: 1,
  maxSeconds: 30 * 86_400,
  templateName: 512,
  templateParameters: 10,
  /** Meta's limit for a body parameter's text when the template has other components. */
  templateParameter: 1_024,
} as const;

/** The label that keeps a contact from getting follow-ups (compared ignoring case). */
export const NO_FOLLOW_UP_LABEL = "no-follow-up";
/** The 24-hour customer service window of WhatsApp, Messenger and Instagram. */
const CUSTOMER_WINDOW_MS = 24 * 60 * 60 * 1000;
const WINDOW_CHANNELS = new Set(["whatsapp", "messenger", "instagram"]);
/** One LLM-written follow-up, its retry included: well inside the worker's job lease. */
const LLM_TIMEOUT_MS = 30_000;

export interface FollowUpStep {
  /** An ISO 8601 duration (PnDTnHnMnS). */
  after: string;
  message?: string;
  instruction?: string;
  /** What the step is sent as on WhatsApp outside the 24-hour window (without it, it is skipped there). */
  whatsappTemplate?: WhatsAppTemplate;
}

/** A template approved in WhatsApp Manager: its name, language and the body's {{1}}, {{2}}, … values. */
export interface WhatsAppTemplate {
  name: string;
  language: string;
  /** With the contact placeholders of messages ({{firstName|there}}), filled per contact when sent. */
  parameters: string[];
}

/** Meta's rule for template names: lowercase letters, digits and underscores. */
const TEMPLATE_NAME = /^[a-z0-9_]+$/;
/** Meta's language codes: en, fil, en_US, pt_BR, prs_AF (case matters, an underscore, never a hyphen). */
const TEMPLATE_LANGUAGE = /^[a-z]{2,3}(?:_[A-Z]{2})?$/;

export const followUpJob = defineJob(
  "bot.follow_up",
  Type.Object({
    conversationId: Type.String({ minLength: 1 }),
    /** 1-based: the step of the campaign's followUps this job sends. */
    step: Type.Integer({ minimum: 1 }),
    /** The message the clock started at: the step goes out only while it is the conversation's newest. */
    afterMessageId: Type.String({ minLength: 1 }),
  }),
  // An LLM-written step that keeps failing is given up after a few tries (nothing is sent).
  { subject: (p) => p.afterMessageId, maxAttempts: 4 },
);

export const FOLLOW_UP_JOB = followUpJob.type;

// --- The steps: durations, validation, stored JSON ---

const DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** Seconds of an ISO 8601 duration PnDTnHnMnS (no weeks, months, years or fractions); null otherwise. */
export function durationSeconds(value: string): number | null {
  const m = DURATION.exec(value);
  if (!m) return null;
  const [, d, h, min, s] = m;
  if (d === undefined && h === undefined && min === undefined && s === undefined) return null;
  // "PT" with nothing after it, or "P1DT".
  if (value.includes("T") && h === undefined && min === undefined && s === undefined) return null;
  return Number(d ?? 0) * 86_400 + Number(h ?? 0) * 3_600 + Number(min ?? 0) * 60 + Number(s ?? 0);
}

/** Stored steps; a damaged value reads as none rather than breaking the bot. */
export function parseFollowUps(json: string | null | undefined): FollowUpStep[] {
  if (!json) return [];
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? (v as FollowUpStep[]) : [];
  } catch {
    return [];
  }
}

/**
 * The steps as given: `after` a duration from PT1S to P30D (upper-cased, trimmed), exactly one of
 * message and instruction (1–2,000 characters, trimmed). Errors name the step (followUps[2].after).
 */
export function normaliseFollowUps(value: unknown): FollowUpStep[] {
  if (!Array.isArray(value)) throw new AppError("VALIDATION_ERROR", "followUps must be an array");
  if (value.length > FOLLOW_UP_LIMITS.steps) {
    throw new AppError("VALIDATION_ERROR", `followUps must have at most ${FOLLOW_UP_LIMITS.steps} steps`);
  }
  return value.map((raw, i): FollowUpStep => {
    const at = `followUps[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new AppError(
        "VALIDATION_ERROR",
        `${at} must be an object {after, message} or {after, instruction}`,
      );
    }
    const s = raw as Record<string, unknown>;
    const after = typeof s.after === "string" ? s.after.trim().toUpperCase() : "";
    const seconds = durationSeconds(after);
    if (seconds === null) {
      throw new AppError(
        "VALIDATION_ERROR",
        `${at}.after must be an ISO 8601 duration such as PT24H, P2D, PT30M or PT3S (days, hours, minutes, seconds)`,
      );
    }
    if (seconds < FOLLOW_UP_LIMITS.minSeconds || seconds > FOLLOW_UP_LIMITS.maxSeconds) {
      throw new AppError("VALIDATION_ERROR", `${at}.after must be between PT1S and P30D`);
    }
    const text = (name: "message" | "instruction"): string | undefined => {
      const v = s[name];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== "string") throw new AppError("VALIDATION_ERROR", `${at}.${name} must be string`);
      const t = v.trim();
      if (t === "") throw new AppError("VALIDATION_ERROR", `${at}.${name} must not be empty`);
      if (t.length > FOLLOW_UP_LIMITS.text) {
        throw new AppError(
          "VALIDATION_ERROR",
          `${at}.${name} must be at most ${FOLLOW_UP_LIMITS.text} characters`,
        );
      }
      return t;
    };
    const message = text("message");
    const instruction = text("instruction");
    if ((message === undefined) === (instruction === undefined)) {
      throw new AppError("VALIDATION_ERROR", `${at} needs exactly one of message and instruction`);
    }
    const step: FollowUpStep =
      message !== undefined ? { after, message } : { after, instruction: instruction as string };
    const whatsappTemplate = normaliseTemplate(s.whatsappTemplate, `${at}.whatsappTemplate`);
    return whatsappTemplate ? { ...step, whatsappTemplate } : step;
  });
}

/** A step's WhatsApp template as given (null or absent: none); errors name the field. */
function normaliseTemplate(value: unknown, at: string): WhatsAppTemplate | undefined {
  if (value === undefined || value === null) return undefined;
  const fail = (message: string) => new AppError("VALIDATION_ERROR", `${at}${message}`);
  if (typeof value !== "object" || Array.isArray(value)) {
    throw fail(" must be an object {name, language, parameters}");
  }
  const t = value as Record<string, unknown>;
  const name = typeof t.name === "string" ? t.name.trim() : "";
  if (name === "") throw fail(".name is required: the name of a template approved in WhatsApp Manager");
  if (name.length > FOLLOW_UP_LIMITS.templateName || !TEMPLATE_NAME.test(name)) {
    throw fail(
      `.name must be the approved template's name: lowercase letters, digits and underscores, up to ${FOLLOW_UP_LIMITS.templateName} characters`,
    );
  }
  const language = typeof t.language === "string" ? t.language.trim() : "";
  if (language === "") throw fail(".language is required: the template's language code, like en_US or en");
  if (!TEMPLATE_LANGUAGE.test(language)) {
    throw fail(
      ".language must be a WhatsApp language code like en_US, pt_BR or en (an underscore, not a hyphen)",
    );
  }
  const raw = t.parameters ?? [];
  if (!Array.isArray(raw)) throw fail(".parameters must be an array of strings");
  if (raw.length > FOLLOW_UP_LIMITS.templateParameters) {
    throw fail(`.parameters must have at most ${FOLLOW_UP_LIMITS.templateParameters} items`);
  }
  const parameters = raw.map((p, j) => {
    if (typeof p !== "string") throw fail(`.parameters[${j}] must be string`);
    const v = p.trim();
    // WhatsApp refuses an empty parameter: {{firstName|there}} gives a fallback for an empty field.
    if (v === "") throw fail(`.parameters[${j}] must not be empty`);
    if (v.length > FOLLOW_UP_LIMITS.templateParameter) {
      throw fail(`.parameters[${j}] must be at most ${FOLLOW_UP_LIMITS.templateParameter} characters`);
    }
    return v;
  });
  return { name, language, parameters };
}

/** The template with its parameters filled for the contact, as the message stores and WhatsApp gets it. */
export function fillTemplate(template: WhatsAppTemplate, contact: ContactRow): WhatsAppTemplate {
  return {
    name: template.name,
    language: template.language,
    parameters: (template.parameters ?? []).map((p) => render(p, contact)),
  };
}

/** What Parley shows for a template message (WhatsApp delivers the template's own words). */
export function templateBody(template: WhatsAppTemplate): string {
  const values = template.parameters.map((p) => JSON.stringify(p)).join(", ");
  return `WhatsApp template ${template.name} (${template.language})${values ? `: ${values}` : ""}`;
}

/**
 * Instruction steps are written by the LLM: a campaign on the builtin engine cannot have them (400), so
 * a step never silently goes unsent. (With engine auto and no LLM configured they are skipped, logged.)
 */
export function requireFollowUpEngine(steps: FollowUpStep[], engine: CampaignRow["engine"]): void {
  if (engine !== "builtin") return;
  const i = steps.findIndex((s) => s.instruction !== undefined);
  if (i >= 0) {
    throw new AppError(
      "VALIDATION_ERROR",
      `followUps[${i}].instruction needs the LLM engine: set engine to llm or auto, or give a message instead`,
    );
  }
}

/** The campaign JSON's followUps. */
export function followUpsView(json: string | null | undefined): FollowUpStep[] {
  return parseFollowUps(json).map((s) => {
    const step: FollowUpStep =
      s.instruction !== undefined
        ? { after: s.after, instruction: s.instruction }
        : { after: s.after, message: s.message ?? "" };
    const t = s.whatsappTemplate;
    return t
      ? { ...step, whatsappTemplate: { name: t.name, language: t.language, parameters: t.parameters ?? [] } }
      : step;
  });
}

// --- The clock ---

type Trx = Transaction<Database>;

/**
 * Queues step `step` of the campaign's follow-ups to run `after` past `at` (the time of the message
 * `afterMessageId` just written), in the caller's transaction. Nothing when the campaign has no such
 * step. `steps` saves the read when the caller has the campaign at hand.
 */
export async function scheduleFollowUp(
  trx: Trx,
  accountId: string,
  input: {
    conversationId: string;
    campaignId: string | null;
    step: number;
    afterMessageId: string;
    at: number;
    steps?: FollowUpStep[];
  },
): Promise<boolean> {
  if (!input.campaignId || input.step > FOLLOW_UP_LIMITS.steps) return false;
  const steps =
    input.steps ?? parseFollowUps(await campaignRepo.followUpsOfCampaign(trx, accountId, input.campaignId));
  const def = steps[input.step - 1];
  const seconds = def ? durationSeconds(def.after) : null;
  if (seconds === null) return false;
  await enqueueJobs(trx, [
    followUpJob.create(
      { conversationId: input.conversationId, step: input.step, afterMessageId: input.afterMessageId },
      { accountId, runAt: input.at + seconds * 1000 },
    ),
  ]);
  return true;
}

/** A person's reply starts the clock again (registered as the bot module's onHumanReply hook). */
export async function scheduleAfterHumanReply(trx: Trx, reply: MessageRow): Promise<void> {
  await scheduleFollowUp(trx, reply.account_id, {
    conversationId: reply.conversation_id,
    campaignId: reply.campaign_id,
    step: 1,
    afterMessageId: reply.id,
    at: reply.created_at,
  });
}

// --- The job ---

export type FollowUpSkip =
  | "already_sent"
  | "conversation_not_found"
  | "answered"
  | "resolved"
  | "opted_out"
  | "no_follow_up_label"
  | "account_bot_off"
  | "contact_bot_off"
  | "conversation_paused"
  | "no_campaign"
  | "campaign_not_live"
  | "no_such_step"
  | "outside_window"
  | "llm_not_available"
  | "out_of_credits";

export type FollowUpOutcome =
  | { action: "sent"; messageId: string; step: number; debited: number; next: boolean }
  | { action: "skipped"; reason: FollowUpSkip }
  | { action: "later"; at: number };

type Payload = { conversationId: string; step: number; afterMessageId: string };

interface Ready {
  conversation: ConversationRow;
  contact: ContactRow;
  campaign: CampaignRow;
  steps: FollowUpStep[];
  def: FollowUpStep;
  after: repo.ConversationMessage;
  /** WhatsApp outside the 24-hour window: the step goes out as its template (not yet filled). */
  template: WhatsAppTemplate | null;
}

class Skip extends Error {
  readonly reason: FollowUpSkip;
  constructor(reason: FollowUpSkip) {
    super(reason);
    this.reason = reason;
  }
}

/**
 * Everything that decides whether the step may go out now, read through `q` (before the LLM is asked,
 * then again inside the writing transaction, after the conversation row is locked on PostgreSQL).
 */
async function check(
  q: Kysely<Database> | Trx,
  accountId: string,
  p: Payload,
  now: number,
): Promise<Ready | FollowUpSkip | { later: number }> {
  if (await findMessageByExternalId(q, accountId, externalIdOf(p))) return "already_sent";
  const found = await conversations.findConversationWithSwitches(q, accountId, p.conversationId);
  if (!found) return "conversation_not_found";
  const { conversation, switches: sw } = found;
  const newest = await repo.newestMessageOf(q, accountId, conversation);
  if (!newest || newest.id !== p.afterMessageId) return "answered";
  if (conversation.status === "resolved") return "resolved";
  const contact = await findContactById(q, accountId, conversation.contact_id);
  if (!contact) return "conversation_not_found";
  if (contact.sms_opted_out_at != null) return "opted_out";
  if (labelsOf(contact).includes(NO_FOLLOW_UP_LABEL)) return "no_follow_up_label";
  if (!sw.accountActive) return "account_bot_off";
  if (!sw.contactActive) return "contact_bot_off";
  if (sw.conversationPaused) {
    // A person's reply pauses the bot, and its follow-ups are that person's: they go out all the same.
    // The bot's own run stops on a pause (by hand, or its own hand-over).
    const root =
      newest.sender === "human" ? newest : await repo.followUpRootOf(q, accountId, conversation, newest.id);
    if (root?.sender !== "human") return "conversation_paused";
  }
  if (!conversation.campaign_id) return "no_campaign";
  const campaign = await campaignRepo.findCampaign(q, accountId, conversation.campaign_id);
  if (!campaign) return "no_campaign";
  if (campaign.status !== "live") return "campaign_not_live";
  const steps = parseFollowUps(campaign.follow_ups);
  const def = steps[p.step - 1];
  const seconds = def ? durationSeconds(def.after) : null;
  if (!def || seconds === null) return "no_such_step";
  // The step was made longer since it was queued: it waits for its new time.
  const due = Number(newest.created_at) + seconds * 1000;
  if (due > now) return { later: due };
  // Held to business hours: a step falling due while closed waits for the next opening.
  if (Number(campaign.follow_ups_in_hours) === 1) {
    const opening = nextOpening(await loadBusinessHours(q, accountId), now);
    if (opening > now) return { later: opening };
  }
  let template: WhatsAppTemplate | null = null;
  if (conversation.channel_id) {
    const channel = await findChannel(q, accountId, conversation.channel_id);
    if (channel && WINDOW_CHANNELS.has(channel.type)) {
      const lastIn = await repo.lastInboundAt(q, accountId, conversation);
      if (lastIn === null || now - lastIn > CUSTOMER_WINDOW_MS) {
        // Outside the window only an approved template reaches the customer (WhatsApp's; Messenger
        // and Instagram have none here).
        if (channel.type !== "whatsapp" || !def.whatsappTemplate) return "outside_window";
        template = def.whatsappTemplate;
      }
    }
  }
  return { conversation, contact, campaign, steps, def, after: newest, template };
}

function labelsOf(contact: ContactRow): string[] {
  try {
    const v = JSON.parse(contact.labels) as unknown;
    return Array.isArray(v)
      ? v.filter((l): l is string => typeof l === "string").map((l) => l.toLowerCase())
      : [];
  } catch {
    return [];
  }
}

const externalIdOf = (p: Payload) => `followup:${p.afterMessageId}:${p.step}`;

export function followUpHandler(ctx: AppContext): JobHandler<Payload> {
  return async (payload, job: JobContext): Promise<JobResult> => {
    if (!job.accountId) return { dead: true, error: "bot.follow_up job without an account" };
    const outcome = await runFollowUp(ctx, job.accountId, payload, job.log);
    job.log.debug({ ...payload, outcome }, "bot.follow_up done");
    if (outcome.action === "skipped" && outcome.reason === "outside_window") {
      job.log.info(
        { conversationId: payload.conversationId, step: payload.step },
        "follow-up skipped: the channel's 24-hour window is closed and the step has no WhatsApp template",
      );
    }
    return outcome.action === "later" ? { retryAt: outcome.at } : undefined;
  };
}

export async function runFollowUp(
  ctx: AppContext,
  accountId: string,
  p: Payload,
  log: AppContext["log"] = ctx.log,
): Promise<FollowUpOutcome> {
  const { db, config } = ctx;
  const first = await check(db.kysely, accountId, p, Date.now());
  if (typeof first === "string") return { action: "skipped", reason: first };
  if ("later" in first) return { action: "later", at: first.later };
  const account = await findAccountById(db.kysely, accountId);
  if (!account) return { action: "skipped", reason: "conversation_not_found" };
  const { campaign, def, contact, conversation } = first;

  // The same engine and price as a bot reply of this campaign (reply-job.ts).
  const target = resolveLlmTarget(account, config, campaign.model);
  const engine: "builtin" | "llm" =
    campaign.engine === "auto" ? (target ? "llm" : "builtin") : campaign.engine;
  const free = engine === "llm" && target !== null && target.ownLlm;
  const metered =
    config.botMetering === "all" || (config.botMetering === "subaccounts" && account.kind === "subaccount");
  const cost = free || !metered ? 0 : Math.round(config.botReplyCost * 100);
  if (cost > 0 && account.credits < cost) return { action: "skipped", reason: "out_of_credits" };

  // Outside WhatsApp's window the template goes out: nothing to write (nor an LLM to ask).
  let body: string | undefined;
  let usage: LlmUsage | null = null;
  if (first.template) {
    body = undefined;
  } else if (def.instruction !== undefined) {
    if (engine !== "llm" || !target) {
      log.warn(
        { campaignId: campaign.id, step: p.step },
        "follow-up instruction step without an LLM: not sent",
      );
      return { action: "skipped", reason: "llm_not_available" };
    }
    const history = await repo.recentHistory(
      db.kysely,
      accountId,
      conversation.contact_id,
      p.afterMessageId,
      HISTORY_MESSAGES,
      conversation.id,
    );
    // A failure throws: the job is tried again (backoff), then given up with nothing sent.
    const out = await generateFollowUpText(
      target,
      { instructions: campaign.instructions, instruction: def.instruction, history },
      { fetcher: ctx.fetcher, timeoutMs: LLM_TIMEOUT_MS },
    );
    body = out.text.slice(0, 10_000);
    usage = out.usage;
  } else {
    const hours = await loadBusinessHours(db.kysely, accountId);
    body = render(def.message ?? "", contact, hoursPlaceholders(hours, Date.now()));
  }

  try {
    return await db.write(async (trx): Promise<FollowUpOutcome> => {
      if (db.dialect === "postgres") {
        // One decision at a time per conversation: a message being written there waits, or is seen.
        await trx
          .selectFrom("conversations")
          .select("id")
          .where("account_id", "=", accountId)
          .where("id", "=", p.conversationId)
          .forUpdate()
          .execute();
      }
      const now = Date.now();
      const ready = await check(trx, accountId, p, now);
      if (typeof ready === "string") return { action: "skipped", reason: ready };
      if ("later" in ready) return { action: "later", at: ready.later };
      // The window may have closed while the LLM wrote: then the template goes out instead. (It never
      // reopens in between: a message from the customer cancels the step.)
      const template = ready.template ? fillTemplate(ready.template, ready.contact) : null;
      const text = template ? templateBody(template) : body;
      if (text === undefined) return { action: "skipped", reason: "answered" };
      const message = await createOutboundMessage(trx, accountId, {
        sender: "bot",
        channel: ready.after.channel,
        toId: ready.after.to_id,
        campaignId: ready.campaign.id,
        externalId: externalIdOf(p),
        conversationId: ready.conversation.id,
        contactId: ready.conversation.contact_id,
        body: text,
        template,
        botOutcome: "follow_up",
        at: now,
      });
      if (usage) {
        await repo.insertBotReply(trx, {
          message_id: message.id,
          account_id: accountId,
          conversation_id: ready.conversation.id,
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          function_calls: 0,
          created_at: now,
        });
      }
      if (cost > 0) {
        const debited = await debit(trx, accountId, {
          amount: cost,
          kind: "bot_reply",
          messageId: message.id,
          description: `Follow-up ${p.step} (campaign ${ready.campaign.name})`,
        });
        if (!debited) throw new Skip("out_of_credits");
      }
      const next = await scheduleFollowUp(trx, accountId, {
        conversationId: ready.conversation.id,
        campaignId: ready.campaign.id,
        step: p.step + 1,
        afterMessageId: message.id,
        at: now,
        steps: ready.steps,
      });
      return { action: "sent", messageId: message.id, step: p.step, debited: cost / 100, next };
    });
  } catch (err) {
    if (err instanceof Skip) return { action: "skipped", reason: err.reason };
    // A twin run of this job committed the follow-up first.
    if (isUniqueViolation(err)) return { action: "skipped", reason: "already_sent" };
    throw err;
  }
}

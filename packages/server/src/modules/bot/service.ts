// Campaign rules (validation, the one default per account).
import type { Static } from "typebox";
import type { Db } from "../../platform/db/index.ts";
import type { CampaignRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { decodeCursor, toPage } from "../../platform/pagination.ts";
import { iso } from "../../platform/text.ts";
import * as campaignRepo from "../campaigns/repo.ts";
import { findChannel, forgetChannelCampaign } from "../channels/repo.ts";
import { forgetCampaign } from "../conversations/repo.ts";
import { deleteCampaignSources } from "../knowledge/service.ts";
import { requireList } from "../lists/service.ts";
import type { KnowledgeEntry } from "./engine-builtin.ts";
import { followUpsView, normaliseFollowUps, parseFollowUps, requireFollowUpEngine } from "./follow-ups.ts";
import { normaliseFunctions, parseFunctions } from "./functions.ts";
import type { CampaignListQuery, CreateCampaignBody, OutgoingBody, UpdateCampaignBody } from "./schemas.ts";
import { LIMITS } from "./schemas.ts";

/** The fallback of a new campaign: a polite hand-over to a person. */
export const DEFAULT_FALLBACK_MESSAGE = "Thanks for your message! A team member will reply shortly.";

export type CampaignInput = Static<typeof CreateCampaignBody>;
export type CampaignUpdate = Static<typeof UpdateCampaignBody>;
type OutgoingInput = Static<typeof OutgoingBody>;

/** Parses stored knowledge; a damaged value reads as empty rather than breaking the bot. */
export function parseKnowledge(json: string): KnowledgeEntry[] {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? (v as KnowledgeEntry[]) : [];
  } catch {
    return [];
  }
}

function parseStrings(json: string): string[] {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

/**
 * Other phrasings of an entry's question: trimmed; blanks, repeats and copies of the question itself
 * (case-insensitively) dropped, order kept. Errors name the item (knowledge[3].alternatives[1]).
 */
function normaliseAlternatives(value: unknown, at: string, question: string): string[] {
  if (!Array.isArray(value)) throw new AppError("VALIDATION_ERROR", `${at} must be an array of strings`);
  if (value.length > LIMITS.alternatives) {
    throw new AppError("VALIDATION_ERROR", `${at} must have at most ${LIMITS.alternatives} items`);
  }
  const seen = new Set([question.toLowerCase()]);
  const out: string[] = [];
  value.forEach((item, j) => {
    if (typeof item !== "string") throw new AppError("VALIDATION_ERROR", `${at}[${j}] must be string`);
    const t = item.trim();
    if (t.length > LIMITS.question) {
      throw new AppError("VALIDATION_ERROR", `${at}[${j}] must be at most ${LIMITS.question} characters`);
    }
    const key = t.toLowerCase();
    if (t === "" || seen.has(key)) return;
    seen.add(key);
    out.push(t);
  });
  return out;
}

/**
 * Each entry is {question, answer, alternatives?} or {text}: trimmed, non-empty, nothing else. The
 * message names the entry (knowledge[3]) so a 500-entry upload is easy to fix.
 */
export function normaliseKnowledge(entries: unknown, where = "knowledge"): KnowledgeEntry[] {
  if (!Array.isArray(entries)) throw new AppError("VALIDATION_ERROR", `${where} must be an array`);
  if (entries.length > LIMITS.knowledgeEntries) {
    throw new AppError("VALIDATION_ERROR", `${where} must have at most ${LIMITS.knowledgeEntries} entries`);
  }
  return entries.map((raw, i) => {
    const at = `${where}[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new AppError("VALIDATION_ERROR", `${at} must be an object {question, answer} or {text}`);
    }
    const e = raw as Record<string, unknown>;
    const str = (name: string, max: number): string | undefined => {
      const v = e[name];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== "string") throw new AppError("VALIDATION_ERROR", `${at}.${name} must be string`);
      const t = v.trim();
      if (t.length > max)
        throw new AppError("VALIDATION_ERROR", `${at}.${name} must be at most ${max} characters`);
      return t === "" ? undefined : t;
    };
    const question = str("question", LIMITS.question);
    const answer = str("answer", LIMITS.answer);
    const text = str("text", LIMITS.answer);
    const hasAlternatives = e.alternatives !== undefined && e.alternatives !== null;
    if (text !== undefined && question === undefined && answer === undefined) {
      if (hasAlternatives) {
        throw new AppError(
          "VALIDATION_ERROR",
          `${at}.alternatives is only allowed on a {question, answer} entry, not on {text}`,
        );
      }
      return { text };
    }
    if (question !== undefined && answer !== undefined && text === undefined) {
      if (!hasAlternatives) return { question, answer };
      const alternatives = normaliseAlternatives(e.alternatives, `${at}.alternatives`, question);
      return alternatives.length > 0 ? { question, answer, alternatives } : { question, answer };
    }
    if (text !== undefined) {
      throw new AppError("VALIDATION_ERROR", `${at} must be either {question, answer} or {text}, not both`);
    }
    throw new AppError(
      "VALIDATION_ERROR",
      `${at} needs a non-empty question and answer, or a non-empty text`,
    );
  });
}

/** Trimmed, non-blank, de-duplicated case-insensitively, order kept. */
export function normaliseKeywords(keywords: string[]): string[] {
  if (keywords.length > LIMITS.keywords) {
    throw new AppError("VALIDATION_ERROR", `keywords must have at most ${LIMITS.keywords} entries`);
  }
  const seen = new Set<string>();
  const out: string[] = [];
  keywords.forEach((k, i) => {
    const t = k.trim();
    if (t === "") throw new AppError("VALIDATION_ERROR", `keywords[${i}] must not be empty`);
    if (t.length > LIMITS.keyword) {
      throw new AppError("VALIDATION_ERROR", `keywords[${i}] must be at most ${LIMITS.keyword} characters`);
    }
    const key = t.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      out.push(t);
    }
  });
  return out;
}

// The HTTP schemas enforce the same limits; these checks also cover the CLI.
function limited(value: string, field: string, max: number): string {
  const t = value.trim();
  if (t.length > max) throw new AppError("VALIDATION_ERROR", `${field} must be at most ${max} characters`);
  return t;
}

function requiredText(value: string, field: string, max: number): string {
  const t = limited(value, field, max);
  if (t === "") throw new AppError("VALIDATION_ERROR", `${field} must not be empty`);
  return t;
}

function optionalModel(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const t = limited(value, "model", LIMITS.model);
  return t === "" ? null : t;
}

export interface Outgoing {
  message: string;
  listId: string;
  /** The label for members not known on one of their own; null: such members are skipped. */
  channel: string | null;
  /** A built-in channel the first messages go through instead of the custom channel. */
  channelId?: string | null;
  /** WhatsApp: the approved template each first message is sent as. */
  template?: { name: string; language: string; parameters: string[] } | null;
  ratePerMinute: number;
  /** Only during the account's business hours (absent on campaigns saved before: false). */
  onlyInHours?: boolean;
}

/**
 * What the outgoing side may be given: the rate ceiling is the server's (OUTGOING_MAX_PER_MINUTE); and
 * which plain-http addresses a function URL may use (OUTBOUND_ALLOW_CIDRS).
 */
export interface OutgoingLimits {
  maxPerMinute: number;
  outboundAllowCidrs?: string[];
}

/** Routes pass the server's limits; a caller without an outgoing side (the default campaign) need not. */
function limitsOf(limits: OutgoingLimits | undefined): OutgoingLimits {
  if (!limits) throw new Error("an outgoing side needs the server's outgoing limits");
  return limits;
}

export function outgoingOf(c: Pick<CampaignRow, "outgoing">): Outgoing | null {
  if (!c.outgoing) return null;
  try {
    return JSON.parse(c.outgoing) as Outgoing;
  } catch {
    return null;
  }
}

function outgoingView(c: CampaignRow) {
  const o = outgoingOf(c);
  return o
    ? {
        ...o,
        channel: o.channel ?? null,
        channelId: o.channelId ?? null,
        template: o.template ?? null,
        onlyInHours: o.onlyInHours ?? false,
        state: c.outgoing_state,
        pausedReason: c.outgoing_reason,
      }
    : null;
}

/**
 * An outgoing side as given: trimmed, its rate within the server's ceiling (400 naming it), its list
 * this account's (404 LIST_NOT_FOUND otherwise).
 */
async function parseOutgoing(
  db: Db,
  accountId: string,
  input: OutgoingInput | null,
  limits: OutgoingLimits,
): Promise<string | null> {
  if (input === null) return null;
  const message = input.message.trim();
  const channel = input.channel == null ? null : input.channel.trim();
  if (!message) throw new AppError("VALIDATION_ERROR", "outgoing.message must not be empty");
  if (channel === "") throw new AppError("VALIDATION_ERROR", "outgoing.channel must not be empty");
  const ratePerMinute = input.ratePerMinute ?? 60;
  if (ratePerMinute > limits.maxPerMinute) {
    throw new AppError(
      "VALIDATION_ERROR",
      `outgoing.ratePerMinute must be at most ${limits.maxPerMinute} (this server's OUTGOING_MAX_PER_MINUTE)`,
    );
  }
  await requireList(db, accountId, input.listId);
  const channelId = input.channelId ?? null;
  let template: Outgoing["template"] = null;
  if (channelId !== null) {
    const row = await findChannel(db.kysely, accountId, channelId);
    if (!row || row.type === "web") {
      throw new AppError("CHANNEL_NOT_FOUND", `No provider channel with id ${channelId}`);
    }
    if (row.type === "whatsapp") {
      if (!input.template) {
        throw new AppError(
          "VALIDATION_ERROR",
          "outgoing.template is required on a WhatsApp channel: WhatsApp delivers a first message only as an approved template",
        );
      }
      template = {
        name: input.template.name.trim(),
        language: input.template.language.trim(),
        parameters: input.template.parameters ?? [],
      };
    }
  }
  if (input.template && template === null) {
    throw new AppError("VALIDATION_ERROR", "outgoing.template is for WhatsApp channels only");
  }
  const o: Outgoing = {
    message,
    listId: input.listId,
    channel,
    channelId,
    template,
    ratePerMinute,
    onlyInHours: input.onlyInHours ?? false,
  };
  return JSON.stringify(o);
}

export function campaignSummaryView(c: CampaignRow) {
  return {
    id: c.id,
    name: c.name,
    status: c.status,
    instructions: c.instructions,
    knowledgeCount: parseKnowledge(c.knowledge).length,
    keywords: parseStrings(c.keywords),
    fallbackMessage: c.fallback_message,
    engine: c.engine,
    model: c.model,
    isDefault: Number(c.is_default) === 1,
    outgoing: outgoingView(c),
    createdAt: iso(c.created_at),
    updatedAt: iso(c.updated_at),
  };
}

export function campaignView(c: CampaignRow) {
  return {
    ...campaignSummaryView(c),
    knowledge: parseKnowledge(c.knowledge),
    functions: parseFunctions(c.functions),
    followUps: followUpsView(c.follow_ups),
    outsideHours: c.outside_hours,
    awayMessage: c.away_message === "" ? null : c.away_message,
    followUpsInHours: Number(c.follow_ups_in_hours) === 1,
  };
}

/** The away message as given: trimmed, at most 1,000 characters; null or blank is none (""). */
function awayMessageOf(value: string | null): string {
  return value === null ? "" : limited(value, "awayMessage", LIMITS.awayMessage);
}

/** Away outside business hours needs something to send. */
function requireAwayMessage(outsideHours: CampaignRow["outside_hours"], awayMessage: string): void {
  if (outsideHours === "away" && awayMessage === "") {
    throw new AppError(
      "VALIDATION_ERROR",
      "awayMessage is required when outsideHours is away (1–1,000 characters, {{openingTime}} for the next opening)",
    );
  }
}

/**
 * Serialises changes to one account's campaigns on PostgreSQL (a row lock on the account), so two
 * concurrent "make this the default" requests cannot leave two defaults. SQLite runs one writer anyway.
 */
async function lockAccount(db: Db, trx: Parameters<typeof campaignRepo.findCampaign>[0], accountId: string) {
  if (db.dialect === "postgres") {
    await trx.selectFrom("accounts").select("id").where("id", "=", accountId).forUpdate().execute();
  }
}

export async function createCampaign(
  db: Db,
  accountId: string,
  input: CampaignInput,
  limits?: OutgoingLimits,
): Promise<CampaignRow> {
  const now = Date.now();
  const followUps = normaliseFollowUps(input.followUps ?? []);
  requireFollowUpEngine(followUps, input.engine ?? "auto");
  const outsideHours = input.outsideHours ?? "answer";
  const awayMessage = awayMessageOf(input.awayMessage ?? null);
  requireAwayMessage(outsideHours, awayMessage);
  const row: CampaignRow = {
    id: newId("campaign"),
    account_id: accountId,
    name: requiredText(input.name, "name", LIMITS.name),
    status: input.status ?? "draft",
    instructions: limited(input.instructions ?? "", "instructions", LIMITS.instructions),
    knowledge: JSON.stringify(normaliseKnowledge(input.knowledge ?? [])),
    keywords: JSON.stringify(normaliseKeywords(input.keywords ?? [])),
    fallback_message:
      input.fallbackMessage === undefined
        ? DEFAULT_FALLBACK_MESSAGE
        : requiredText(input.fallbackMessage, "fallbackMessage", LIMITS.fallbackMessage),
    engine: input.engine ?? "auto",
    model: optionalModel(input.model),
    is_default: 0,
    outgoing:
      input.outgoing === undefined
        ? null
        : await parseOutgoing(db, accountId, input.outgoing, limitsOf(limits)),
    outgoing_state: null,
    outgoing_reason: null,
    functions: JSON.stringify(
      input.functions === undefined
        ? []
        : await normaliseFunctions(input.functions, limits?.outboundAllowCidrs ?? []),
    ),
    follow_ups: JSON.stringify(followUps),
    outside_hours: outsideHours,
    away_message: awayMessage,
    follow_ups_in_hours: input.followUpsInHours ? 1 : 0,
    created_at: now,
    updated_at: now,
  };
  await db.write(async (trx) => {
    await lockAccount(db, trx, accountId);
    await campaignRepo.insertCampaign(trx, row);
    if (input.isDefault) await campaignRepo.setDefaultCampaign(trx, accountId, row.id);
  });
  return requireCampaign(db, accountId, row.id);
}

export async function requireCampaign(db: Db, accountId: string, campaignId: string): Promise<CampaignRow> {
  const c = await campaignRepo.findCampaign(db.kysely, accountId, campaignId);
  if (!c) throw new AppError("CAMPAIGN_NOT_FOUND", `campaign ${campaignId} not found`);
  return c;
}

export async function updateCampaign(
  db: Db,
  accountId: string,
  campaignId: string,
  input: CampaignUpdate,
  limits?: OutgoingLimits,
): Promise<CampaignRow> {
  const patch: campaignRepo.CampaignPatch = {};
  if (input.name !== undefined) patch.name = requiredText(input.name, "name", LIMITS.name);
  if (input.status !== undefined) patch.status = input.status;
  if (input.instructions !== undefined)
    patch.instructions = limited(input.instructions, "instructions", LIMITS.instructions);
  if (input.knowledge !== undefined) patch.knowledge = JSON.stringify(normaliseKnowledge(input.knowledge));
  if (input.keywords !== undefined) patch.keywords = JSON.stringify(normaliseKeywords(input.keywords));
  if (input.fallbackMessage !== undefined)
    patch.fallback_message = requiredText(input.fallbackMessage, "fallbackMessage", LIMITS.fallbackMessage);
  if (input.engine !== undefined) patch.engine = input.engine;
  if (input.model !== undefined) patch.model = optionalModel(input.model);
  if (input.outgoing !== undefined)
    patch.outgoing = await parseOutgoing(db, accountId, input.outgoing, limitsOf(limits));
  if (input.functions !== undefined) {
    patch.functions = JSON.stringify(
      await normaliseFunctions(input.functions, limits?.outboundAllowCidrs ?? []),
    );
  }
  const followUps = input.followUps === undefined ? undefined : normaliseFollowUps(input.followUps);
  if (followUps !== undefined) patch.follow_ups = JSON.stringify(followUps);
  if (input.outsideHours !== undefined) patch.outside_hours = input.outsideHours;
  if (input.awayMessage !== undefined) patch.away_message = awayMessageOf(input.awayMessage);
  if (input.followUpsInHours !== undefined) patch.follow_ups_in_hours = input.followUpsInHours ? 1 : 0;
  await db.write(async (trx) => {
    await lockAccount(db, trx, accountId);
    const current = await campaignRepo.findCampaign(trx, accountId, campaignId);
    if (!current) throw new AppError("CAMPAIGN_NOT_FOUND", `campaign ${campaignId} not found`);
    // Instruction steps need the LLM engine, whichever of the two this update changes.
    if (followUps !== undefined || input.engine !== undefined) {
      requireFollowUpEngine(followUps ?? parseFollowUps(current.follow_ups), input.engine ?? current.engine);
    }
    requireAwayMessage(
      patch.outside_hours ?? current.outside_hours,
      patch.away_message ?? current.away_message,
    );
    if (input.isDefault === false && Number(current.is_default) === 1) {
      throw new AppError(
        "CAMPAIGN_IS_DEFAULT",
        "an account always has one default campaign: make another campaign the default instead",
      );
    }
    await campaignRepo.updateCampaign(trx, accountId, campaignId, patch);
    if (input.isDefault === true) await campaignRepo.setDefaultCampaign(trx, accountId, campaignId);
  });
  return requireCampaign(db, accountId, campaignId);
}

export async function deleteCampaign(db: Db, accountId: string, campaignId: string): Promise<void> {
  await db.write(async (trx) => {
    await lockAccount(db, trx, accountId);
    const current = await campaignRepo.findCampaign(trx, accountId, campaignId);
    if (!current) throw new AppError("CAMPAIGN_NOT_FOUND", `campaign ${campaignId} not found`);
    if (Number(current.is_default) === 1) {
      throw new AppError(
        "CAMPAIGN_IS_DEFAULT",
        "the default campaign cannot be deleted: make another campaign the default first",
      );
    }
    await campaignRepo.deleteCampaign(trx, accountId, campaignId);
    await forgetCampaign(trx, accountId, campaignId);
    // A channel routed to it routes nowhere in particular again (the account's routing decides).
    await forgetChannelCampaign(trx, accountId, campaignId);
    // Its knowledge sources and their passages go with it; their stored files are left to the
    // knowledge module's orphan sweep (no source names them any more).
    await deleteCampaignSources(trx, accountId, campaignId);
  });
}

export async function pageCampaigns(db: Db, accountId: string, query: Static<typeof CampaignListQuery>) {
  const limit = query.limit ?? 50;
  const rows = await campaignRepo.pageCampaigns(db.kysely, accountId, {
    after: decodeCursor(query.cursor),
    limit,
    status: query.status,
  });
  return toPage(rows, limit, (r) => r.id, campaignSummaryView);
}

export type SaveKnowledgeInput = { question: string; answer?: string; entryIndex?: number };
export type KnowledgeChange = "alternative_added" | "entry_created" | "unchanged";

/**
 * "Save as knowledge": a customer's message the bot could not answer becomes another phrasing of an
 * existing question/answer entry (entryIndex), or a new entry with a person's answer. Read and written
 * in one transaction under the account lock, so two saves at once both land.
 */
export async function saveKnowledge(
  db: Db,
  accountId: string,
  campaignId: string,
  input: SaveKnowledgeInput,
): Promise<{ campaign: CampaignRow; entryIndex: number; change: KnowledgeChange }> {
  const question = requiredText(input.question, "question", LIMITS.question);
  const hasAnswer = input.answer !== undefined;
  if (hasAnswer === (input.entryIndex !== undefined)) {
    throw new AppError(
      "VALIDATION_ERROR",
      "give either entryIndex (add the question as another phrasing of that entry) or answer (a new entry)",
    );
  }
  const answer = hasAnswer ? requiredText(input.answer ?? "", "answer", LIMITS.answer) : null;
  const outcome = await db.write(async (trx) => {
    await lockAccount(db, trx, accountId);
    const current = await campaignRepo.findCampaign(trx, accountId, campaignId);
    if (!current) throw new AppError("CAMPAIGN_NOT_FOUND", `campaign ${campaignId} not found`);
    const knowledge = parseKnowledge(current.knowledge);
    let entryIndex: number;
    let change: KnowledgeChange;
    if (answer !== null) {
      if (knowledge.length >= LIMITS.knowledgeEntries) {
        throw new AppError(
          "VALIDATION_ERROR",
          `knowledge already has ${LIMITS.knowledgeEntries} entries: add the question to an existing entry`,
        );
      }
      knowledge.push({ question, answer });
      entryIndex = knowledge.length - 1;
      change = "entry_created";
    } else {
      entryIndex = input.entryIndex ?? -1;
      const entry = knowledge[entryIndex];
      if (!entry) {
        throw new AppError(
          "VALIDATION_ERROR",
          `entryIndex ${entryIndex} is not an entry of this campaign (it has ${knowledge.length})`,
        );
      }
      if (entry.question === undefined || entry.answer === undefined) {
        throw new AppError(
          "VALIDATION_ERROR",
          `knowledge[${entryIndex}] is a text passage: other phrasings belong to question/answer entries`,
        );
      }
      const known = [entry.question, ...(entry.alternatives ?? [])].map((q) => q.toLowerCase());
      if (known.includes(question.toLowerCase())) {
        change = "unchanged";
      } else {
        if ((entry.alternatives?.length ?? 0) >= LIMITS.alternatives) {
          throw new AppError(
            "VALIDATION_ERROR",
            `knowledge[${entryIndex}] already has ${LIMITS.alternatives} other phrasings: remove one first`,
          );
        }
        entry.alternatives = [...(entry.alternatives ?? []), question];
        change = "alternative_added";
      }
    }
    if (change !== "unchanged") {
      await campaignRepo.updateCampaign(trx, accountId, campaignId, { knowledge: JSON.stringify(knowledge) });
    }
    return { entryIndex, change };
  });
  return { campaign: await requireCampaign(db, accountId, campaignId), ...outcome };
}

/** The answer of POST /v1/campaigns/{id}/knowledge (and its /app/api twin). */
export async function saveKnowledgeView(
  db: Db,
  accountId: string,
  campaignId: string,
  input: SaveKnowledgeInput,
) {
  const { campaign, entryIndex, change } = await saveKnowledge(db, accountId, campaignId, input);
  const knowledge = parseKnowledge(campaign.knowledge);
  const entry = knowledge[entryIndex] ?? {};
  return {
    campaignId: campaign.id,
    change,
    entry: {
      index: entryIndex,
      question: entry.question ?? "",
      answer: entry.answer ?? "",
      alternatives: entry.alternatives ?? [],
    },
    knowledgeCount: knowledge.length,
  };
}

// "Try it": what the bot would answer to a message with a campaign, without sending anything, storing
// a message or using a credit. The same engines and knowledge as a real reply (bot/reply-job.ts).
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { findAccountById } from "../accounts/repo.ts";
import { choicesMessage } from "./choices.ts";
import { knowledgeOf } from "./engine-cache.ts";
import {
  DEFAULT_LLM_TIMEOUT_MS,
  generateLlmReply,
  KNOWLEDGE_PASSAGES,
  resolveLlmTarget,
} from "./engine-llm.ts";
import { asksForPerson, HANDOVER_MESSAGE } from "./handover.ts";
import { requireCampaign } from "./service.ts";

export interface Preview {
  engine: "builtin" | "llm";
  outcome: "answer" | "fallback" | "handover" | "choices";
  reply: string;
  /** The knowledge entry the answer came from (builtin engine), or null. */
  entry: { index: number; question: string | null } | null;
  /** The builtin engine's confidence in its best entry (0..1); null for the LLM engine. */
  confidence: number | null;
  /** Why a fallback: no_answer, llm_not_configured, llm_error; a hand-over: human_requested. */
  reason: string | null;
  /** The knowledge source the answer came from (builtin engine), and the passage that answered. */
  source: { id: string; name: string; passage: string } | null;
  /** Builtin fallback: the entry that came closest, below the threshold (the campaign's own entries). */
  closest: { index: number; question: string | null; confidence: number } | null;
  /** Builtin "Did you mean": the entries the bot would offer. */
  choices?: {
    id: string;
    title: string;
    index: number;
    confidence: number;
    source: { id: string; name: string } | null;
  }[];
}

export async function previewReply(
  ctx: AppContext,
  accountId: string,
  campaignId: string,
  message: string,
): Promise<Preview> {
  const text = message.trim();
  if (!text) throw new AppError("VALIDATION_ERROR", "message must not be empty");
  const campaign = await requireCampaign(ctx.db, accountId, campaignId);
  const account = await findAccountById(ctx.db.kysely, accountId);
  if (!account) throw new AppError("NOT_FOUND", "account not found");
  const target = resolveLlmTarget(account, ctx.config, campaign.model);
  const engine: "builtin" | "llm" =
    campaign.engine === "auto" ? (target ? "llm" : "builtin") : campaign.engine;
  const { entries, ownEntries, engine: builtin } = await knowledgeOf(ctx, campaign);
  const rounded = (score: number) => Math.round(score * 1000) / 1000;
  const fallback = (reason: string, closest: Preview["closest"] = null): Preview => ({
    engine,
    outcome: "fallback",
    reply: campaign.fallback_message,
    entry: null,
    confidence: null,
    reason,
    source: null,
    closest,
  });
  const handover: Preview = {
    engine,
    outcome: "handover",
    reply: HANDOVER_MESSAGE,
    entry: null,
    confidence: null,
    reason: "human_requested",
    source: null,
    closest: null,
  };
  if (asksForPerson(text)) return handover;
  if (engine === "builtin") {
    const decision = builtin.decide(text);
    if (decision.kind === "choices") {
      return {
        engine,
        outcome: "choices",
        reply: choicesMessage(decision.choices),
        entry: null,
        confidence: null,
        reason: null,
        source: null,
        closest: null,
        choices: decision.choices.map((c, i) => ({
          id: String(i + 1),
          title: c.title,
          index: c.entryIndex,
          confidence: rounded(c.score),
          source: c.source ? { id: c.source.id, name: c.source.name } : null,
        })),
      };
    }
    const match = decision.kind === "answer" ? decision.match : null;
    if (!match) {
      const near = builtin.closest(text);
      return fallback(
        "no_answer",
        near && near.entryIndex < ownEntries
          ? {
              index: near.entryIndex,
              question: entries[near.entryIndex]?.question ?? null,
              confidence: rounded(near.score),
            }
          : null,
      );
    }
    const entry = entries[match.entryIndex];
    return {
      engine,
      outcome: "answer",
      reply: match.answer,
      // An answer from a source's passage names the source instead of an entry of the campaign's own.
      entry: match.source ? null : { index: match.entryIndex, question: entry?.question ?? null },
      confidence: rounded(match.score),
      reason: null,
      source: match.source ?? null,
      closest: null,
    };
  }
  if (!target) return fallback("llm_not_configured");
  try {
    const out = await generateLlmReply(
      target,
      {
        instructions: campaign.instructions,
        passages: entries.length ? builtin.top(text, KNOWLEDGE_PASSAGES) : [],
        history: [{ direction: "inbound", body: text }],
      },
      { fetcher: ctx.fetcher, timeoutMs: DEFAULT_LLM_TIMEOUT_MS },
    );
    if (out.kind === "person") return handover;
    if (out.kind !== "answer") return fallback("no_answer");
    return {
      engine,
      outcome: "answer",
      reply: out.text,
      entry: null,
      confidence: null,
      reason: null,
      source: null,
      closest: null,
    };
  } catch {
    return fallback("llm_error");
  }
}

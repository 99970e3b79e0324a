// "Try it": what the bot would answer to a message with a campaign, without sending anything, storing
// a message or using a credit. The same engines and knowledge as a real reply (bot/reply-job.ts).
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { findAccountById } from "../accounts/repo.ts";
import { topPassages } from "./engine-builtin.ts";
import {
  DEFAULT_LLM_TIMEOUT_MS,
  generateLlmReply,
  KNOWLEDGE_PASSAGES,
  resolveLlmTarget,
} from "./engine-llm.ts";
import { knowledgeOf } from "./reply-job.ts";
import { requireCampaign } from "./service.ts";

export interface Preview {
  engine: "builtin" | "llm";
  outcome: "answer" | "fallback";
  reply: string;
  /** The knowledge entry the answer came from (builtin engine), or null. */
  entry: { index: number; question: string | null } | null;
  /** The builtin engine's confidence in its best entry (0..1); null for the LLM engine. */
  confidence: number | null;
  /** Why a fallback: no_answer, llm_not_configured, llm_error. */
  reason: string | null;
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
  const { entries, engine: builtin } = knowledgeOf(ctx, campaign);
  const fallback = (reason: string, confidence: number | null = null): Preview => ({
    engine,
    outcome: "fallback",
    reply: campaign.fallback_message,
    entry: null,
    confidence,
    reason,
  });
  if (engine === "builtin") {
    const match = builtin.match(text);
    if (!match) return fallback("no_answer");
    const entry = entries[match.entryIndex];
    return {
      engine,
      outcome: "answer",
      reply: match.answer,
      entry: { index: match.entryIndex, question: entry?.question ?? null },
      confidence: Math.round(match.score * 1000) / 1000,
      reason: null,
    };
  }
  if (!target) return fallback("llm_not_configured");
  try {
    const out = await generateLlmReply(
      target,
      {
        instructions: campaign.instructions,
        passages: entries.length ? topPassages(entries, text, KNOWLEDGE_PASSAGES) : [],
        history: [{ direction: "inbound", body: text }],
      },
      { fetcher: ctx.fetcher, timeoutMs: DEFAULT_LLM_TIMEOUT_MS },
    );
    if (out.kind !== "answer") return fallback("no_answer");
    return { engine, outcome: "answer", reply: out.text, entry: null, confidence: null, reason: null };
  } catch {
    return fallback("llm_error");
  }
}

// Hand-over summaries: when the bot hands a conversation to a person (a fallback, a request for a
// person, a failing function), the person reads what the customer wants before the thread. With an LLM
// the model writes a short note; without one (or when it fails) the summary is the customer's messages
// the bot could not answer. One per conversation, replaced when a newer message makes it stale.
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { defineJob, type JobHandler } from "../../platform/jobs.ts";
import { iso } from "../../platform/text.ts";
import { findAccountById } from "../accounts/repo.ts";
import * as campaignRepo from "../campaigns/repo.ts";
import { findConversationById } from "../conversations/repo.ts";
import { generateSummaryText, resolveLlmTarget } from "./engine-llm.ts";
import * as repo from "./repo.ts";

/** Written after a hand-over commits (its own job, so a slow LLM never holds the reply back). */
export const summaryJob = defineJob(
  "bot.summary",
  Type.Object({
    conversationId: Type.String({ minLength: 1 }),
    reason: Type.Union([Type.String(), Type.Null()]),
  }),
  { subject: (p) => p.conversationId, maxAttempts: 3 },
);

const SUMMARY_TIMEOUT_MS = 15_000;
const HISTORY = 40;
const MAX_QUESTIONS = 10;
const QUESTION_CHARS = 300;

type Thread = repo.ThreadMessage[];

/**
 * The customer's messages since a person last wrote that no bot answer followed (the bot fell back or
 * never replied), oldest first. A request for a person is not one of them: the hand-over answered it.
 */
export function unansweredQuestions(thread: Thread): string[] {
  let start = 0;
  thread.forEach((m, i) => {
    if (m.direction === "outbound" && m.sender !== "bot") start = i + 1;
  });
  const out: string[] = [];
  for (let i = start; i < thread.length; i++) {
    const m = thread[i]!;
    if (m.direction !== "inbound" || m.body.trim() === "") continue;
    const next = thread.slice(i + 1).find((n) => n.direction === "outbound");
    // Answered, or the request for a person itself (the hand-over answered it): not a question left open.
    if (next?.sender === "bot" && (next.bot_outcome === "answer" || next.bot_outcome === "handover"))
      continue;
    const body = m.body.trim();
    out.push(body.length > QUESTION_CHARS ? `${body.slice(0, QUESTION_CHARS - 1)}…` : body);
  }
  return out.slice(-MAX_QUESTIONS);
}

/** Writes (or rewrites) the conversation's summary from its messages now. */
export async function writeSummary(
  ctx: AppContext,
  accountId: string,
  conversationId: string,
  reason: string | null,
): Promise<repo.ConversationSummaryRow | undefined> {
  const { db } = ctx;
  const [account, conversation] = await Promise.all([
    findAccountById(db.kysely, accountId),
    findConversationById(db.kysely, accountId, conversationId),
  ]);
  if (!account || !conversation) return undefined;
  const thread = await repo.lastTextMessages(db.kysely, accountId, conversation, HISTORY);
  const campaign = conversation.campaign_id
    ? await campaignRepo.findCampaign(db.kysely, accountId, conversation.campaign_id)
    : undefined;
  // After the LLM itself failed (or is missing), asking it for a summary would fail the same way.
  const llmDown = reason === "llm_error" || reason === "llm_not_configured";
  const target =
    campaign?.engine === "builtin" || llmDown
      ? null
      : resolveLlmTarget(account, ctx.config, campaign?.model ?? null);
  let summary: string | null = null;
  if (target && thread.length > 0) {
    try {
      const history = thread.map((m) => ({ direction: m.direction, body: m.body }));
      summary = (
        await generateSummaryText(target, history, { fetcher: ctx.fetcher, timeoutMs: SUMMARY_TIMEOUT_MS })
      ).text;
    } catch (err) {
      ctx.log.warn(
        {
          err: err instanceof Error ? { name: err.name, message: err.message } : String(err),
          conversationId,
        },
        "LLM summary failed; the summary lists the unanswered questions",
      );
    }
  }
  const row = {
    conversation_id: conversationId,
    account_id: accountId,
    engine: summary === null ? ("builtin" as const) : ("llm" as const),
    summary,
    questions: JSON.stringify(unansweredQuestions(thread)),
    reason,
    up_to_message_id: thread.at(-1)?.id ?? null,
    created_at: Date.now(),
  };
  await db.write((trx) => repo.saveSummary(trx, row));
  return repo.findSummary(db.kysely, accountId, conversationId);
}

export function summaryHandler(
  ctx: AppContext,
): JobHandler<{ conversationId: string; reason: string | null }> {
  return async ({ conversationId, reason }, job) => {
    if (!job.accountId) return undefined;
    await writeSummary(ctx, job.accountId, conversationId, reason);
    return undefined;
  };
}

export function summaryView(row: repo.ConversationSummaryRow) {
  let questions: string[] = [];
  try {
    const v = JSON.parse(row.questions) as unknown;
    if (Array.isArray(v)) questions = v.filter((q): q is string => typeof q === "string");
  } catch {
    // a damaged value reads as none
  }
  return {
    conversationId: row.conversation_id,
    engine: row.engine,
    summary: row.summary,
    unansweredQuestions: questions,
    reason: row.reason,
    upToMessageId: row.up_to_message_id,
    createdAt: iso(row.created_at),
  };
}

/**
 * The conversation's summary, written now when there is none yet or a newer message made the stored
 * one stale. 404 CONVERSATION_NOT_FOUND for another account's conversation.
 */
export async function summaryFor(ctx: AppContext, accountId: string, conversationId: string) {
  const conversation = await findConversationById(ctx.db.kysely, accountId, conversationId);
  if (!conversation) throw new AppError("CONVERSATION_NOT_FOUND", `conversation ${conversationId} not found`);
  const [stored, last] = await Promise.all([
    repo.findSummary(ctx.db.kysely, accountId, conversationId),
    repo.lastTextMessages(ctx.db.kysely, accountId, conversation, 1).then((rows) => rows[0]),
  ]);
  if (stored && stored.up_to_message_id === (last?.id ?? null)) return summaryView(stored);
  const reason =
    Number(conversation.human_alert) === 1 ? conversation.human_alert_reason : (stored?.reason ?? null);
  const written = await writeSummary(ctx, accountId, conversationId, reason);
  if (!written) throw new AppError("CONVERSATION_NOT_FOUND", `conversation ${conversationId} not found`);
  return summaryView(written);
}

// What the API offers around custom functions: the Test button's call, and the recorded calls of a
// conversation for the team (and for systems through /v1).
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { iso } from "../../platform/text.ts";
import { findAccountById } from "../accounts/repo.ts";
import { findConversationById } from "../conversations/repo.ts";
import { argumentErrors, callFunction, parseFunctions, shorten } from "./functions.ts";
import * as repo from "./repo.ts";
import { requireCampaign } from "./service.ts";

const TEST_RESPONSE_CHARS = 2_000;
const THREAD_CALLS = 200;

/**
 * Calls a saved function with sample arguments, signed like a real call (`"test": true` in the body,
 * no conversation). Nothing is recorded. 400 when the arguments do not match its parameters.
 */
export async function testFunction(
  ctx: AppContext,
  accountId: string,
  campaignId: string,
  name: string,
  args: unknown,
) {
  const campaign = await requireCampaign(ctx.db, accountId, campaignId);
  const fn = parseFunctions(campaign.functions).find((f) => f.name === name);
  if (!fn) throw new AppError("NOT_FOUND", `campaign ${campaignId} has no function named ${name}`);
  const input = args === undefined ? {} : args;
  const invalid = argumentErrors(fn, input);
  if (invalid) throw new AppError("VALIDATION_ERROR", `arguments: ${invalid}`);
  const account = await findAccountById(ctx.db.kysely, accountId);
  if (!account) throw new AppError("NOT_FOUND", "account not found");
  const result = await callFunction(ctx, account, fn, input, {
    conversationId: null,
    contactId: null,
    messageId: null,
    campaignId,
    test: true,
  });
  return {
    status: result.status,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    response: shorten(result.body, TEST_RESPONSE_CHARS),
    error: result.error,
  };
}

export function functionCallView(row: repo.BotFunctionCallRow) {
  let args: unknown = row.arguments;
  try {
    args = JSON.parse(row.arguments) as unknown;
  } catch {
    // the model's raw text, as it sent it
  }
  return {
    id: row.id,
    messageId: row.message_id,
    name: row.name,
    arguments: args,
    status: row.status,
    statusCode: row.status_code,
    durationMs: row.duration_ms,
    response: row.response,
    error: row.error,
    createdAt: iso(row.created_at),
  };
}

/** The conversation's recorded calls (the newest 200, oldest first). */
export async function functionCallsOf(ctx: AppContext, accountId: string, conversationId: string) {
  const conversation = await findConversationById(ctx.db.kysely, accountId, conversationId);
  if (!conversation) throw new AppError("CONVERSATION_NOT_FOUND", `conversation ${conversationId} not found`);
  const rows = await repo.listFunctionCalls(ctx.db.kysely, accountId, conversationId, THREAD_CALLS);
  return rows.map(functionCallView);
}

// The AI bot: campaigns (routes + CLI), the conversations' bot state, and the `bot.reply` and `bot.follow_up` jobs.
import { readFile } from "node:fs/promises";
import type { CliValues, Module } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { requireAccountByEmail } from "../accounts/service.ts";
import { insertCampaign } from "../campaigns/repo.ts";
import { followUpHandler, followUpJob, scheduleAfterHumanReply } from "./follow-ups.ts";
import { type BotOptions, botReplyBatchHandler, botReplyHandler, botReplyJob } from "./reply-job.ts";
import { deleteBotRecordsOfConversations } from "./repo.ts";
import { botRoutes } from "./routes.ts";
import { createCampaign, DEFAULT_FALLBACK_MESSAGE, normaliseKnowledge } from "./service.ts";
import { summaryHandler, summaryJob } from "./summary.ts";

const STATUSES = ["draft", "live", "paused"] as const;
const ENGINES = ["auto", "builtin", "llm"] as const;

function required(values: CliValues, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v.trim() === "")
    throw new AppError("VALIDATION_ERROR", `--${name} is required`);
  return v;
}

function oneOf<T extends string>(values: CliValues, name: string, allowed: readonly T[]): T | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !(allowed as readonly string[]).includes(v)) {
    throw new AppError("VALIDATION_ERROR", `--${name} must be one of ${allowed.join(", ")}`);
  }
  return v as T;
}

function optionalString(values: CliValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

/** FILE.json: an array of {"question","answer"} or {"text"} objects. Errors name the file and entry. */
export async function readKnowledgeFile(file: string) {
  let raw: string;
  try {
    raw = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new AppError(
      "VALIDATION_ERROR",
      `cannot read --knowledge file ${file}: ${code === "ENOENT" ? "no such file" : (code ?? String(err))}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new AppError(
      "VALIDATION_ERROR",
      `--knowledge file ${file} is not valid JSON (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  if (!Array.isArray(parsed)) {
    throw new AppError(
      "VALIDATION_ERROR",
      `--knowledge file ${file} must hold a JSON array of {"question","answer"} or {"text"} objects`,
    );
  }
  return normaliseKnowledge(parsed, `--knowledge file ${file}: entry`);
}

export function createBotModule(options: BotOptions = {}): Module {
  return {
    name: "bot",
    routes: botRoutes,
    // Every account starts with a live default campaign so the bot can answer from day one.
    async onAccountCreated(trx, account) {
      await insertCampaign(trx, {
        id: newId("campaign"),
        account_id: account.accountId,
        name: "Default",
        status: "live",
        instructions: "",
        knowledge: "[]",
        keywords: "[]",
        fallback_message: DEFAULT_FALLBACK_MESSAGE,
        engine: "auto",
        model: null,
        is_default: 1,
        outgoing: null,
        outgoing_state: null,
        outgoing_reason: null,
        functions: "[]",
        follow_ups: "[]",
        outside_hours: "answer",
        away_message: "",
        follow_ups_in_hours: 0,
        created_at: account.at,
        updated_at: account.at,
      });
    },
    // A person's reply starts the campaign's follow-up clock again.
    onHumanReply: scheduleAfterHumanReply,
    async onContactErased(trx, { accountId, conversationIds }) {
      await deleteBotRecordsOfConversations(trx, accountId, conversationIds);
    },
    jobs(worker, ctx) {
      worker.registerBatch(botReplyJob, botReplyHandler(ctx, options), botReplyBatchHandler(ctx, options));
      worker.register(summaryJob, summaryHandler(ctx));
      worker.register(followUpJob, followUpHandler(ctx));
    },
    commands: {
      "campaign create": {
        summary:
          "--email E --name N [--default] [--status draft|live|paused] [--keywords a,b] [--knowledge FILE.json] " +
          "[--fallback TEXT] [--engine auto|builtin|llm] [--instructions TEXT] [--model M]",
        options: {
          email: { type: "string" },
          name: { type: "string" },
          default: { type: "boolean" },
          status: { type: "string" },
          keywords: { type: "string" },
          knowledge: { type: "string" },
          fallback: { type: "string" },
          engine: { type: "string" },
          instructions: { type: "string" },
          model: { type: "string" },
        },
        async run(values, { db }) {
          const name = required(values, "name");
          const status = oneOf(values, "status", STATUSES);
          const engine = oneOf(values, "engine", ENGINES);
          const keywordsRaw = optionalString(values, "keywords");
          const knowledgeFile = optionalString(values, "knowledge");
          const knowledge = knowledgeFile === undefined ? undefined : await readKnowledgeFile(knowledgeFile);
          const account = await requireAccountByEmail(db, required(values, "email"));
          const fallback = optionalString(values, "fallback");
          const instructions = optionalString(values, "instructions");
          const model = optionalString(values, "model");
          const campaign = await createCampaign(db, account.id, {
            name,
            ...(status ? { status } : {}),
            ...(engine ? { engine } : {}),
            ...(keywordsRaw !== undefined
              ? { keywords: keywordsRaw.split(",").filter((k) => k.trim() !== "") }
              : {}),
            ...(knowledge ? { knowledge } : {}),
            ...(fallback !== undefined ? { fallbackMessage: fallback } : {}),
            ...(instructions !== undefined ? { instructions } : {}),
            ...(model !== undefined ? { model } : {}),
            isDefault: values.default === true,
          });
          return { campaignId: campaign.id };
        },
      },
    },
  };
}

export const botModule: Module = createBotModule();

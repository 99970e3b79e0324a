// "Suggest other ways to ask" (issue 34): the account's LLM proposes, once, other phrasings of a
// knowledge entry's question, the way customers would type them. Proposals only: nothing is stored; a
// person keeps the good ones and saves them as the entry's alternatives (PATCH the campaign), which the
// builtin engine then matches offline, with no LLM at run time.
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { findAccountById } from "../accounts/repo.ts";
import { chatModelOf, resolveLlmTarget } from "./engine-llm.ts";
import { LIMITS } from "./schemas.ts";
import { parseKnowledge, requireCampaign } from "./service.ts";

/** How many phrasings the model is asked for. */
export const PHRASINGS_ASKED = 8;
/** A proposal longer than this is dropped (customers type short questions). */
export const PHRASING_MAX_CHARS = 200;
/** Total time for the model's answer, its one retry included: a person is waiting in the app. */
export const PHRASINGS_TIMEOUT_MS = 20_000;
/** How much of the answer the model sees, as context only. */
const ANSWER_CONTEXT_CHARS = 600;

const INSTRUCTIONS =
  "You help a business teach its customer-service chat bot. You get one question from the business's " +
  `FAQ. Write ${PHRASINGS_ASKED} other ways a real customer might ask the same thing in a chat message: ` +
  "short, in the customer's own words, each different from the others. Vary the vocabulary: synonyms, " +
  "casual or blunt wording, a greeting or a typo now and then is fine. Write in the language of the " +
  "question. Ask the same thing only: never answer it, never add facts from the answer. Do not repeat " +
  "the question or the phrasings already known. Reply with a JSON array of strings and nothing else.";

export interface Phrasings {
  entry: { index: number; question: string };
  phrasings: string[];
}

/**
 * The key two phrasings are compared by: case, accents, punctuation and spacing do not count, so
 * "Do you deliver?" and "do you deliver" are one phrasing.
 */
export function phrasingKey(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Strings of a parsed JSON value: an array, or the first array inside an object ({"phrasings": […]});
 * an item that is an object gives its first string ({"text": "…"}).
 */
function stringsOf(value: unknown): string[] | null {
  if (Array.isArray(value)) {
    return value.flatMap((v) => {
      if (typeof v === "string") return [v];
      const first = v && typeof v === "object" ? Object.values(v).find((x) => typeof x === "string") : null;
      return typeof first === "string" ? [first] : [];
    });
  }
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) {
      if (Array.isArray(v)) return stringsOf(v);
    }
  }
  return null;
}

const BULLET = /^\s*(?:[-*•·–—]+|\(?\d{1,2}[.):]|[a-z][.)])\s+/iu;
const QUOTES = /^["'“”‘’«»`]+|["'“”‘’«»`]+$/gu;

/**
 * The model's text as a list of candidate phrasings: a JSON array (also inside a ```json fence or
 * after a sentence of preamble, or an object holding one; of an array cut short, its complete
 * strings), else one per line with bullets, numbers and quotes taken off; a line ending in ":" is a
 * preamble ("Here are 8 ways:") and is skipped.
 */
export function parsePhrasings(text: string): string[] {
  const unfenced = text.replace(/```[a-z]*\s*/gi, "").trim();
  const start = unfenced.search(/[[{]/);
  if (start >= 0) {
    const end = Math.max(unfenced.lastIndexOf("]"), unfenced.lastIndexOf("}"));
    if (end > start) {
      try {
        const strings = stringsOf(JSON.parse(unfenced.slice(start, end + 1)) as unknown);
        if (strings) return strings;
      } catch {
        // Not JSON after all: an array cut short, or lines.
      }
    }
  }
  // An array of strings cut short (the model ran out of tokens): its complete strings.
  const cut = unfenced.search(/(?:^|\n)\s*\[\s*"/);
  if (cut >= 0) {
    const strings = [...unfenced.slice(cut).matchAll(/"((?:[^"\\\n]|\\.)*)"/g)].map((m) => {
      try {
        return JSON.parse(`"${m[1]}"`) as string;
      } catch {
        return m[1]!;
      }
    });
    if (strings.length > 0) return strings;
  }
  return unfenced
    .split(/\r?\n/)
    .map((line) => line.replace(BULLET, "").trim().replace(/,$/, "").replace(QUOTES, "").trim())
    .filter((line) => line !== "" && !line.endsWith(":") && !/^[[\]{}]$/.test(line));
}

/**
 * Cleaned proposals: spacing collapsed, wrapping quotes off, blanks and ones over 200 characters
 * dropped, and no repeat of the question, of a known phrasing or of each other (by phrasingKey); at
 * most the schema's limit of alternatives, in the model's order.
 */
export function cleanPhrasings(candidates: string[], question: string, known: string[]): string[] {
  const seen = new Set([question, ...known].map(phrasingKey));
  const out: string[] = [];
  for (const raw of candidates) {
    const text = raw.replace(/\s+/g, " ").trim().replace(QUOTES, "").trim();
    const key = phrasingKey(text);
    if (key === "" || text.length > PHRASING_MAX_CHARS || seen.has(key)) continue;
    seen.add(key);
    out.push(text);
    if (out.length === LIMITS.alternatives) break;
  }
  return out;
}

function userMessage(question: string, answer: string, known: string[]): string {
  const context = answer.length > ANSWER_CONTEXT_CHARS ? `${answer.slice(0, ANSWER_CONTEXT_CHARS)}…` : answer;
  return [
    `Question: ${question}`,
    `The business's answer (context only, do not use it in the phrasings): ${context}`,
    known.length > 0
      ? `Phrasings already known (do not repeat them):\n${known.map((k) => `- ${k}`).join("\n")}`
      : "Phrasings already known: none.",
  ].join("\n\n");
}

/**
 * POST /v1/campaigns/{id}/knowledge/{index}/phrasings (and its /app/api twin). Checked in this order:
 * the campaign (404 CAMPAIGN_NOT_FOUND, also another account's), the entry (404 NOT_FOUND), a
 * question/answer entry (400 VALIDATION_ERROR for free text), an LLM (409 LLM_NOT_CONFIGURED); the
 * model failing, timing out or answering nothing is 502 LLM_ERROR with no detail of the provider's.
 */
export async function suggestPhrasings(
  ctx: AppContext,
  accountId: string,
  campaignId: string,
  index: number,
  options: { timeoutMs?: number } = {},
): Promise<Phrasings> {
  const campaign = await requireCampaign(ctx.db, accountId, campaignId);
  const knowledge = parseKnowledge(campaign.knowledge);
  const entry = knowledge[index];
  if (!entry) {
    throw new AppError(
      "NOT_FOUND",
      `knowledge entry ${index} not found: the campaign has ${knowledge.length} (0-based)`,
    );
  }
  if (!entry.question || !entry.answer) {
    throw new AppError(
      "VALIDATION_ERROR",
      `knowledge[${index}] is free text: other ways to ask belong to question/answer entries`,
    );
  }
  const account = await findAccountById(ctx.db.kysely, accountId);
  if (!account) throw new AppError("NOT_FOUND", "account not found");
  const target = resolveLlmTarget(account, ctx.config, campaign.model);
  if (!target) {
    throw new AppError(
      "LLM_NOT_CONFIGURED",
      "No LLM is set up for this account: add one in Settings (LLM provider), or ask the operator to set " +
        "LLM_BASE_URL and LLM_MODEL. Other ways to ask can still be typed by hand.",
    );
  }
  const known = entry.alternatives ?? [];
  const timeoutMs = options.timeoutMs ?? PHRASINGS_TIMEOUT_MS;
  let text: string;
  try {
    const [{ generateText }, model] = await Promise.all([
      import("ai"),
      chatModelOf(target, ctx.fetcher, timeoutMs),
    ]);
    const result = await generateText({
      model,
      instructions: INSTRUCTIONS,
      messages: [{ role: "user", content: userMessage(entry.question, entry.answer, known) }],
      maxRetries: 1,
      timeout: timeoutMs,
    });
    text = result.text.trim();
    if (text === "") throw new Error("the LLM returned an empty answer");
  } catch (err) {
    // The provider's words (and its address) stay in the server log.
    ctx.log.warn(
      { err: err instanceof Error ? { name: err.name, message: err.message } : String(err), campaignId },
      "LLM phrasing suggestions failed",
    );
    throw new AppError(
      "LLM_ERROR",
      "The LLM did not answer (it failed or took too long). Try again in a moment.",
    );
  }
  return {
    entry: { index, question: entry.question },
    phrasings: cleanPhrasings(parsePhrasings(text), entry.question, known),
  };
}

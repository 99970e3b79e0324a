// The "llm" engine: any OpenAI-compatible chat endpoint (OpenAI, Azure, Ollama, vLLM, llama.cpp server,
// OpenRouter) through the Vercel AI SDK. Prompt = campaign instructions + the best knowledge passages +
// the last messages of the conversation.
// The AI SDK is imported on first use: most processes never call an LLM, and it costs ~50 MB of memory.
import type { ModelMessage } from "ai";
import type { Config } from "../../config.ts";
import type { AccountRow } from "../../platform/db/schema.ts";
import type { SafeFetcher } from "../../platform/safe-fetch.ts";
import type { KnowledgeEntry } from "./engine-builtin.ts";
import { type BotFunction, FUNCTION_LIMITS } from "./functions.ts";

/** What the model answers when the knowledge does not cover the question (→ fallback + human alert). */
export const HANDOFF_TOKEN = "[[HANDOFF]]";
/** What the model answers when the customer asks for a person (→ hand-over, the bot pauses). */
export const PERSON_TOKEN = "[[PERSON]]";
export const HISTORY_MESSAGES = 20;
export const KNOWLEDGE_PASSAGES = 8;
/** Total time for one reply, its one retry included: well inside the worker's 60 s job lease. */
export const DEFAULT_LLM_TIMEOUT_MS = 30_000;
/** A reply that may call functions gets more time, still inside the lease. */
const FUNCTIONS_EXTRA_MS = 20_000;
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export interface LlmTarget {
  baseUrl: string;
  apiKey: string | null;
  model: string;
  /** The account chose the URL: its HTTP goes through the SSRF guard. */
  tenantUrl: boolean;
  /** The account pays its LLM provider itself (own endpoint or own key): bot replies cost no credits. */
  ownLlm: boolean;
}

/**
 * Where an account's LLM calls go. The account's own base URL (with only its own key: the platform key
 * never leaves for a tenant's URL), else the platform's LLM_BASE_URL, with the account's key when it
 * brought one (bring-your-own-key on the operator's endpoint) or the platform key. Null when no endpoint
 * or no model is configured.
 */
export function resolveLlmTarget(
  account: Pick<AccountRow, "llm_base_url" | "llm_api_key" | "llm_model">,
  config: Config,
  campaignModel: string | null,
): LlmTarget | null {
  const model = campaignModel ?? account.llm_model ?? config.llm.model;
  if (account.llm_base_url) {
    if (!model) return null;
    return {
      baseUrl: account.llm_base_url,
      apiKey: account.llm_api_key,
      model,
      tenantUrl: true,
      ownLlm: true,
    };
  }
  if (!config.llm.baseUrl || !model) return null;
  return {
    baseUrl: config.llm.baseUrl,
    apiKey: account.llm_api_key ?? config.llm.apiKey,
    model,
    tenantUrl: false,
    ownLlm: account.llm_api_key !== null,
  };
}

export interface LlmPrompt {
  instructions: string;
  passages: KnowledgeEntry[];
  /** Oldest first; the last one is the message being answered. */
  history: { direction: "inbound" | "outbound"; body: string }[];
}

/**
 * An entry's `alternatives` are left out: they only help the retrieval (topPassages) pick the entry,
 * a model understands paraphrases by itself, and up to 20 phrasings per entry would crowd the prompt.
 */
export function buildSystemPrompt(
  instructions: string,
  passages: KnowledgeEntry[],
  functions = false,
): string {
  const parts: string[] = [
    instructions.trim() ||
      "You are a friendly customer-service assistant for this business. Answer briefly and politely.",
  ];
  if (passages.length > 0) {
    const lines = passages.map((p, i) =>
      p.question
        ? `${i + 1}. Q: ${p.question}\n   A: ${p.answer ?? ""}`
        : `${i + 1}. ${p.text ?? p.answer ?? ""}`,
    );
    parts.push(`Knowledge (use it to answer; do not invent facts about the business):\n${lines.join("\n")}`);
  } else {
    parts.push("Knowledge: none was provided for this question.");
  }
  parts.push(
    `If the customer asks to talk to a person (a human, an agent, someone from the team), reply with exactly ${PERSON_TOKEN} and nothing else.`,
    `If you cannot answer from the knowledge, the conversation${functions ? " and the functions" : ""}, reply with exactly ${HANDOFF_TOKEN} and nothing else: a team member will take over.`,
  );
  if (functions) {
    parts.push(
      "You can call functions to look up live information from the business's systems. Use them when the customer's question needs it, and answer from their results; never invent what a function would return.",
    );
  }
  return parts.join("\n\n");
}

export function buildMessages(history: LlmPrompt["history"]): ModelMessage[] {
  return history.map((m) =>
    m.direction === "inbound"
      ? { role: "user" as const, content: m.body }
      : { role: "assistant" as const, content: m.body },
  );
}

/**
 * A fetch for the AI SDK that goes through the SSRF guard (an account's base URL is tenant input): the
 * host is resolved once and private/loopback addresses are refused unless OUTBOUND_ALLOW_CIDRS allows.
 */
export function guardedFetch(fetcher: SafeFetcher, timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== "string") {
      throw new TypeError("the LLM client only sends string bodies");
    }
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const pending = fetcher.request({
      url,
      method: init?.method?.toUpperCase() === "GET" ? "GET" : "POST",
      headers,
      ...(body ? { body } : {}),
      maxBodyBytes: MAX_RESPONSE_BYTES,
      totalTimeoutMs: timeoutMs,
    });
    const res = signal ? await abortable(pending, signal) : await pending;
    const out = new Headers();
    for (const [key, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) out.append(key, v);
    }
    const nullBody = res.status === 204 || res.status === 304 || (res.status >= 100 && res.status < 200);
    return new Response(nullBody ? null : new Uint8Array(res.body), { status: res.status, headers: out });
  };
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

/**
 * The chat model of a target, with the AI SDK loaded on first use. The platform endpoint is
 * operator-trusted (e.g. Ollama on localhost) and uses Node's fetch; an account's own URL goes through
 * the SSRF guard.
 */
export async function chatModelOf(target: LlmTarget, fetcher: SafeFetcher, timeoutMs: number) {
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
  const provider = createOpenAICompatible({
    name: "parley-llm",
    baseURL: target.baseUrl.replace(/\/+$/, ""),
    ...(target.apiKey ? { apiKey: target.apiKey } : {}),
    ...(target.tenantUrl ? { fetch: guardedFetch(fetcher, timeoutMs) } : {}),
  });
  return provider.chatModel(target.model);
}

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

export type LlmOutcome = (
  | { kind: "answer"; text: string }
  | { kind: "handoff" }
  | { kind: "person" }
  /** A function failed (error, timeout, blocked): the bot says it could not check and hands over. */
  | { kind: "function_failed" }
) & { usage: LlmUsage; functionCalls: number };

/** What running one function call came to, as the model is told. */
export type FunctionRun =
  | { ok: true; output: unknown }
  /** The model's mistake (bad arguments, too many calls): it is told and may go on. */
  | { ok: false; retry: true; message: string }
  /** The function itself failed: the reply ends in a hand-over. */
  | { ok: false; retry: false };

export interface LlmFunctions {
  defs: BotFunction[];
  /** Validates, calls and records one call. */
  run(fn: BotFunction, input: unknown): Promise<FunctionRun>;
  /** A call the SDK refused before it reached `run` (arguments that are not JSON, an unknown name). */
  refused(name: string, rawInput: string, error: string): Promise<void>;
}

export class FunctionFailed extends Error {}

/** Text the model reads for a function's answer: JSON when it is JSON, bounded in size. */
export function functionOutputForModel(body: string): unknown {
  const text = body.length > FUNCTION_LIMITS.modelChars ? body.slice(0, FUNCTION_LIMITS.modelChars) : body;
  if (text.length === body.length) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // not JSON: the text as it is
    }
  }
  return text;
}

/**
 * One reply: a chat completion, or (with functions) a short loop of them in which the model calls the
 * business's functions and reads their answers. Throws on failure or timeout of the LLM itself (the
 * caller turns that into fallback + alert).
 */
export async function generateLlmReply(
  target: LlmTarget,
  prompt: LlmPrompt,
  options: { fetcher: SafeFetcher; timeoutMs: number; functions?: LlmFunctions },
): Promise<LlmOutcome> {
  const fns = options.functions && options.functions.defs.length > 0 ? options.functions : null;
  const timeoutMs = options.timeoutMs + (fns ? FUNCTIONS_EXTRA_MS : 0);
  const [{ generateText, jsonSchema, stepCountIs, tool }, model] = await Promise.all([
    import("ai"),
    chatModelOf(target, options.fetcher, timeoutMs),
  ]);
  let calls = 0;
  let failed = false;
  const tools = fns
    ? Object.fromEntries(
        fns.defs.map((fn) => [
          fn.name,
          tool({
            description: fn.description,
            // Validated in `run` with the business's schema, so a mistake is recorded and told.
            inputSchema: jsonSchema(fn.parameters as Parameters<typeof jsonSchema>[0]),
            execute: async (input: unknown) => {
              calls++;
              const done = await fns.run(fn, calls > FUNCTION_LIMITS.callsPerReply ? LIMIT_REACHED : input);
              if (done.ok) return done.output;
              if (done.retry) return { error: done.message };
              failed = true;
              throw new FunctionFailed(`function ${fn.name} failed`);
            },
          }),
        ]),
      )
    : undefined;
  const result = await generateText({
    model,
    instructions: buildSystemPrompt(prompt.instructions, prompt.passages, fns !== null),
    messages: buildMessages(prompt.history),
    maxRetries: 1,
    timeout: timeoutMs,
    ...(tools
      ? {
          tools,
          // Past the limit every call is refused; one more step lets the model answer with what it has.
          stopWhen: [stepCountIs(FUNCTION_LIMITS.callsPerReply + 2), () => failed],
        }
      : {}),
  });
  if (fns) {
    // Calls the SDK refused itself (arguments that are not JSON, a name that is not a function) never
    // reached `run`: record them, the model was told in the next step.
    for (const step of result.steps) {
      for (const part of step.content) {
        // The SDK marks such a call on its tool-call part (`invalid`, with the parse error).
        if (part.type !== "tool-call" || !("invalid" in part && part.invalid)) continue;
        calls++;
        const raw = typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? null);
        await fns.refused(part.toolName, raw, errorText(part.error));
      }
    }
  }
  const usage = {
    inputTokens: result.totalUsage.inputTokens ?? 0,
    outputTokens: result.totalUsage.outputTokens ?? 0,
  };
  const base = { usage, functionCalls: calls };
  if (failed) return { kind: "function_failed", ...base };
  const text = result.text.trim();
  if (text === "") throw new Error("the LLM returned an empty answer");
  if (text.includes(PERSON_TOKEN)) return { kind: "person", ...base };
  if (text.includes(HANDOFF_TOKEN)) return { kind: "handoff", ...base };
  return { kind: "answer", text, ...base };
}

/** Passed to `run` instead of the model's arguments once a reply has made its calls. */
export const LIMIT_REACHED = Symbol("function call limit reached");

function errorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > 300 ? `${message.slice(0, 299)}…` : message;
}

const SUMMARY_INSTRUCTIONS =
  "You write a hand-over note for a support agent who is about to pick up this conversation with a " +
  "customer. In at most three short lines, plain text, no greeting: 1. what the customer wants; " +
  "2. what was already answered; 3. what is still missing or open. Use the customer's own facts " +
  "(order numbers, dates); never invent any.";

/** A short hand-over note of the conversation for the person who picks it up. Throws on failure. */
export async function generateSummaryText(
  target: LlmTarget,
  history: LlmPrompt["history"],
  options: { fetcher: SafeFetcher; timeoutMs: number },
): Promise<{ text: string; usage: LlmUsage }> {
  const [{ generateText }, model] = await Promise.all([
    import("ai"),
    chatModelOf(target, options.fetcher, options.timeoutMs),
  ]);
  const transcript = history
    .map((m) => `${m.direction === "inbound" ? "Customer" : "Business"}: ${m.body}`)
    .join("\n");
  const result = await generateText({
    model,
    instructions: SUMMARY_INSTRUCTIONS,
    messages: [{ role: "user", content: `Conversation so far:\n${transcript}` }],
    maxRetries: 1,
    timeout: options.timeoutMs,
  });
  const text = result.text.trim();
  if (text === "") throw new Error("the LLM returned an empty summary");
  return {
    text: text.slice(0, 2_000),
    usage: {
      inputTokens: result.totalUsage.inputTokens ?? 0,
      outputTokens: result.totalUsage.outputTokens ?? 0,
    },
  };
}

/**
 * A follow-up step written by the LLM: the campaign's instructions, the step's instruction and the
 * conversation so far (its last message is ours, unanswered). Throws on failure or an empty answer.
 */
export async function generateFollowUpText(
  target: LlmTarget,
  prompt: { instructions: string; instruction: string; history: LlmPrompt["history"] },
  options: { fetcher: SafeFetcher; timeoutMs: number },
): Promise<{ text: string; usage: LlmUsage }> {
  const [{ generateText }, model] = await Promise.all([
    import("ai"),
    chatModelOf(target, options.fetcher, options.timeoutMs),
  ]);
  const instructions = [
    prompt.instructions.trim() ||
      "You are a friendly customer-service assistant for this business. Write briefly and politely.",
    "The customer has not answered the last message of this conversation. Write one short follow-up " +
      "message to the customer, as the business, following this instruction. Answer with the message " +
      "text only, no quotes, no notes.",
    `Instruction: ${prompt.instruction}`,
  ].join("\n\n");
  const result = await generateText({
    model,
    instructions,
    messages: buildMessages(prompt.history),
    maxRetries: 1,
    timeout: options.timeoutMs,
  });
  const text = result.text.trim();
  if (text === "") throw new Error("the LLM returned an empty follow-up");
  return {
    text,
    usage: {
      inputTokens: result.totalUsage.inputTokens ?? 0,
      outputTokens: result.totalUsage.outputTokens ?? 0,
    },
  };
}

// The "llm" engine: any OpenAI-compatible chat endpoint (OpenAI, Azure, Ollama, vLLM, llama.cpp server,
// OpenRouter) through the Vercel AI SDK. Prompt = campaign instructions + the best knowledge passages +
// the last messages of the conversation.
// The AI SDK is imported on first use: most processes never call an LLM, and it costs ~50 MB of memory.
import type { ModelMessage } from "ai";
import type { Config } from "../../config.ts";
import type { AccountRow } from "../../platform/db/schema.ts";
import type { SafeFetcher } from "../../platform/safe-fetch.ts";
import type { KnowledgeEntry } from "./engine-builtin.ts";

/** What the model answers when the knowledge does not cover the question (→ fallback + human alert). */
export const HANDOFF_TOKEN = "[[HANDOFF]]";
export const HISTORY_MESSAGES = 20;
export const KNOWLEDGE_PASSAGES = 8;
/** Total time for one reply, its one retry included: well inside the worker's 60 s job lease. */
export const DEFAULT_LLM_TIMEOUT_MS = 30_000;
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
export function buildSystemPrompt(instructions: string, passages: KnowledgeEntry[]): string {
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
    `If you cannot answer from the knowledge and the conversation, or the customer asks for a person, reply with exactly ${HANDOFF_TOKEN} and nothing else: a team member will take over.`,
  );
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

export type LlmOutcome = { kind: "answer"; text: string } | { kind: "handoff" };

/** One chat completion; throws on failure or timeout (the caller turns that into fallback + alert). */
export async function generateLlmReply(
  target: LlmTarget,
  prompt: LlmPrompt,
  options: { fetcher: SafeFetcher; timeoutMs: number },
): Promise<LlmOutcome> {
  const [{ createOpenAICompatible }, { generateText }] = await Promise.all([
    import("@ai-sdk/openai-compatible"),
    import("ai"),
  ]);
  const provider = createOpenAICompatible({
    name: "parley-llm",
    baseURL: target.baseUrl.replace(/\/+$/, ""),
    ...(target.apiKey ? { apiKey: target.apiKey } : {}),
    // The platform endpoint is operator-trusted (e.g. Ollama on localhost) and uses Node's fetch.
    ...(target.tenantUrl ? { fetch: guardedFetch(options.fetcher, options.timeoutMs) } : {}),
  });
  const result = await generateText({
    model: provider.chatModel(target.model),
    instructions: buildSystemPrompt(prompt.instructions, prompt.passages),
    messages: buildMessages(prompt.history),
    maxRetries: 1,
    timeout: options.timeoutMs,
  });
  const text = result.text.trim();
  if (text === "") throw new Error("the LLM returned an empty answer");
  if (text.includes(HANDOFF_TOKEN)) return { kind: "handoff" };
  return { kind: "answer", text };
}

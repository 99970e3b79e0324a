// The Parley API client: one typed method per /v1 operation (see operations.ts), one request path with
// the key, timeouts, retries and errors.
import { ParleyError } from "./errors.ts";
import {
  OPERATIONS,
  type OperationId,
  type OperationSpec,
  type QueryParams,
  type RequestBody,
  type ResponseBody,
} from "./operations.ts";

export interface ParleyOptions {
  /** The account's API key (`pk_live_…`). Keep it server-side. */
  apiKey: string;
  /** The server address, with or without the `/v1/` segment: `https://parley.example.com/v1/`. */
  baseUrl: string;
  /** A `fetch` implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Retries after a 429, and after a 5xx or network error where repeating is safe (default 2). */
  maxRetries?: number;
  /** Per attempt (default 30,000 ms). */
  timeoutMs?: number;
  /** The longest `Retry-After` waited for; a longer one fails at once with the 429 (default 60,000 ms). */
  maxRetryAfterMs?: number;
  /**
   * How the key travels: `"header"` (default, `x-api-key`: accepted by every endpoint, keeps the key out
   * of URLs and access logs) or `"query"` (`?apiKey=`, the spec's form). The agency endpoints (/v1/subaccounts...) always use
   * the header, the only form they accept (their OpenAPI security is apiKeyHeader).
   */
  keyIn?: "header" | "query";
  /** Backoff between retries of a 5xx or network error: base delay, doubled each attempt (default 250 ms). */
  retryBaseDelayMs?: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
}

export interface GrantOptions extends RequestOptions {
  /**
   * Sent as `Idempotency-Key`: the server replays its stored answer for a repeat (24 h), so the call is
   * also retried after a 5xx or a network error. Without it, a grant is never repeated by the client.
   */
  idempotencyKey?: string;
}

/** An attachment's bytes with their content type. */
export interface Media {
  contentType: string;
  data: Uint8Array;
}

type PathParams = Record<string, string>;
type Query = Record<string, string | number | boolean | null | undefined>;

interface Call {
  params?: PathParams;
  query?: Query;
  body?: unknown;
  /** A text/csv body (contact imports) instead of JSON. */
  csv?: string | Uint8Array;
  headers?: Record<string, string>;
  options?: GrantOptions;
  raw?: boolean;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** `https://host/x/v1/`, `https://host/x/v1` and `https://host/x` all give `https://host/x`. */
export function normalizeBaseUrl(baseUrl: string): string {
  let base = baseUrl.trim();
  while (base.endsWith("/")) base = base.slice(0, -1);
  if (base.endsWith("/v1")) base = base.slice(0, -3);
  while (base.endsWith("/")) base = base.slice(0, -1);
  return base;
}

export class Parley {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;
  readonly #maxRetries: number;
  readonly #timeoutMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #keyIn: "header" | "query";
  readonly #retryBaseDelayMs: number;

  constructor(options: ParleyOptions) {
    if (!options.apiKey) throw new TypeError("Parley: apiKey is required");
    if (!options.baseUrl) throw new TypeError("Parley: baseUrl is required");
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.#apiKey = options.apiKey;
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError("Parley: no fetch available; pass options.fetch");
    this.#fetch = options.fetch ? f : (input, init) => globalThis.fetch(input, init);
    this.#maxRetries = options.maxRetries ?? 2;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
    this.#keyIn = options.keyIn ?? "header";
    this.#retryBaseDelayMs = options.retryBaseDelayMs ?? 250;
  }

  readonly account = {
    /** GET /v1/account: the calling account's settings. */
    get: (o?: RequestOptions) => this.#call("getAccount", { options: o }),
    /** GET /v1/account/business-hours: the hours (null: not set, always open), open now, the next opening. */
    getBusinessHours: (o?: RequestOptions) => this.#call("getBusinessHours", { options: o }),
    /** PUT /v1/account/business-hours: replaces them as a whole; `{ businessHours: null }` clears them. */
    setBusinessHours: (body: RequestBody<"setBusinessHours">, o?: RequestOptions) =>
      this.#call("setBusinessHours", { body, options: o }),
  };

  readonly contacts = {
    /** POST /v1/contacts: 201 new, or 200 with the existing contact of the same phone. */
    create: (body: RequestBody<"createContact">, o?: RequestOptions) =>
      this.#call("createContact", { body, options: o }),
    /** GET /v1/contacts?phoneNumber= or ?email=. */
    lookup: (by: { phoneNumber: string } | { email: string }, o?: RequestOptions) =>
      this.#call("lookupContact", { query: by as QueryParams<"lookupContact">, options: o }) as Promise<
        Extract<ResponseBody<"lookupContact">, { contactId: string }>
      >,
    /** GET /v1/contacts without phoneNumber or email: a page of contacts, newest first (q, label, cursor). */
    list: (query?: { q?: string; label?: string; limit?: number; cursor?: string }, o?: RequestOptions) =>
      this.#call("lookupContact", { query: query as QueryParams<"lookupContact">, options: o }) as Promise<
        Extract<ResponseBody<"lookupContact">, { data: unknown[] }>
      >,
    /** DELETE /v1/contacts/{id}: erases the contact with its conversation, messages and attachments. */
    delete: (contactId: string, o?: RequestOptions) =>
      this.#call("deleteContact", { params: { contactId }, options: o }),
    /** POST /v1/contacts/bulk: label, unlabel or delete up to 500 contacts in one transaction. */
    bulk: (body: RequestBody<"bulkContacts">, o?: RequestOptions) =>
      this.#call("bulkContacts", { body, options: o }),
    get: (contactId: string, o?: RequestOptions) =>
      this.#call("getContact", { params: { contactId }, options: o }),
    update: (contactId: string, body: RequestBody<"updateContact">, o?: RequestOptions) =>
      this.#call("updateContact", { params: { contactId }, body, options: o }),
    replace: (contactId: string, body: RequestBody<"replaceContact">, o?: RequestOptions) =>
      this.#call("replaceContact", { params: { contactId }, body, options: o }),
    messages: (contactId: string, query?: QueryParams<"listContactMessages">, o?: RequestOptions) =>
      this.#call("listContactMessages", { params: { contactId }, query, options: o }),
  };

  readonly imports = {
    /** POST /v1/contacts/imports: a CSV file (UTF-8, a header row); 202 with the import, then poll get(). */
    create: (csv: string | Uint8Array, query?: QueryParams<"createContactImport">, o?: RequestOptions) =>
      this.#call("createContactImport", { csv, query, options: o }),
    /** GET /v1/contacts/imports/{id}: status and progress (total, done, created, updated, rejected). */
    get: (importId: string, o?: RequestOptions) =>
      this.#call("getContactImport", { params: { importId }, options: o }),
    /** GET /v1/contacts/imports/{id}/rejected: the rejected rows as CSV text, with a reason each. */
    rejected: async (importId: string, o?: RequestOptions): Promise<string> => {
      const res = (await this.#call("getContactImportRejected", {
        params: { importId },
        options: o,
        raw: true,
      })) as unknown as Response;
      return res.text();
    },
  };

  /**
   * The account's data as a download, streamed: the answer is the fetch Response, whose body is the
   * file (CSV by default, or JSON Lines with `{ format: "jsonl" }`); read it with `res.body` or `res.text()`.
   */
  readonly exports = {
    contacts: async (query?: QueryParams<"exportContacts">, o?: RequestOptions): Promise<Response> =>
      (await this.#call("exportContacts", { query, options: o, raw: true })) as unknown as Response,
    conversations: async (
      query?: QueryParams<"exportConversations">,
      o?: RequestOptions,
    ): Promise<Response> =>
      (await this.#call("exportConversations", { query, options: o, raw: true })) as unknown as Response,
  };

  /** Account-wide snippets the web app's reply box inserts by "/shortcut". */
  readonly cannedReplies = {
    create: (body: RequestBody<"createCannedReply">, o?: RequestOptions) =>
      this.#call("createCannedReply", { body, options: o }),
    list: (query?: QueryParams<"listCannedReplies">, o?: RequestOptions) =>
      this.#call("listCannedReplies", { query, options: o }),
    update: (cannedReplyId: string, body: RequestBody<"updateCannedReply">, o?: RequestOptions) =>
      this.#call("updateCannedReply", { params: { cannedReplyId }, body, options: o }),
    delete: (cannedReplyId: string, o?: RequestOptions) =>
      this.#call("deleteCannedReply", { params: { cannedReplyId }, options: o }),
  };

  readonly lists = {
    create: (body: RequestBody<"createList">, o?: RequestOptions) =>
      this.#call("createList", { body, options: o }),
    list: (query?: QueryParams<"listLists">, o?: RequestOptions) =>
      this.#call("listLists", { query, options: o }),
    get: (listId: string, o?: RequestOptions) => this.#call("getList", { params: { listId }, options: o }),
    rename: (listId: string, name: string, o?: RequestOptions) =>
      this.#call("renameList", { params: { listId }, body: { name }, options: o }),
    delete: (listId: string, o?: RequestOptions) =>
      this.#call("deleteList", { params: { listId }, options: o }),
    addContact: (listId: string, contactId: string, o?: RequestOptions) =>
      this.#call("addContactToList", { params: { listId }, body: { contactId }, options: o }),
    /** POST /v1/lists/{id}/contacts/bulk: up to 500 contacts at once (added, alreadyMembers, notFound). */
    addContacts: (listId: string, contactIds: string[], o?: RequestOptions) =>
      this.#call("addContactsToList", { params: { listId }, body: { contactIds }, options: o }),
    contacts: (listId: string, query?: QueryParams<"listListContacts">, o?: RequestOptions) =>
      this.#call("listListContacts", { params: { listId }, query, options: o }),
    removeContact: (listId: string, contactId: string, o?: RequestOptions) =>
      this.#call("removeContactFromList", { params: { listId, contactId }, options: o }),
  };

  readonly messages = {
    /** POST /v1/incoming_custom_channel_message; retried safely (the messageSid deduplicates). */
    incoming: (body: RequestBody<"receiveIncomingMessage">, o?: RequestOptions) =>
      this.#call("receiveIncomingMessage", { body, options: o }),
    /** POST /v1/send_custom_channel_message; never repeated by the client after a 5xx. */
    send: (body: RequestBody<"sendCustomChannelMessage">, o?: RequestOptions) =>
      this.#call("sendCustomChannelMessage", { body, options: o }),
    get: (messageId: string, o?: RequestOptions) =>
      this.#call("getMessage", { params: { messageId }, options: o }),
    /** GET /v1/messages/{id}/media: the stored attachment's bytes. */
    media: async (messageId: string, o?: RequestOptions): Promise<Media> => {
      const res = (await this.#call("getMessageMedia", {
        params: { messageId },
        options: o,
        raw: true,
      })) as unknown as Response;
      return {
        contentType: res.headers.get("content-type") ?? "application/octet-stream",
        data: new Uint8Array(await res.arrayBuffer()),
      };
    },
    resend: (messageId: string, o?: RequestOptions) =>
      this.#call("resendMessage", { params: { messageId }, options: o }),
  };

  readonly conversations = {
    list: (query?: QueryParams<"listConversations">, o?: RequestOptions) =>
      this.#call("listConversations", { query, options: o }),
    get: (conversationId: string, o?: RequestOptions) =>
      this.#call("getConversation", { params: { conversationId }, options: o }),
    /** POST /v1/conversations/bulk: assign, resolve, reopen, label or unlabel up to 500 at once. */
    bulk: (body: RequestBody<"bulkConversations">, o?: RequestOptions) =>
      this.#call("bulkConversations", { body, options: o }),
    reply: (conversationId: string, body: RequestBody<"replyInConversation">, o?: RequestOptions) =>
      this.#call("replyInConversation", { params: { conversationId }, body, options: o }),
    setBot: (conversationId: string, body: RequestBody<"setConversationBot">, o?: RequestOptions) =>
      this.#call("setConversationBot", { params: { conversationId }, body, options: o }),
    /** GET /v1/conversations/{id}/summary: what the customer wants, for the person who picks it up. */
    summary: (conversationId: string, o?: RequestOptions) =>
      this.#call("getConversationSummary", { params: { conversationId }, options: o }),
    /** GET /v1/conversations/{id}/function-calls: the custom function calls the bot made there. */
    functionCalls: (conversationId: string, o?: RequestOptions) =>
      this.#call("listFunctionCalls", { params: { conversationId }, options: o }),
  };

  readonly campaigns = {
    create: (body: RequestBody<"createCampaign">, o?: RequestOptions) =>
      this.#call("createCampaign", { body, options: o }),
    list: (query?: QueryParams<"listCampaigns">, o?: RequestOptions) =>
      this.#call("listCampaigns", { query, options: o }),
    get: (campaignId: string, o?: RequestOptions) =>
      this.#call("getCampaign", { params: { campaignId }, options: o }),
    update: (campaignId: string, body: RequestBody<"updateCampaign">, o?: RequestOptions) =>
      this.#call("updateCampaign", { params: { campaignId }, body, options: o }),
    delete: (campaignId: string, o?: RequestOptions) =>
      this.#call("deleteCampaign", { params: { campaignId }, options: o }),
    /** POST /v1/campaigns/{id}/start: send the outgoing first message to the list (or resume). */
    start: (campaignId: string, o?: RequestOptions) =>
      this.#call("startCampaign", { params: { campaignId }, options: o }),
    /** POST /v1/campaigns/{id}/pause: no further first message. */
    pause: (campaignId: string, o?: RequestOptions) =>
      this.#call("pauseCampaign", { params: { campaignId }, options: o }),
    /** GET /v1/campaigns/{id}/stats: queued, sent, pending, failed, skipped (skippedByReason), replied, followUps. */
    stats: (campaignId: string, o?: RequestOptions) =>
      this.#call("getCampaignStats", { params: { campaignId }, options: o }),
    /** GET /v1/campaigns/{id}/skipped: the members the outgoing side skipped, each with its reason. */
    skipped: (campaignId: string, query?: QueryParams<"listCampaignSkipped">, o?: RequestOptions) =>
      this.#call("listCampaignSkipped", { params: { campaignId }, query, options: o }),
    /** POST /v1/campaigns/{id}/preview: what the bot would answer; nothing sent, stored or charged. */
    preview: (campaignId: string, message: string, o?: RequestOptions) =>
      this.#call("previewCampaign", { params: { campaignId }, body: { message }, options: o }),
    /**
     * POST /v1/campaigns/{id}/knowledge ("Save as knowledge"): `{question, entryIndex}` adds another
     * phrasing of an entry, `{question, answer}` a new entry.
     */
    saveKnowledge: (campaignId: string, body: RequestBody<"saveKnowledge">, o?: RequestOptions) =>
      this.#call("saveKnowledge", { params: { campaignId }, body, options: o }),
    /**
     * POST /v1/campaigns/{id}/knowledge/{index}/phrasings ("Suggest other ways to ask"): the LLM's
     * proposals of other phrasings of entry `index`'s question; nothing is stored (keep the good ones
     * in the entry's `alternatives` with `update`).
     */
    suggestPhrasings: (campaignId: string, index: number, o?: RequestOptions) =>
      this.#call("suggestPhrasings", { params: { campaignId, index: String(index) }, options: o }),
    /** POST /v1/campaigns/{id}/functions/{name}/test: call a saved custom function with sample arguments. */
    testFunction: (
      campaignId: string,
      name: string,
      body: RequestBody<"testCampaignFunction">,
      o?: RequestOptions,
    ) => this.#call("testCampaignFunction", { params: { campaignId, name }, body, options: o }),
  };

  /** A campaign's knowledge sources: files, web pages and sitemaps its bot answers from. */
  readonly sources = {
    /**
     * POST /v1/campaigns/{id}/sources: `{type: "file", name, contentType, data (base64)}`,
     * `{type: "url", url, dailyResync?}` or `{type: "sitemap", url, maxPages?, dailyResync?}`; answers
     * with status processing, read in the background.
     */
    create: (campaignId: string, body: RequestBody<"createSource">, o?: RequestOptions) =>
      this.#call("createSource", { params: { campaignId }, body, options: o }),
    list: (campaignId: string, query?: QueryParams<"listSources">, o?: RequestOptions) =>
      this.#call("listSources", { params: { campaignId }, query, options: o }),
    get: (campaignId: string, sourceId: string, o?: RequestOptions) =>
      this.#call("getSource", { params: { campaignId, sourceId }, options: o }),
    update: (campaignId: string, sourceId: string, body: RequestBody<"updateSource">, o?: RequestOptions) =>
      this.#call("updateSource", { params: { campaignId, sourceId }, body, options: o }),
    /** POST …/sources/{sourceId}/resync: read the file again, or fetch the page or sitemap again. */
    resync: (campaignId: string, sourceId: string, o?: RequestOptions) =>
      this.#call("resyncSource", { params: { campaignId, sourceId }, options: o }),
    delete: (campaignId: string, sourceId: string, o?: RequestOptions) =>
      this.#call("deleteSource", { params: { campaignId, sourceId }, options: o }),
  };

  /** Built-in channels: the web chat widget today (its embedSnippet goes on the website). */
  readonly channels = {
    create: (body: RequestBody<"createChannel">, o?: RequestOptions) =>
      this.#call("createChannel", { body, options: o }),
    list: (query?: QueryParams<"listChannels">, o?: RequestOptions) =>
      this.#call("listChannels", { query, options: o }),
    get: (channelId: string, o?: RequestOptions) =>
      this.#call("getChannel", { params: { channelId }, options: o }),
    update: (channelId: string, body: RequestBody<"updateChannel">, o?: RequestOptions) =>
      this.#call("updateChannel", { params: { channelId }, body, options: o }),
    delete: (channelId: string, o?: RequestOptions) =>
      this.#call("deleteChannel", { params: { channelId }, options: o }),
  };

  readonly subaccounts = {
    list: (query?: QueryParams<"listSubaccounts">, o?: RequestOptions) =>
      this.#call("listSubaccounts", { query, options: o }),
    create: (body: RequestBody<"createSubaccount">, o?: RequestOptions) =>
      this.#call("createSubaccount", { body, options: o }),
    get: (id: string, o?: RequestOptions) => this.#call("getSubaccount", { params: { id }, options: o }),
    /** POST /v1/subaccounts/credits (agency keys; always the `x-api-key` header). */
    grantCredits: (body: RequestBody<"grantSubaccountCredits">, o?: GrantOptions) =>
      this.#call("grantSubaccountCredits", {
        body,
        options: o,
        headers: o?.idempotencyKey ? { "idempotency-key": o.idempotencyKey } : {},
      }),
    setAutoRecharge: (id: string, body: RequestBody<"setSubaccountAutoRecharge">, o?: RequestOptions) =>
      this.#call("setSubaccountAutoRecharge", { params: { id }, body, options: o }),
    clearAutoRecharge: (id: string, o?: RequestOptions) =>
      this.#call("clearSubaccountAutoRecharge", { params: { id }, options: o }),
    /** Its key and sessions are refused (403 ACCOUNT_SUSPENDED) and its bot is silent; nothing is deleted. */
    suspend: (id: string, o?: RequestOptions) =>
      this.#call("suspendSubaccount", { params: { id }, options: o }),
    resume: (id: string, o?: RequestOptions) =>
      this.#call("resumeSubaccount", { params: { id }, options: o }),
    transactions: (id: string, query?: QueryParams<"listSubaccountTransactions">, o?: RequestOptions) =>
      this.#call("listSubaccountTransactions", { params: { id }, query, options: o }),
    /** Per UTC day: messages in and out, bot replies, credits used, deliveries (default the last 30 days). */
    usage: (id: string, query?: QueryParams<"getSubaccountUsage">, o?: RequestOptions) =>
      this.#call("getSubaccountUsage", { params: { id }, query, options: o }),
    /** The same as CSV, a row a day: the raw response, to save or read as text. */
    usageCsv: async (
      id: string,
      query?: QueryParams<"getSubaccountUsageCsv">,
      o?: RequestOptions,
    ): Promise<Response> =>
      (await this.#call("getSubaccountUsageCsv", {
        params: { id },
        query,
        options: o,
        raw: true,
      })) as unknown as Response,
  };

  readonly credits = {
    /** GET /v1/credits/transactions: the calling account's own credit history. */
    transactions: (query?: QueryParams<"listCreditTransactions">, o?: RequestOptions) =>
      this.#call("listCreditTransactions", { query, options: o }),
  };

  /**
   * Every item of a cursor-paginated list, page after page:
   * `for await (const c of parley.paginate((q) => parley.lists.contacts(listId, q))) …`
   */
  async *paginate<T, Q extends object = object>(
    page: (query: Q & { cursor?: string }) => Promise<{ data: T[]; nextCursor?: string | null }>,
    query?: Q & { cursor?: string },
  ): AsyncGenerator<T, void, undefined> {
    let cursor = query?.cursor;
    for (;;) {
      const res = await page({ ...(query as Q), ...(cursor === undefined ? {} : { cursor }) });
      yield* res.data;
      if (!res.nextCursor) return;
      cursor = res.nextCursor;
    }
  }

  /** The address of an operation (exposed for tests and logging; never carries the key). */
  url(spec: OperationSpec, params: PathParams = {}, query: Query = {}): string {
    const path = spec.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const value = params[name];
      if (value === undefined || value === "") throw new TypeError(`Parley: missing path parameter ${name}`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v !== undefined && v !== null) search.append(k, String(v));
    }
    const qs = search.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ""}`;
  }

  async #call<K extends OperationId>(id: K, call: Call): Promise<ResponseBody<K>> {
    const spec: OperationSpec = OPERATIONS[id];
    const o = call.options ?? {};
    const query: Query = { ...(call.query ?? {}) };
    const headers: Record<string, string> = { accept: "application/json", ...call.headers };
    if (this.#keyIn === "query" && !spec.headerKeyOnly) query.apiKey = this.#apiKey;
    else headers["x-api-key"] = this.#apiKey;
    let body: BodyInit | undefined;
    if (call.csv !== undefined) {
      body = call.csv as BodyInit;
      headers["content-type"] = "text/csv";
    } else if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers["content-type"] = "application/json";
    }
    const url = this.url(spec, call.params, query);
    // A failed attempt may be repeated only when repeating cannot do anything twice.
    const safe = spec.idempotent || Boolean(o.idempotencyKey);
    const maxRetries = o.maxRetries ?? this.#maxRetries;
    const timeoutMs = o.timeoutMs ?? this.#timeoutMs;

    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
      let res: Response;
      try {
        res = await this.#fetch(url, { method: spec.method.toUpperCase(), headers, body, signal });
      } catch (cause) {
        if (o.signal?.aborted) throw cause;
        const timedOut = timeout.aborted;
        const error = new ParleyError({
          status: 0,
          code: timedOut ? "TIMEOUT" : "NETWORK_ERROR",
          message: timedOut
            ? `${spec.method.toUpperCase()} ${spec.path} timed out after ${timeoutMs} ms`
            : `${spec.method.toUpperCase()} ${spec.path} failed: ${(cause as Error)?.message ?? cause}`,
          cause,
        });
        if (safe && attempt < maxRetries) {
          await sleep(this.#backoff(attempt), o.signal);
          continue;
        }
        throw error;
      }
      if (res.ok) {
        if (call.raw) return res as unknown as ResponseBody<K>;
        if (res.status === 204) return undefined as ResponseBody<K>;
        let text: string;
        try {
          text = await res.text();
        } catch (cause) {
          if (o.signal?.aborted) throw cause;
          const timedOut = timeout.aborted;
          const error = new ParleyError({
            status: res.status,
            code: timedOut ? "TIMEOUT" : "NETWORK_ERROR",
            message: `${spec.method.toUpperCase()} ${spec.path}: the answer was cut off${timedOut ? ` after ${timeoutMs} ms` : ""}`,
            requestId: res.headers.get("x-request-id"),
            cause,
          });
          if (safe && attempt < maxRetries) {
            await sleep(this.#backoff(attempt), o.signal);
            continue;
          }
          throw error;
        }
        try {
          return (text ? JSON.parse(text) : undefined) as ResponseBody<K>;
        } catch (cause) {
          throw new ParleyError({
            status: res.status,
            code: "INVALID_RESPONSE",
            message: `${spec.method.toUpperCase()} ${spec.path}: the answer is not JSON`,
            requestId: res.headers.get("x-request-id"),
            body: text,
            cause,
          });
        }
      }
      const error = await ParleyError.fromResponse(res);
      if (attempt < maxRetries) {
        const wait = this.#retryDelay(error, safe, attempt, res);
        if (wait !== null) {
          await sleep(wait, o.signal);
          continue;
        }
      }
      throw error;
    }
  }

  /** How long to wait before repeating a failed answer, or null when it must not be repeated. */
  #retryDelay(error: ParleyError, safe: boolean, attempt: number, res: Response): number | null {
    if (error.status === 429) {
      // Rejected before any processing: always safe to repeat, after the time the server gives.
      const reset = Number(res.headers.get("ratelimit-reset"));
      const wait = error.retryAfterMs ?? (Number.isFinite(reset) && reset > 0 ? reset * 1000 : null);
      if (wait === null) return this.#backoff(attempt);
      return wait <= this.#maxRetryAfterMs ? wait : null;
    }
    // Another request with the same Idempotency-Key is in progress: its answer will be replayed.
    if (error.status === 409 && error.code === "IDEMPOTENCY_KEY_IN_USE") return this.#backoff(attempt);
    if (error.status >= 500 && safe) {
      const wait = error.retryAfterMs ?? this.#backoff(attempt);
      return Math.min(wait, this.#maxRetryAfterMs);
    }
    return null;
  }

  #backoff(attempt: number): number {
    const base = Math.min(this.#retryBaseDelayMs * 2 ** attempt, 10_000);
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }
}

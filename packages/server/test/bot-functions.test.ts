// The bot that acts (issue 37): a campaign's custom functions called by the LLM engine in the middle of a
// reply, the record of every call, the hand-over (failing function, a customer asking for a person) and
// its summary. End to end: inbound messages through POST /v1/incoming_custom_channel_message, the real
// worker (drain), the LLM stand-in (llm-stub.ts), and a real local HTTP "order system" that verifies the
// Standard Webhooks signature with the account's webhook secret, on whatever database the run uses.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { PERSON_TOKEN } from "../src/modules/bot/engine-llm.ts";
import { findMessageByExternalId } from "../src/modules/messaging/repo.ts";
import { signIn } from "./app-helpers.ts";
import { errorCode, json, startTestApp, type TestApp } from "./helpers.ts";
import { type ChatRequest, type LlmStub, type StubAnswer, startLlmStub, textOf } from "./llm-stub.ts";

const HANDOVER = "I'm passing you to a person from our team. They will answer here shortly.";
const FUNCTION_FAILURE =
  "Sorry, I couldn't check that just now. A person from our team will get back to you here.";
const SUMMARY_TEXT = "Wants the status of order 1234. Nothing answered yet. The order lookup failed.";

const ORDER_PARAMS = {
  type: "object",
  properties: { orderId: { type: "string", description: "The customer's order number" } },
  required: ["orderId"],
  additionalProperties: false,
};
const ORDER_DESCRIPTION =
  "Looks up an order's status by its number. Use it when the customer asks about an order.";
/** The order system's answer: longer than the 500 characters the thread keeps. */
const ORDER_ANSWER = { orderId: "1234", status: "shipped", eta: "2030-06-01", notes: "n".repeat(600) };

// ---------------------------------------------------------------------------------------------------
// A local HTTP server standing in for the business: its "order system" (one path per function, each
// verifying the signature with the account's secret) and the account's message webhook (/hook/…).
// ---------------------------------------------------------------------------------------------------

interface SystemHit {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Endpoint {
  /** The account's webhook secret: a request that does not verify with it is answered 401. */
  secret: string;
  status?: number;
  delayMs?: number;
  answer?: unknown;
}

interface BusinessSystem {
  base: string;
  port: number;
  hits: SystemHit[];
  endpoints: Map<string, Endpoint>;
  close(): Promise<void>;
}

async function startBusinessSystem(): Promise<BusinessSystem> {
  const hits: SystemHit[] = [];
  const endpoints = new Map<string, Endpoint>();
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const hit = { path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      hits.push(hit);
      if (hit.path.startsWith("/hook/")) {
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      }
      const ep = endpoints.get(hit.path);
      if (!ep) {
        res.writeHead(404).end("no such function");
        return;
      }
      try {
        new Webhook(ep.secret).verify(hit.body, hit.headers as Record<string, string>);
      } catch {
        res.writeHead(401, { "content-type": "application/json" }).end('{"error":"bad signature"}');
        return;
      }
      const send = () => {
        if (res.destroyed || res.writableEnded) return;
        res.writeHead(ep.status ?? 200, { "content-type": "application/json" });
        res.end(JSON.stringify(ep.answer ?? ORDER_ANSWER));
      };
      if (ep.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send();
        }, ep.delayMs);
        timers.add(timer);
      } else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    hits,
    endpoints,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

interface Shop {
  accountId: string;
  userId: string;
  apiKey: string;
  webhookSecret: string;
  /** The path of its message webhook on the business system. */
  hook: string;
  campaignId: string;
}

interface FunctionCall {
  id: string;
  messageId: string;
  name: string;
  arguments: unknown;
  status: string;
  statusCode: number | null;
  durationMs: number;
  response: string | null;
  error: string | null;
  createdAt: string;
}

interface Summary {
  conversationId: string;
  engine: "llm" | "builtin";
  summary: string | null;
  unansweredQuestions: string[];
  reason: string | null;
  upToMessageId: string | null;
  createdAt: string;
}

interface Conversation {
  id: string;
  botPaused: boolean;
  botActive: boolean;
  humanAlert: boolean;
  humanAlertReason: string | null;
}

let seq = 0;

async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

function makeHelpers(getApp: () => TestApp, getSystem: () => BusinessSystem) {
  const t = () => getApp();
  const sys = () => getSystem();
  const h = {
    async shop(knowledge: { question: string; answer: string }[] = [], credits?: number): Promise<Shop> {
      const acc = await t().account(credits === undefined ? {} : { credits });
      const hook = `/hook/${++seq}`;
      await updateSettings(t().parley.db, acc.accountId, { webhook_url: `${sys().base}${hook}` });
      const shop = { ...acc, hook, campaignId: "" };
      const page = await h.get<{ data: { id: string; isDefault: boolean }[] }>(shop, "/v1/campaigns");
      shop.campaignId = page.data.find((c) => c.isDefault)!.id;
      if (knowledge.length) await h.patchCampaign(shop, { knowledge });
      return shop;
    },
    /** A function on the shop's default campaign, answered by the business system at a fresh path. */
    async withFunction(
      shop: Shop,
      endpoint: Omit<Endpoint, "secret"> = {},
      fn: { name?: string; timeoutMs?: number; url?: string } = {},
    ): Promise<{ path: string; url: string }> {
      const path = `/fn/${++seq}/order`;
      sys().endpoints.set(path, { secret: shop.webhookSecret, ...endpoint });
      const url = fn.url ?? `${sys().base}${path}`;
      await h.patchCampaign(shop, {
        functions: [
          {
            name: fn.name ?? "order_status",
            description: ORDER_DESCRIPTION,
            parameters: ORDER_PARAMS,
            url,
            ...(fn.timeoutMs ? { timeoutMs: fn.timeoutMs } : {}),
          },
        ],
      });
      return { path, url };
    },
    async send(shop: Shop, body: string, fromId = `customer-${++seq}`): Promise<string> {
      const res = await t().inject({
        method: "POST",
        url: `/v1/incoming_custom_channel_message?apiKey=${shop.apiKey}`,
        payload: {
          customData: {
            messageSid: `sid-${++seq}-${Date.now()}`,
            fromId,
            toId: "shop",
            channel: "webchat",
            body,
          },
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      return json<{ messageId: string }>(res).messageId;
    },
    drain: () => t().parley.worker.drain(),
    reply: (shop: Shop, inboundId: string) =>
      findMessageByExternalId(t().parley.db.kysely, shop.accountId, `bot:${inboundId}`),
    async get<T = Record<string, unknown>>(shop: Pick<Shop, "apiKey">, path: string): Promise<T> {
      const res = await t().inject({ method: "GET", url: path, headers: { "x-api-key": shop.apiKey } });
      expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
      return json<T>(res);
    },
    call(shop: Pick<Shop, "apiKey">, method: "GET" | "POST" | "PATCH", path: string, payload?: unknown) {
      return t().inject({
        method,
        url: path,
        headers: { "x-api-key": shop.apiKey },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    },
    async patchCampaign(shop: Shop, body: Record<string, unknown>): Promise<void> {
      const res = await h.call(shop, "PATCH", `/v1/campaigns/${shop.campaignId}`, body);
      expect(res.statusCode, res.body).toBe(200);
    },
    async conversationOf(shop: Shop, messageId: string): Promise<string> {
      return (await h.get<{ conversationId: string }>(shop, `/v1/messages/${messageId}`)).conversationId;
    },
    conversation: (shop: Shop, id: string) => h.get<Conversation>(shop, `/v1/conversations/${id}`),
    async functionCalls(shop: Shop, conversationId: string): Promise<FunctionCall[]> {
      return (
        await h.get<{ data: FunctionCall[] }>(shop, `/v1/conversations/${conversationId}/function-calls`)
      ).data;
    },
    summary: (shop: Shop, conversationId: string) =>
      h.get<Summary>(shop, `/v1/conversations/${conversationId}/summary`),
    /** Requests that reached the function at `path`. */
    hitsOf: (path: string) => sys().hits.filter((hit) => hit.path === path),
    /** What the shop's message webhook received, parsed. */
    webhookBodies: (shop: Shop) =>
      sys()
        .hits.filter((hit) => hit.path === shop.hook)
        .map((hit) => JSON.parse(hit.body) as Record<string, unknown>),
    /** Waits for the reply to reach the shop's webhook; answers the body delivered. */
    async delivered(shop: Shop, replyId: string): Promise<string> {
      await waitFor(() => h.webhookBodies(shop).some((b) => b.messageId === replyId));
      return h.webhookBodies(shop).find((b) => b.messageId === replyId)!.body as string;
    },
  };
  return h;
}

let stub: LlmStub;
beforeAll(async () => {
  stub = await startLlmStub();
});
afterAll(() => stub.close());

/** The implementation's summarisation request (summary.ts → generateSummaryText): its own instructions. */
const isSummaryRequest = (req: ChatRequest) =>
  !req.body.tools && /hand-over note/i.test(textOf(req.body.messages[0]?.content ?? null));

/** Answers summary requests with SUMMARY_TEXT and the bot's own requests with `chat` (counted apart). */
function script(chat: (req: ChatRequest, n: number) => StubAnswer): void {
  let n = 0;
  stub.respond = (req) => (isSummaryRequest(req) ? { content: SUMMARY_TEXT } : chat(req, n++));
}
const chatRequests = () => stub.requests.filter((r) => !isSummaryRequest(r));
const toolMessages = (req: ChatRequest) => req.body.messages.filter((m) => m.role === "tool");

// ---------------------------------------------------------------------------------------------------
// App L: a platform LLM (the stand-in on loopback, operator-trusted), loopback allowed for tenant URLs
// (OUTBOUND_ALLOW_CIDRS 127.0.0.0/8 from the test config), so http:// functions on 127.0.0.1 are called.
// ---------------------------------------------------------------------------------------------------

describe("bot functions on the LLM engine", () => {
  let app: TestApp;
  let sys: BusinessSystem;
  const h = makeHelpers(
    () => app,
    () => sys,
  );

  beforeAll(async () => {
    [app, sys] = await Promise.all([
      startTestApp({ LLM_BASE_URL: stub.baseUrl, LLM_API_KEY: "platform-key", LLM_MODEL: "platform-model" }),
      startBusinessSystem(),
    ]);
  });
  afterAll(async () => {
    await app.close();
    await sys.close();
  });
  beforeEach(() => {
    stub.reset();
    script(() => ({ content: "stub answer" }));
  });

  describe("campaign functions validation", () => {
    const valid = (over: Record<string, unknown> = {}) => ({
      name: "order_status",
      description: ORDER_DESCRIPTION,
      parameters: ORDER_PARAMS,
      url: `${sys.base}/fn/valid`,
      ...over,
    });

    it("a valid list round-trips with the defaults filled in (timeoutMs 5000, empty parameters)", async () => {
      const shop = await h.shop();
      const before = await h.get<{ functions: unknown[] }>(shop, `/v1/campaigns/${shop.campaignId}`);
      expect(before.functions).toEqual([]);
      await h.patchCampaign(shop, {
        functions: [
          valid(),
          {
            name: "opening_slots",
            description: "Free slots this week",
            url: `${sys.base}/fn/slots`,
            timeoutMs: 15000,
          },
        ],
      });
      const got = await h.get<{ functions: unknown[] }>(shop, `/v1/campaigns/${shop.campaignId}`);
      expect(got.functions).toEqual([
        { ...valid(), timeoutMs: 5000 },
        {
          name: "opening_slots",
          description: "Free slots this week",
          parameters: { type: "object", properties: {} },
          url: `${sys.base}/fn/slots`,
          timeoutMs: 15000,
        },
      ]);

      // Created with functions too.
      const res = await h.call(shop, "POST", "/v1/campaigns", {
        name: "With functions",
        functions: [valid({ timeoutMs: 1000 })],
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(json<{ functions: unknown[] }>(res).functions).toEqual([valid({ timeoutMs: 1000 })]);
    });

    it("refuses bad definitions with 400 VALIDATION_ERROR and changes nothing", async () => {
      const shop = await h.shop();
      const saved = [valid()];
      await h.patchCampaign(shop, { functions: saved });
      const stored = (await h.get<{ functions: unknown[] }>(shop, `/v1/campaigns/${shop.campaignId}`))
        .functions;

      const eleven = Array.from({ length: 11 }, (_, i) => valid({ name: `fn_${i}` }));
      const cases: [string, unknown[]][] = [
        ["name starting with a digit", [valid({ name: "1order" })]],
        ["name with a dash", [valid({ name: "order-status" })]],
        ["duplicate name", [valid(), valid({ url: `${sys.base}/fn/other` })]],
        ["parameters not an object", [valid({ parameters: "orderId" })]],
        ["parameters an array", [valid({ parameters: [] })]],
        ["parameters a non-object schema", [valid({ parameters: { type: "string" } })]],
        [
          "parameters Ajv cannot compile",
          [valid({ parameters: { type: "object", properties: { orderId: { type: "text" } } } })],
        ],
        [
          "parameters with a broken required",
          [valid({ parameters: { type: "object", required: "orderId" } })],
        ],
        ["http:// to a host outside OUTBOUND_ALLOW_CIDRS", [valid({ url: "http://203.0.113.5/orders" })]],
        ["not a URL", [valid({ url: "order system" })]],
        ["more than 10 functions", eleven],
        ["timeoutMs below 1000", [valid({ timeoutMs: 999 })]],
        ["timeoutMs above 15000", [valid({ timeoutMs: 15001 })]],
        ["timeoutMs not whole", [valid({ timeoutMs: 1500.5 })]],
        ["no description", [valid({ description: "" })]],
      ];
      const failures: string[] = [];
      for (const [label, functions] of cases) {
        const res = await h.call(shop, "PATCH", `/v1/campaigns/${shop.campaignId}`, { functions });
        const body = res.body;
        if (res.statusCode !== 400 || errorCode(res) !== "VALIDATION_ERROR" || !/functions/.test(body)) {
          failures.push(`${label}: ${res.statusCode} ${body.slice(0, 200)}`);
        }
      }
      expect(failures).toEqual([]);
      expect(
        (await h.get<{ functions: unknown[] }>(shop, `/v1/campaigns/${shop.campaignId}`)).functions,
      ).toEqual(stored);

      // The service's own checks name the item.
      const dup = await h.call(shop, "PATCH", `/v1/campaigns/${shop.campaignId}`, {
        functions: [valid(), valid()],
      });
      expect(json<{ error: { message: string } }>(dup).error.message).toMatch(/functions\[1\]\.name/);
      const url = await h.call(shop, "PATCH", `/v1/campaigns/${shop.campaignId}`, {
        functions: [valid(), valid({ name: "other", url: "http://203.0.113.5/x" })],
      });
      expect(json<{ error: { message: string } }>(url).error.message).toMatch(/functions\[1\]\.url/);

      // A create with a bad function creates nothing.
      const count = async () => (await h.get<{ data: unknown[] }>(shop, "/v1/campaigns")).data.length;
      const n = await count();
      const created = await h.call(shop, "POST", "/v1/campaigns", {
        name: "Broken",
        functions: [valid({ parameters: { type: "string" } })],
      });
      expect(created.statusCode).toBe(400);
      expect(errorCode(created)).toBe("VALIDATION_ERROR");
      expect(await count()).toBe(n);
    });
  });

  it("calls a function with valid arguments, signed, and answers from its result", async () => {
    const shop = await h.shop();
    const { path } = await h.withFunction(shop);
    script((_req, n) => {
      if (n === 0) {
        return {
          toolCalls: [{ id: "call_order", name: "order_status", arguments: { orderId: "1234" } }],
          usage: { prompt: 120, completion: 8 },
        };
      }
      return {
        content: "Your order 1234 has shipped and should arrive on 1 June.",
        usage: { prompt: 200, completion: 15 },
      };
    });

    const inbound = await h.send(shop, "Where is my order 1234?");
    await h.drain();

    // The model was offered the function…
    const chats = chatRequests();
    expect(chats).toHaveLength(2);
    expect(chats[0]!.body.tools).toHaveLength(1);
    const offered = chats[0]!.body.tools![0]!;
    expect(offered.type).toBe("function");
    expect(offered.function.name).toBe("order_status");
    expect(offered.function.description).toBe(ORDER_DESCRIPTION);
    expect(offered.function.parameters).toMatchObject(ORDER_PARAMS);

    // …the order system got one signed call with the arguments…
    const hits = h.hitsOf(path);
    expect(hits).toHaveLength(1);
    expect(hits[0]!.headers["content-type"]).toMatch(/^application\/json/);
    const conversationId = await h.conversationOf(shop, inbound);
    const signed = new Webhook(shop.webhookSecret).verify(
      hits[0]!.body,
      hits[0]!.headers as Record<string, string>,
    );
    const msg = await h.get<{ contactId: string }>(shop, `/v1/messages/${inbound}`);
    expect(signed).toEqual({
      type: "bot.function_call",
      function: "order_status",
      arguments: { orderId: "1234" },
      conversationId,
      contactId: msg.contactId,
      messageId: inbound,
      campaignId: shop.campaignId,
    });
    const other = await app.account();
    expect(() =>
      new Webhook(other.webhookSecret).verify(hits[0]!.body, hits[0]!.headers as Record<string, string>),
    ).toThrow();

    // …the model's second request carries the result…
    const tools = toolMessages(chats[1]!);
    expect(tools).toHaveLength(1);
    expect(tools[0]!.tool_call_id).toBe("call_order");
    expect(textOf(tools[0]!.content)).toContain('"status":"shipped"');
    expect(
      chats[1]!.body.messages.some((m) => m.role === "assistant" && m.tool_calls?.[0]?.id === "call_order"),
    ).toBe(true);

    // …and its final text is the reply, delivered to the account's webhook.
    const reply = await h.reply(shop, inbound);
    expect(reply?.body).toBe("Your order 1234 has shipped and should arrive on 1 June.");
    expect(reply?.bot_outcome).toBe("answer");
    expect(await h.delivered(shop, reply!.id)).toBe(reply!.body);
    // The function call itself never reaches the message webhook.
    expect(
      sys.hits.filter((hit) => hit.path === shop.hook && hit.body.includes("bot.function_call")),
    ).toEqual([]);
    expect((await h.conversation(shop, conversationId)).humanAlert).toBe(false);

    // The call is recorded for the team.
    const calls = await h.functionCalls(shop, conversationId);
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call).toMatchObject({
      messageId: inbound,
      name: "order_status",
      arguments: { orderId: "1234" },
      status: "ok",
      statusCode: 200,
      error: null,
    });
    expect(call.id).toMatch(/^fnc_/);
    expect(hits[0]!.headers["webhook-id"]).toBe(call.id);
    expect(typeof call.durationMs).toBe("number");
    expect(new Date(call.createdAt).toISOString()).toBe(call.createdAt);
    expect(call.response!.length).toBeLessThanOrEqual(500);
    expect(call.response!.length).toBeGreaterThan(100);
    expect(JSON.stringify(ORDER_ANSWER).startsWith(call.response!.slice(0, 400))).toBe(true);
    // Another account does not see them.
    const foreign = await h.call(other, "GET", `/v1/conversations/${conversationId}/function-calls`);
    expect(foreign.statusCode).toBe(404);
    expect(errorCode(foreign)).toBe("CONVERSATION_NOT_FOUND");

    // Token use: both model calls of the reply, summed.
    const usage = await app.parley.db.kysely
      .selectFrom("bot_replies")
      .selectAll()
      .where("account_id", "=", shop.accountId)
      .execute();
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({
      message_id: reply!.id,
      conversation_id: conversationId,
      input_tokens: 320,
      output_tokens: 23,
      function_calls: 1,
    });

    // The web app's thread: the calls, and the bot message's tokens.
    const email = await app.parley.db.kysely
      .selectFrom("users")
      .select("email")
      .where("id", "=", shop.userId)
      .executeTakeFirstOrThrow();
    const browser = await signIn(app, email.email);
    const thread = await browser.req({ method: "GET", url: `/app/api/conversations/${conversationId}` });
    expect(thread.statusCode, thread.body).toBe(200);
    const view = json<{
      messages: { id: string; llmTokens?: { input: number; output: number } | null }[];
      functionCalls: FunctionCall[];
    }>(thread);
    expect(view.functionCalls).toEqual(calls);
    expect(view.messages.find((m) => m.id === reply!.id)?.llmTokens).toEqual({ input: 320, output: 23 });
    expect(view.messages.find((m) => m.id === inbound)?.llmTokens ?? null).toBeNull();

    // The dashboard counts the calls per function, and the tokens.
    const dash = await browser.req({ method: "GET", url: "/app/api/dashboard?days=7" });
    expect(dash.statusCode, dash.body).toBe(200);
    expect(json<{ botFunctions: unknown; llmTokens: unknown }>(dash)).toMatchObject({
      botFunctions: [{ name: "order_status", calls: 1, failures: 0 }],
      llmTokens: { input: 320, output: 23 },
    });
  });

  it("refuses arguments that miss a required property: not sent, recorded, the model is told and retries", async () => {
    const shop = await h.shop();
    const { path } = await h.withFunction(shop);
    script((_req, n) => {
      if (n === 0) return { toolCalls: [{ id: "call_bad", name: "order_status", arguments: {} }] };
      if (n === 1)
        return { toolCalls: [{ id: "call_good", name: "order_status", arguments: { orderId: "77" } }] };
      return { content: "Order 77 has shipped." };
    });
    const inbound = await h.send(shop, "Where is my order?");
    await h.drain();

    const chats = chatRequests();
    expect(chats).toHaveLength(3);
    const told = toolMessages(chats[1]!);
    expect(told).toHaveLength(1);
    expect(told[0]!.tool_call_id).toBe("call_bad");
    expect(textOf(told[0]!.content)).toMatch(/orderId/);
    expect(textOf(told[0]!.content)).not.toContain("shipped");

    // Only the corrected call reached the order system.
    const hits = h.hitsOf(path);
    expect(hits).toHaveLength(1);
    expect(JSON.parse(hits[0]!.body).arguments).toEqual({ orderId: "77" });

    const conversationId = await h.conversationOf(shop, inbound);
    const calls = await h.functionCalls(shop, conversationId);
    expect(calls.map((c) => [c.status, c.arguments])).toEqual([
      ["invalid_arguments", {}],
      ["ok", { orderId: "77" }],
    ]);
    expect(calls[0]).toMatchObject({ messageId: inbound, statusCode: null, response: null });
    expect(calls[0]!.error).toMatch(/orderId/);

    const reply = await h.reply(shop, inbound);
    expect(reply?.body).toBe("Order 77 has shipped.");
    expect(await h.delivered(shop, reply!.id)).toBe("Order 77 has shipped.");
    expect((await h.conversation(shop, conversationId)).humanAlert).toBe(false);
  });

  it("refuses arguments that are not JSON: not sent, recorded as the raw text, the model is told", async () => {
    const shop = await h.shop();
    const { path } = await h.withFunction(shop);
    const raw = '{"orderId": "12';
    script((_req, n) =>
      n === 0
        ? { toolCalls: [{ id: "call_broken", name: "order_status", arguments: raw }] }
        : { content: "Could you give me your order number again?" },
    );
    const inbound = await h.send(shop, "Where is order 12?");
    await h.drain();

    expect(h.hitsOf(path)).toEqual([]);
    const chats = chatRequests();
    expect(chats).toHaveLength(2);
    const told = toolMessages(chats[1]!);
    expect(told).toHaveLength(1);
    expect(told[0]!.tool_call_id).toBe("call_broken");
    expect(textOf(told[0]!.content).length).toBeGreaterThan(0);

    const conversationId = await h.conversationOf(shop, inbound);
    const calls = await h.functionCalls(shop, conversationId);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      name: "order_status",
      status: "invalid_arguments",
      arguments: raw,
      statusCode: null,
      messageId: inbound,
    });
    expect(calls[0]!.error).toBeTruthy();

    const reply = await h.reply(shop, inbound);
    expect(reply?.body).toBe("Could you give me your order number again?");
    expect(await h.delivered(shop, reply!.id)).toBe(reply!.body);
    expect((await h.conversation(shop, conversationId)).humanAlert).toBe(false);
  });

  describe("a failing function hands over", () => {
    async function expectHandover(shop: Shop, inbound: string, status: string) {
      const reply = await h.reply(shop, inbound);
      expect(reply?.body).toBe(FUNCTION_FAILURE);
      expect(await h.delivered(shop, reply!.id)).toBe(FUNCTION_FAILURE);
      // The customer's message is kept.
      expect((await h.get<{ body: string }>(shop, `/v1/messages/${inbound}`)).body).toBe(
        "Where is my order 1234?",
      );
      const conversationId = await h.conversationOf(shop, inbound);
      expect(await h.conversation(shop, conversationId)).toMatchObject({
        humanAlert: true,
        humanAlertReason: "function_error",
      });
      const calls = await h.functionCalls(shop, conversationId);
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({
        name: "order_status",
        arguments: { orderId: "1234" },
        status,
        messageId: inbound,
      });
      expect(calls[0]!.error).toBeTruthy();
      // One model call: the failure ends the reply.
      expect(chatRequests()).toHaveLength(1);
      return { conversationId, call: calls[0]! };
    }
    const callOrder = () =>
      script((_req, n) =>
        n === 0
          ? { toolCalls: [{ name: "order_status", arguments: { orderId: "1234" } }] }
          : { content: "should not be asked again" },
      );

    it("HTTP 500: status error with the status code; a summary by the LLM", async () => {
      const shop = await h.shop();
      const { path } = await h.withFunction(shop, { status: 500, answer: { error: "database down" } });
      callOrder();
      const inbound = await h.send(shop, "Where is my order 1234?");
      await h.drain();
      expect(h.hitsOf(path)).toHaveLength(1);
      const { conversationId, call } = await expectHandover(shop, inbound, "error");
      expect(call.statusCode).toBe(500);

      // The hand-over summary: written by the model from the conversation.
      const summaries = stub.requests.filter(isSummaryRequest);
      expect(summaries.length).toBeGreaterThanOrEqual(1);
      expect(summaries[0]!.body.messages.map((m) => textOf(m.content)).join("\n")).toContain(
        "Where is my order 1234?",
      );
      const summary = await h.summary(shop, conversationId);
      expect(summary).toMatchObject({
        conversationId,
        engine: "llm",
        summary: SUMMARY_TEXT,
        reason: "function_error",
      });
      expect(summary.unansweredQuestions).toEqual(["Where is my order 1234?"]);
      expect(summary.upToMessageId).not.toBeNull();
      expect(new Date(summary.createdAt).toISOString()).toBe(summary.createdAt);
    });

    it("no answer within timeoutMs: status timeout", async () => {
      const shop = await h.shop();
      const { path } = await h.withFunction(shop, { delayMs: 3_000 }, { timeoutMs: 1_000 });
      callOrder();
      const inbound = await h.send(shop, "Where is my order 1234?");
      const started = Date.now();
      await h.drain();
      expect(Date.now() - started).toBeLessThan(2_900);
      expect(h.hitsOf(path)).toHaveLength(1);
      const { call } = await expectHandover(shop, inbound, "timeout");
      expect(call.statusCode).toBeNull();
      expect(call.durationMs).toBeGreaterThanOrEqual(900);
      expect(call.durationMs).toBeLessThan(2_900);
    });
  });

  it("makes at most 3 calls per reply: a model that keeps calling is refused after 3", async () => {
    const shop = await h.shop();
    const { path } = await h.withFunction(shop);
    // Calls until a call is refused, then answers.
    script((req, n) => {
      const results = toolMessages(req).map((m) => textOf(m.content));
      const refused = results.some((r) => !r.includes("shipped"));
      return refused || n > 6
        ? { content: "Here is what I found." }
        : { toolCalls: [{ id: `call_${n}`, name: "order_status", arguments: { orderId: `${n}` } }] };
    });
    const inbound = await h.send(shop, "Check all my orders please");
    await h.drain();

    expect(h.hitsOf(path)).toHaveLength(3);
    const chats = chatRequests();
    expect(chats).toHaveLength(5);
    const last = toolMessages(chats[4]!);
    expect(last).toHaveLength(4);
    expect(last.slice(0, 3).every((m) => textOf(m.content).includes("shipped"))).toBe(true);
    expect(textOf(last[3]!.content)).not.toContain("shipped");

    const conversationId = await h.conversationOf(shop, inbound);
    const calls = await h.functionCalls(shop, conversationId);
    expect(calls.filter((c) => c.status === "ok").map((c) => c.arguments)).toEqual([
      { orderId: "0" },
      { orderId: "1" },
      { orderId: "2" },
    ]);
    expect((await h.reply(shop, inbound))?.body).toBe("Here is what I found.");
  });

  it("a customer asking for a person on the LLM engine: HANDOVER, the bot pauses, human_requested", async () => {
    const shop = await h.shop();
    const inbound = await h.send(shop, "human please", "llm-person-1");
    await h.drain();
    const reply = await h.reply(shop, inbound);
    expect(reply?.body).toBe(HANDOVER);
    expect(reply?.bot_outcome).toBe("handover");
    const conversationId = await h.conversationOf(shop, inbound);
    expect(await h.conversation(shop, conversationId)).toMatchObject({
      botPaused: true,
      humanAlert: true,
      humanAlertReason: "human_requested",
    });
    const summary = await h.summary(shop, conversationId);
    expect(summary).toMatchObject({ engine: "llm", summary: SUMMARY_TEXT, reason: "human_requested" });

    const later = await h.send(shop, "hello? what are your opening hours?", "llm-person-1");
    await h.drain();
    expect(await h.reply(shop, later)).toBeUndefined();
  });

  it("a request for a person the patterns miss, recognised by the model, hands over too", async () => {
    const shop = await h.shop();
    script(() => ({ content: PERSON_TOKEN }));
    const inbound = await h.send(shop, "Could a colleague of yours pick this up?", "llm-person-2");
    await h.drain();
    expect(chatRequests()).toHaveLength(1);
    expect((await h.reply(shop, inbound))?.body).toBe(HANDOVER);
    const conversationId = await h.conversationOf(shop, inbound);
    expect(await h.conversation(shop, conversationId)).toMatchObject({
      botPaused: true,
      humanAlertReason: "human_requested",
    });
  });

  describe("the function Test endpoint", () => {
    it("calls the saved function signed, with test: true, and answers its result", async () => {
      const shop = await h.shop();
      const { path } = await h.withFunction(shop);
      const res = await h.call(shop, "POST", `/v1/campaigns/${shop.campaignId}/functions/order_status/test`, {
        arguments: { orderId: "1234" },
      });
      expect(res.statusCode, res.body).toBe(200);
      const out = json<{
        status: string;
        statusCode: number | null;
        durationMs: number;
        response: string | null;
        error: string | null;
      }>(res);
      expect(out).toMatchObject({ status: "ok", statusCode: 200, error: null });
      expect(typeof out.durationMs).toBe("number");
      // The first 2,000 characters: the whole of this answer.
      expect(out.response).toBe(JSON.stringify(ORDER_ANSWER));
      const hits = h.hitsOf(path);
      expect(hits).toHaveLength(1);
      expect(
        new Webhook(shop.webhookSecret).verify(hits[0]!.body, hits[0]!.headers as Record<string, string>),
      ).toEqual({
        type: "bot.function_call",
        function: "order_status",
        arguments: { orderId: "1234" },
        conversationId: null,
        contactId: null,
        messageId: null,
        campaignId: shop.campaignId,
        test: true,
      });
      // A test call is not a conversation's call, and nothing reached the message webhook.
      expect(h.webhookBodies(shop)).toEqual([]);
    });

    it("answers a failing function's status", async () => {
      const shop = await h.shop();
      await h.withFunction(shop, { status: 503 });
      const res = await h.call(shop, "POST", `/v1/campaigns/${shop.campaignId}/functions/order_status/test`, {
        arguments: { orderId: "1" },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(json(res)).toMatchObject({ status: "error", statusCode: 503 });
    });

    it("400 for arguments not matching the schema, 404 for an unknown name or another account's campaign", async () => {
      const shop = await h.shop();
      const { path } = await h.withFunction(shop);
      const base = `/v1/campaigns/${shop.campaignId}/functions`;

      const missing = await h.call(shop, "POST", `${base}/order_status/test`, { arguments: {} });
      expect(missing.statusCode).toBe(400);
      expect(errorCode(missing)).toBe("VALIDATION_ERROR");
      expect(json<{ error: { message: string } }>(missing).error.message).toMatch(/orderId/);
      const wrongType = await h.call(shop, "POST", `${base}/order_status/test`, {
        arguments: { orderId: 1234 },
      });
      expect(wrongType.statusCode).toBe(400);
      expect(json<{ error: { message: string } }>(wrongType).error.message).toMatch(/orderId/);
      // No arguments at all is {}: still missing orderId.
      const none = await h.call(shop, "POST", `${base}/order_status/test`, {});
      expect(none.statusCode).toBe(400);

      const unknown = await h.call(shop, "POST", `${base}/no_such_function/test`, { arguments: {} });
      expect(unknown.statusCode).toBe(404);
      expect(errorCode(unknown)).toBe("NOT_FOUND");

      const other = await h.shop();
      const foreign = await h.call(other, "POST", `${base}/order_status/test`, {
        arguments: { orderId: "1" },
      });
      expect(foreign.statusCode).toBe(404);
      expect(errorCode(foreign)).toBe("CAMPAIGN_NOT_FOUND");
      expect(h.hitsOf(path)).toEqual([]);
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// App P: a platform LLM but no OUTBOUND_ALLOW_CIDRS: a function on a private address is blocked at call
// time (https:// passes the save-time check; the address guard refuses localhost when calling).
// ---------------------------------------------------------------------------------------------------

describe("credits: a reply that used functions costs what a reply costs", () => {
  let app: TestApp;
  let sys: BusinessSystem;
  const h = makeHelpers(
    () => app,
    () => sys,
  );
  beforeAll(async () => {
    [app, sys] = await Promise.all([
      startTestApp({
        LLM_BASE_URL: stub.baseUrl,
        LLM_API_KEY: "platform-key",
        LLM_MODEL: "platform-model",
        BOT_METERING: "all",
        BOT_REPLY_COST: "1",
      }),
      startBusinessSystem(),
    ]);
  });
  afterAll(async () => {
    await app.close();
    await sys.close();
  });
  beforeEach(() => stub.reset());

  it("two function calls and three model calls: one debit of one reply", async () => {
    const shop = await h.shop([], 5);
    const { path } = await h.withFunction(shop);
    script((_req, n) =>
      n < 2
        ? { toolCalls: [{ name: "order_status", arguments: { orderId: String(1234 + n) } }] }
        : { content: "Both orders have shipped." },
    );
    const inbound = await h.send(shop, "Where are my orders 1234 and 1235?");
    await h.drain();
    const reply = await h.reply(shop, inbound);
    expect(reply?.body).toBe("Both orders have shipped.");
    expect(h.hitsOf(path)).toHaveLength(2);
    const debits = await app.parley.db.kysely
      .selectFrom("credit_transactions")
      .select(["amount", "message_id"])
      .where("account_id", "=", shop.accountId)
      .where("kind", "=", "bot_reply")
      .execute();
    expect(debits).toEqual([{ amount: -100, message_id: reply!.id }]);
    const balance = await app.parley.db.kysely
      .selectFrom("accounts")
      .select("credits")
      .where("id", "=", shop.accountId)
      .executeTakeFirstOrThrow();
    expect(balance.credits).toBe(400);
  });
});

describe("a function on a private address (no OUTBOUND_ALLOW_CIDRS)", () => {
  let app: TestApp;
  let sys: BusinessSystem;
  const h = makeHelpers(
    () => app,
    () => sys,
  );

  beforeAll(async () => {
    [app, sys] = await Promise.all([
      startTestApp({
        LLM_BASE_URL: stub.baseUrl,
        LLM_API_KEY: "platform-key",
        LLM_MODEL: "platform-model",
        OUTBOUND_ALLOW_CIDRS: "",
      }),
      startBusinessSystem(),
    ]);
  });
  afterAll(async () => {
    await app.close();
    await sys.close();
  });

  it("is blocked: the FUNCTION_FAILURE reply, a function_error alert, the call recorded as blocked", async () => {
    const shop = await h.shop();
    const url = `https://localhost:${sys.port}/fn/private/order`;
    await h.withFunction(shop, {}, { url });
    // Plain http:// to loopback is refused when saving here.
    const refused = await h.call(shop, "PATCH", `/v1/campaigns/${shop.campaignId}`, {
      functions: [{ name: "f", description: "d", url: `${sys.base}/fn/x` }],
    });
    expect(refused.statusCode).toBe(400);
    expect(errorCode(refused)).toBe("VALIDATION_ERROR");

    stub.reset();
    script((_req, n) =>
      n === 0
        ? { toolCalls: [{ name: "order_status", arguments: { orderId: "1234" } }] }
        : { content: "should not be asked again" },
    );
    const inbound = await h.send(shop, "Where is my order 1234?");
    await h.drain();

    // The platform LLM (operator-trusted, on loopback) was reached; the function was not.
    expect(chatRequests()).toHaveLength(1);
    expect(sys.hits.filter((hit) => hit.path.startsWith("/fn/"))).toEqual([]);
    const reply = await h.reply(shop, inbound);
    expect(reply?.body).toBe(FUNCTION_FAILURE);
    expect((await h.get<{ body: string }>(shop, `/v1/messages/${inbound}`)).body).toBe(
      "Where is my order 1234?",
    );
    const conversationId = await h.conversationOf(shop, inbound);
    expect(await h.conversation(shop, conversationId)).toMatchObject({
      humanAlert: true,
      humanAlertReason: "function_error",
    });
    const calls = await h.functionCalls(shop, conversationId);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      name: "order_status",
      status: "blocked",
      statusCode: null,
      response: null,
    });
    expect(calls[0]!.error).toBeTruthy();

    // The Test button says so too.
    const test = await h.call(shop, "POST", `/v1/campaigns/${shop.campaignId}/functions/order_status/test`, {
      arguments: { orderId: "1" },
    });
    expect(test.statusCode, test.body).toBe(200);
    expect(json(test)).toMatchObject({ status: "blocked", statusCode: null });
    expect(sys.hits.filter((hit) => hit.path.startsWith("/fn/"))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------
// App B: no LLM at all (auto = builtin): asking for a person, builtin summaries, functions ignored.
// ---------------------------------------------------------------------------------------------------

describe("hand-over on the builtin engine", () => {
  let app: TestApp;
  let sys: BusinessSystem;
  const h = makeHelpers(
    () => app,
    () => sys,
  );
  const KNOWLEDGE = [
    { question: "Do you deliver?", answer: "We deliver within 10 miles for free." },
    { question: "What are your opening hours?", answer: "We are open 9am to 6pm, Monday to Saturday." },
  ];

  beforeAll(async () => {
    [app, sys] = await Promise.all([startTestApp(), startBusinessSystem()]);
  });
  afterAll(async () => {
    await app.close();
    await sys.close();
  });
  beforeEach(() => stub.reset());

  const PHRASINGS = [
    "can I talk to someone?",
    "human please",
    "I want to speak to an agent",
    "Can I get a real person?",
    "connect me with a representative",
  ];

  it.each(PHRASINGS)(
    "%j gets the HANDOVER reply, pauses the bot and raises human_requested",
    async (phrase) => {
      const shop = await h.shop(KNOWLEDGE);
      const from = `person-${++seq}`;
      const inbound = await h.send(shop, phrase, from);
      await h.drain();
      const reply = await h.reply(shop, inbound);
      expect(reply?.body).toBe(HANDOVER);
      expect(reply?.bot_outcome).toBe("handover");
      expect(await h.delivered(shop, reply!.id)).toBe(HANDOVER);
      const conversationId = await h.conversationOf(shop, inbound);
      expect(await h.conversation(shop, conversationId)).toMatchObject({
        botPaused: true,
        botActive: false,
        humanAlert: true,
        humanAlertReason: "human_requested",
      });

      // The bot stays quiet now, even for a question it knows.
      const later = await h.send(shop, "do you deliver?", from);
      await h.drain();
      expect(await h.reply(shop, later)).toBeUndefined();
      expect(stub.requests).toEqual([]);
    },
  );

  it("the builtin summary lists the unanswered questions, with the hand-over reason", async () => {
    const shop = await h.shop(KNOWLEDGE);
    const from = `summary-${++seq}`;
    const answered = await h.send(shop, "do you deliver?", from);
    await h.drain();
    expect((await h.reply(shop, answered))?.body).toBe(KNOWLEDGE[0]!.answer);
    const unknown = await h.send(shop, "Can I bring my parrot to the yoga retreat?", from);
    await h.drain();
    expect((await h.reply(shop, unknown))?.bot_outcome).toBe("fallback");

    const conversationId = await h.conversationOf(shop, unknown);
    const summary = await h.summary(shop, conversationId);
    expect(summary).toMatchObject({
      conversationId,
      engine: "builtin",
      summary: null,
      unansweredQuestions: ["Can I bring my parrot to the yoga retreat?"],
      reason: "no_answer",
    });
    expect(summary.upToMessageId).not.toBeNull();

    // A request for a person after it: the hand-over answered that one, so only the open question is
    // listed; the reason follows.
    const person = await h.send(shop, "human please", from);
    await h.drain();
    expect((await h.reply(shop, person))?.body).toBe(HANDOVER);
    const after = await h.summary(shop, conversationId);
    expect(after).toMatchObject({
      engine: "builtin",
      summary: null,
      unansweredQuestions: ["Can I bring my parrot to the yoga retreat?"],
      reason: "human_requested",
    });
    expect(stub.requests).toEqual([]);

    // 404 for another account's conversation.
    const other = await h.shop();
    const foreign = await h.call(other, "GET", `/v1/conversations/${conversationId}/summary`);
    expect(foreign.statusCode).toBe(404);
    expect(errorCode(foreign)).toBe("CONVERSATION_NOT_FOUND");
  });

  it("the builtin engine ignores functions", async () => {
    const shop = await h.shop(KNOWLEDGE);
    const { path } = await h.withFunction(shop);
    const inbound = await h.send(shop, "Where is my order 1234? do you deliver?");
    await h.drain();
    expect(h.hitsOf(path)).toEqual([]);
    const reply = await h.reply(shop, inbound);
    expect(reply?.body).not.toBe(FUNCTION_FAILURE);
    const conversationId = await h.conversationOf(shop, inbound);
    expect(await h.functionCalls(shop, conversationId)).toEqual([]);
  });
});

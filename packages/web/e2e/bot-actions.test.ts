// The bot that acts, end to end: an owner gives a live LLM campaign a function (the shop's order lookup)
// on the campaign page and tests it; a customer asks where an order is, the model calls the function
// (a local "order system" that checks the Standard Webhooks signature), and the customer gets the answer
// while the team sees the call in the thread and the customer's webhook never does. Then the customer
// asks for a person: the bot hands over, and the thread opens on a summary with the reason. Against a
// real `parley serve` on SQLite, a local stand-in of the LLM and Chromium.
import http from "node:http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LlmStub, startLlmStub, textOf } from "../../server/test/llm-stub.ts";
import {
  eventually,
  expectAccessible,
  listenOnLoopback,
  saveWebhookUrl,
  screenshot,
  useBrowserSuite,
} from "./harness.ts";

const ANSWER = "Your order 1234 has shipped and arrives Friday.";
const HANDOVER = "I'm passing you to a person from our team. They will answer here shortly.";
const FALLBACK = "Thanks for your message! A team member will reply shortly.";
const SUMMARY =
  "The customer checked on order 1234 (shipped, arriving Friday), asked about gift cards, which the bot could not answer, then asked for a person.";

interface FunctionCallBody {
  type?: string;
  function?: string;
  arguments?: Record<string, unknown>;
  conversationId?: string | null;
  contactId?: string | null;
  messageId?: string | null;
  campaignId?: string;
  test?: boolean;
}

/** The shop's order system: answers signed calls (checked with the account's secret), refuses others. */
async function startOrderSystem() {
  const state = { secret: "" };
  const calls: { verified: boolean; body: FunctionCallBody; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      let verified = false;
      try {
        new Webhook(state.secret).verify(raw, req.headers as Record<string, string>);
        verified = true;
      } catch {}
      let body: FunctionCallBody = {};
      try {
        body = JSON.parse(raw) as FunctionCallBody;
      } catch {}
      calls.push({ verified, body, headers: req.headers });
      if (!verified) {
        res.writeHead(401, { "content-type": "text/plain" }).end("bad signature");
        return;
      }
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ orderId: "1234", status: "shipped", eta: "Friday" }));
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return { url: `http://127.0.0.1:${port}/orders/status`, state, calls, close };
}

describe.skipIf(Boolean(process.env.DATABASE_URL))(
  "the bot that acts: functions, summaries, hand-over",
  () => {
    let llm: LlmStub;
    let orders: Awaited<ReturnType<typeof startOrderSystem>>;
    let campaignId = "";
    let conversationId = "";

    const thread = () => suite.page.getByRole("list", { name: "Messages" });
    const functions = () => suite.page.getByRole("region", { name: "Functions" });
    const incoming = (body: string, messageSid: string) =>
      suite.incoming({ messageSid, fromId: "dana-77", toId: "bikeshop", body, campaignId });

    beforeAll(async () => {
      [llm, orders] = await Promise.all([startLlmStub(), startOrderSystem()]);
      // The model: a summary when asked for one; after a function's answer, the reply; asked about an
      // order with the function on offer, a call of it.
      llm.respond = (req) => {
        const messages = req.body.messages;
        const lastUser = textOf(messages.findLast((m) => m.role === "user")?.content ?? "");
        if (lastUser.startsWith("Conversation so far:")) return { content: SUMMARY };
        if (messages.some((m) => m.role === "tool"))
          return { content: ANSWER, usage: { prompt: 120, completion: 14 } };
        // Not in the knowledge, and no function knows: the model says so (the bot falls back).
        if (/gift card/i.test(lastUser)) return { content: "[[HANDOFF]]" };
        const offered = (req.body.tools ?? []).some((t) => t.function.name === "order_status");
        if (offered && /order 1234/.test(lastUser)) {
          return {
            toolCalls: [{ name: "order_status", arguments: { orderId: "1234" } }],
            usage: { prompt: 100, completion: 12 },
          };
        }
        return { content: "stub answer" };
      };
    });
    afterAll(async () => {
      await orders?.close();
      await llm?.close();
    });
    const suite = useBrowserSuite({
      env: () => ({ LLM_BASE_URL: llm.baseUrl, LLM_MODEL: "stub-model" }),
      business: "Dana Bikes",
      receiver: "started",
    });

    it("the owner saves the webhook URL and gives the order system the signing secret", async () => {
      await saveWebhookUrl(suite.page, suite.receiver.url);
      const signing = suite.page.getByRole("region", { name: "Signing secret" });
      await signing.getByRole("button", { name: "Reveal signing secret" }).click();
      const secret = (await signing.getByText(/^whsec_[A-Za-z0-9+/=]+$/).textContent())?.trim() ?? "";
      expect(secret).toMatch(/^whsec_/);
      orders.state.secret = secret;
    });

    it("adds a function to a live LLM campaign on the campaign page, and tests it", async () => {
      await suite.page.getByRole("link", { name: "Campaigns", exact: true }).click();
      await suite.page.getByRole("button", { name: "New campaign" }).click();
      await suite.page.getByLabel("Campaign name").fill("Orders");
      await suite.page.getByRole("button", { name: "Create campaign" }).click();
      await functions().waitFor();
      campaignId = new URL(suite.page.url()).pathname.split("/").at(-1) ?? "";
      expect(campaignId).toMatch(/^cmp_/);
      await functions().getByText("Only the LLM engine calls functions.").waitFor();
      await functions().getByText("No functions", { exact: false }).waitFor();

      await suite.page.getByRole("combobox", { name: "Status" }).click();
      await suite.page.getByRole("option", { name: "Live (answers)" }).click();
      await suite.page.getByRole("combobox", { name: "Engine" }).click();
      await suite.page.getByRole("option", { name: "LLM", exact: true }).click();
      await suite.page
        .getByLabel("Instructions")
        .fill("You are the assistant of Dana Bikes. Look orders up.");

      await functions().getByRole("button", { name: "Add function" }).click();
      const fn = functions().getByRole("group", { name: /^Function 1/ });
      await fn.getByRole("textbox", { name: "Name" }).fill("order_status");
      await fn
        .getByRole("textbox", { name: "Description" })
        .fill("Where a customer's order is, by its number.");
      await fn.getByRole("textbox", { name: "URL" }).fill(orders.url);
      await fn.getByRole("textbox", { name: "Timeout (ms)" }).fill("4000");
      const parameters = fn.getByRole("textbox", { name: "Parameters (JSON Schema)" });
      // Not JSON: said next to the field, and nothing is saved.
      await parameters.fill('{"type": "object", "properties": {');
      await fn.getByText("Not valid JSON", { exact: false }).waitFor();
      expect(await parameters.getAttribute("aria-invalid")).toBe("true");
      await suite.page.getByRole("button", { name: "Save campaign" }).click();
      await suite.page.getByRole("alert").getByText("A function's parameters are not valid JSON").waitFor();
      await expectAccessible(suite.page, "campaign: a function's parameters that do not parse");
      await parameters.fill(
        JSON.stringify({
          type: "object",
          properties: { orderId: { type: "string", description: "The order number" } },
          required: ["orderId"],
        }),
      );
      expect(await fn.getByText("Not valid JSON", { exact: false }).count()).toBe(0);
      await fn.getByText("Save the campaign to test it.").waitFor();
      await suite.page.getByRole("button", { name: "Save campaign" }).click();
      await suite.page.getByText("Campaign saved").waitFor();

      const saved = (await (
        await suite.api.get(`/v1/campaigns/${campaignId}?apiKey=${suite.apiKey}`)
      ).json()) as {
        status: string;
        engine: string;
        functions: unknown[];
      };
      expect(saved).toMatchObject({
        status: "live",
        engine: "llm",
        functions: [
          {
            name: "order_status",
            description: "Where a customer's order is, by its number.",
            url: orders.url,
            timeoutMs: 4000,
            parameters: { type: "object", required: ["orderId"] },
          },
        ],
      });

      // Test: the saved function, called signed with the arguments typed in the dialog.
      await functions().getByRole("button", { name: "Test", exact: true }).click();
      const dialog = suite.page.getByRole("dialog", { name: "Test order_status" });
      const args = dialog.getByRole("textbox", { name: "Arguments (JSON)" });
      // Arguments that do not match the parameters: the server's message.
      await args.fill("{}");
      await dialog.getByRole("button", { name: "Send test" }).click();
      await dialog.getByRole("alert").getByText("orderId", { exact: false }).waitFor();
      await args.fill('{"orderId": "1234"}');
      await dialog.getByRole("button", { name: "Send test" }).click();
      const result = dialog.getByRole("status", { name: "Test result" });
      await result.getByText("OK", { exact: true }).waitFor();
      await result.getByText("HTTP 200").waitFor();
      await result.getByText(/^\d+ ms$/).waitFor();
      await result.getByText('"status":"shipped"', { exact: false }).waitFor();
      const test = await eventually(() => orders.calls.find((c) => c.body.test === true));
      expect(test.verified).toBe(true);
      expect(test.body).toMatchObject({
        type: "bot.function_call",
        function: "order_status",
        arguments: { orderId: "1234" },
        conversationId: null,
        campaignId,
      });
      await expectAccessible(suite.page, "campaign: a function's test");
      await dialog.getByRole("button", { name: "Close" }).click();
      await dialog.waitFor({ state: "detached" });
      await expectAccessible(suite.page, "campaign: with a function");
    });

    it("a customer asks about an order: the bot calls the function, and the team sees the call in the thread", async () => {
      await incoming("Hi, where is my order 1234?", "sid-order-1");
      const reply = await eventually(
        () => suite.receiver.received.find((r) => r.body.body === ANSWER),
        30_000,
      );
      expect((reply.body as { sender?: string }).sender).toBe("bot");

      // The order system got one signed call with the model's arguments and the conversation.
      const call = await eventually(() => orders.calls.find((c) => c.body.test !== true));
      expect(call.verified).toBe(true);
      expect(call.headers["webhook-id"]).toMatch(/^fnc_/);
      expect(call.body).toMatchObject({
        type: "bot.function_call",
        function: "order_status",
        arguments: { orderId: "1234" },
        campaignId,
      });
      expect(call.body.conversationId).toMatch(/^cv_/);
      conversationId = call.body.conversationId ?? "";
      expect(orders.calls.filter((c) => c.body.test !== true)).toHaveLength(1);
      // The model was offered the function, and got its answer back as a tool message.
      const first = llm.requests.find((r) => r.body.tools?.some((t) => t.function.name === "order_status"));
      expect(first).toBeDefined();
      const followUp = llm.requests.find((r) => r.body.messages.some((m) => m.role === "tool"));
      expect(textOf(followUp?.body.messages.find((m) => m.role === "tool")?.content ?? "")).toContain(
        "shipped",
      );

      // The customer's webhook got the reply and nothing of the call.
      const sent = JSON.stringify(suite.receiver.received.map((r) => r.body));
      expect(sent).not.toContain("bot.function_call");
      expect(sent).not.toContain("order_status");
      expect(sent).not.toContain("Function call");

      await suite.page.goto(`${suite.parley.url}/inbox/${conversationId}`);
      await thread().getByText("Hi, where is my order 1234?").waitFor();
      const card = thread().getByRole("group", { name: "Function call · order_status" });
      await card.getByText("OK", { exact: true }).waitFor();
      await card.getByText("Only your team sees this").waitFor();
      await card.getByText('{"orderId":"1234"}').waitFor();
      await card.getByText(/^HTTP 200 · \d+ ms$/).waitFor();
      await card.getByText('"eta":"Friday"', { exact: false }).waitFor();
      await thread().getByText(ANSWER).waitFor();
      // In time order: the question, the call, the reply.
      const items = await thread().locator(":scope > li").allTextContents();
      const at = (text: string) => items.findIndex((t) => t.includes(text));
      expect(at("where is my order 1234?")).toBeLessThan(at("Function call · order_status"));
      expect(at("Function call · order_status")).toBeLessThan(at(ANSWER));
      // The bot answered: no summary, no alert.
      expect(await suite.page.getByRole("region", { name: "Summary" }).count()).toBe(0);
      await expectAccessible(suite.page, "conversation with a function call");
      await screenshot(suite.page, "bot-function-call");
    });

    it("the customer asks for a person: the bot hands over, and the thread opens on a summary", async () => {
      // First a question nobody taught the bot: the fallback, and the conversation needs a person.
      await incoming("Do you sell gift cards?", "sid-order-2");
      await thread().getByText(FALLBACK).waitFor({ timeout: 30_000 });
      await thread().getByText("Fallback · a person was alerted").waitFor();
      await suite.page
        .getByRole("region", { name: "Summary" })
        .getByText("Do you sell gift cards?")
        .waitFor();

      await incoming("can I talk to a person?", "sid-order-3");
      await thread().getByText(HANDOVER).waitFor({ timeout: 30_000 });
      await eventually(() => suite.receiver.received.find((r) => r.body.body === HANDOVER));
      await suite.page.getByRole("status").filter({ hasText: "Needs a human" }).waitFor();
      await suite.page.getByText("Bot paused").waitFor();
      await thread().getByText("Hand-over · a person was alerted").waitFor();

      const summary = suite.page.getByRole("region", { name: "Summary" });
      await summary.getByText("The customer asked for a person", { exact: false }).waitFor();
      await summary.getByText(SUMMARY).waitFor();
      // The question left open is listed; the request for a person is not (the hand-over answered it).
      await summary.getByRole("list").getByText("Do you sell gift cards?").waitFor();
      expect(await summary.getByRole("list").getByText("can I talk to a person?").count()).toBe(0);
      await expectAccessible(suite.page, "conversation handed over, with its summary");
      // The summary on top and the hand-over at the bottom of the thread, in one picture.
      await suite.page.setViewportSize({ width: 1280, height: 1500 });
      await suite.page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(suite.page, "bot-handover-summary", { fullPage: false });
      await suite.page.setViewportSize({ width: 1280, height: 860 });

      const res = await suite.api.get(`/v1/conversations/${conversationId}?apiKey=${suite.apiKey}`);
      expect(await res.json()).toMatchObject({
        humanAlert: true,
        humanAlertReason: "human_requested",
        botPaused: true,
      });
      // Still nothing of the function call at the customer's webhook.
      expect(JSON.stringify(suite.receiver.received.map((r) => r.body))).not.toContain("bot.function_call");
    });

    it("the dashboard counts the function's calls and the LLM's tokens", async () => {
      await suite.page.getByRole("link", { name: "Dashboard" }).click();
      const card = suite.page.getByRole("region", { name: "Bot functions" });
      const row = card
        .getByRole("table", { name: "Bot functions" })
        .getByRole("row", { name: /order_status/ });
      await row.waitFor();
      expect((await row.getByRole("cell").allTextContents()).map((t) => t.trim())).toEqual([
        "order_status",
        "1",
        "0",
      ]);
      await card.getByText(/^LLM tokens: [\d,]+ in, [\d,]+ out$/).waitFor();
      await expectAccessible(suite.page, "dashboard with bot functions");
    });
  },
);

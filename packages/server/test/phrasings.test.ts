// "Suggest other ways to ask" (issue 34): the account's LLM (a local OpenAI-compatible stand-in that
// records every request) proposes other phrasings of a knowledge entry's question; the answer is
// cleaned and de-duplicated, nothing is stored. Through /v1 and /app/api, both databases.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { cleanPhrasings, parsePhrasings, suggestPhrasings } from "../src/modules/bot/phrasings.ts";
import { AppError } from "../src/platform/errors.ts";
import { ownerBrowser, teammate } from "./app-helpers.ts";
import { callWithKey, type ErrorBody, errorCode, json, startTestApp, type TestApp } from "./helpers.ts";
import { type LlmStub, startLlmStub, textOf } from "./llm-stub.ts";

const KNOWLEDGE = [
  {
    question: "Do you deliver?",
    answer: "We deliver within 10 miles for free.",
    alternatives: ["Can you bring it to my house?"],
  },
  { text: "Spoke & Chain is a family bike shop by the canal." },
  { question: "What are your opening hours?", answer: "9am to 6pm, Monday to Saturday." },
];

interface Phrasings {
  entry: { index: number; question: string };
  phrasings: string[];
}

let t: TestApp;
let stub: LlmStub;
beforeAll(async () => {
  [t, stub] = await Promise.all([startTestApp(), startLlmStub()]);
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});
beforeEach(() => stub.reset());

/** An account with its own LLM (the stand-in; loopback is allowed in tests) and a campaign. */
async function shop(llm = true) {
  const acc = await t.account();
  if (llm) {
    await updateSettings(t.parley.db, acc.accountId, {
      llm_base_url: stub.baseUrl,
      llm_api_key: "acct-key-123",
      llm_model: "acct-model",
    });
  }
  const created = await callWithKey(t, "POST", "/v1/campaigns", acc.apiKey, {
    name: "Shop",
    knowledge: KNOWLEDGE,
  });
  expect(created.statusCode, created.body).toBe(201);
  return { ...acc, campaignId: json<{ id: string }>(created).id };
}

const suggest = (apiKey: string, campaignId: string, index: number | string) =>
  callWithKey(t, "POST", `/v1/campaigns/${campaignId}/knowledge/${index}/phrasings`, apiKey);

async function storedCampaign(apiKey: string, campaignId: string) {
  return json<{ knowledge: unknown[]; updatedAt: string }>(
    await callWithKey(t, "GET", `/v1/campaigns/${campaignId}`, apiKey),
  );
}

describe("Suggest other ways to ask", () => {
  it("proposes the model's phrasings cleaned and de-duplicated, asks about that question, stores nothing", async () => {
    const acc = await shop();
    const before = await storedCampaign(acc.apiKey, acc.campaignId);
    const proposals = [
      "do you deliver", // the question itself (case and punctuation aside)
      "Can you bring it to my house", // an alternative the entry already has
      "  Do u do   home delivery?  ",
      "Do u do home delivery!", // a repeat of the one before
      "Can I get it delivered?",
      "x".repeat(201), // too long
      "",
      '"is delivery a thing u do"',
      "Dó you délivér?", // the question again, with accents
    ];
    stub.respond = () => ({ content: `\`\`\`json\n${JSON.stringify(proposals)}\n\`\`\`` });

    const res = await suggest(acc.apiKey, acc.campaignId, 0);
    expect(res.statusCode, res.body).toBe(200);
    expect(json<Phrasings>(res)).toEqual({
      entry: { index: 0, question: "Do you deliver?" },
      phrasings: ["Do u do home delivery?", "Can I get it delivered?", "is delivery a thing u do"],
    });

    // One chat completion to the account's own model with its key, asking for phrasings of that question.
    expect(stub.requests).toHaveLength(1);
    const sent = stub.requests[0]!;
    expect(sent.path).toMatch(/\/chat\/completions$/);
    expect(sent.body.model).toBe("acct-model");
    expect(sent.headers.authorization).toBe("Bearer acct-key-123");
    const system = textOf(sent.body.messages.find((m) => m.role === "system")?.content ?? null);
    expect(system).toContain("other ways a real customer might ask the same thing");
    expect(system).toContain("JSON array of strings");
    expect(system).toMatch(/never answer it/);
    const user = textOf(sent.body.messages.find((m) => m.role === "user")?.content ?? null);
    expect(user).toContain("Question: Do you deliver?");
    expect(user).toContain("- Can you bring it to my house?");
    expect(user).toContain("context only");
    expect(user).not.toContain("opening hours");

    // Proposals only: the campaign is as it was.
    const after = await storedCampaign(acc.apiKey, acc.campaignId);
    expect(after).toEqual(before);
  });

  it("reads one phrasing per line when the model does not answer JSON (the web app's route)", async () => {
    const { acc, browser: owner } = await ownerBrowser(t);
    await updateSettings(t.parley.db, acc.accountId, {
      llm_base_url: stub.baseUrl,
      llm_api_key: "own-key",
      llm_model: "own-model",
    });
    const campaigns = json<{ data: { id: string; isDefault: boolean }[] }>(
      await owner.req({ method: "GET", url: "/app/api/campaigns" }),
    );
    const campaignId = campaigns.data.find((c) => c.isDefault)!.id;
    const set = await owner.req({
      method: "PATCH",
      url: `/app/api/campaigns/${campaignId}`,
      payload: { knowledge: KNOWLEDGE },
    });
    expect(set.statusCode, set.body).toBe(200);
    stub.respond = () => ({
      content:
        "Here are some ways a customer might ask:\n1. When do you open?\n2) “r u open on saturday”\n" +
        "- What time do you close?,\n* what are your opening hours\n",
    });

    const res = await owner.req({
      method: "POST",
      url: `/app/api/campaigns/${campaignId}/knowledge/2/phrasings`,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(json<Phrasings>(res)).toEqual({
      entry: { index: 2, question: "What are your opening hours?" },
      phrasings: ["When do you open?", "r u open on saturday", "What time do you close?"],
    });
    expect(textOf(stub.requests[0]!.body.messages.at(-1)!.content)).toContain(
      "Question: What are your opening hours?",
    );

    // Like saving knowledge, it is for owners and admins: an agent is refused before any LLM call.
    const agent = await teammate(t, owner, "agent");
    stub.reset();
    const refused = await agent.req({
      method: "POST",
      url: `/app/api/campaigns/${campaignId}/knowledge/2/phrasings`,
    });
    expect(refused.statusCode, refused.body).toBe(403);
    expect(errorCode(refused)).toBe("FORBIDDEN");
    expect(stub.requests).toHaveLength(0);
  });

  it("answers 404 for an unknown campaign, another account's campaign and an index past the end; 400 for free text", async () => {
    const acc = await shop();
    const other = await shop();
    const cases: [string | number, string, number, string][] = [
      [0, "cmp_doesnotexist", 404, "CAMPAIGN_NOT_FOUND"],
      [0, other.campaignId, 404, "CAMPAIGN_NOT_FOUND"],
      [3, acc.campaignId, 404, "NOT_FOUND"],
      [1, acc.campaignId, 400, "VALIDATION_ERROR"],
      [-1, acc.campaignId, 400, "VALIDATION_ERROR"],
      ["first", acc.campaignId, 400, "VALIDATION_ERROR"],
    ];
    for (const [index, campaignId, status, code] of cases) {
      const res = await suggest(acc.apiKey, campaignId, index);
      expect(res.statusCode, `${campaignId} ${index}: ${res.body}`).toBe(status);
      expect(errorCode(res)).toBe(code);
    }
    expect(json<ErrorBody>(await suggest(acc.apiKey, acc.campaignId, 1)).error.message).toBe(
      "knowledge[1] is free text: other ways to ask belong to question/answer entries",
    );
    expect(json<ErrorBody>(await suggest(acc.apiKey, acc.campaignId, 3)).error.message).toMatch(
      /knowledge entry 3 not found: the campaign has 3/,
    );
    expect(stub.requests).toHaveLength(0);
  });

  it("answers 409 LLM_NOT_CONFIGURED when the account has no LLM", async () => {
    const acc = await shop(false);
    const res = await suggest(acc.apiKey, acc.campaignId, 0);
    expect(res.statusCode, res.body).toBe(409);
    expect(json<ErrorBody>(res).error).toMatchObject({
      code: "LLM_NOT_CONFIGURED",
      message: expect.stringContaining("No LLM is set up for this account"),
    });
    expect(stub.requests).toHaveLength(0);
  });

  it("answers 502 LLM_ERROR when the provider fails (retried once) or answers nothing, without its details", async () => {
    const acc = await shop();
    const before = await storedCampaign(acc.apiKey, acc.campaignId);
    stub.respond = () => ({
      status: 500,
      errorBody: { error: { message: "upstream exploded at 10.1.2.3 (secret-internal-detail)" } },
    });
    const failed = await suggest(acc.apiKey, acc.campaignId, 0);
    expect(failed.statusCode, failed.body).toBe(502);
    expect(json<ErrorBody>(failed).error).toMatchObject({
      code: "LLM_ERROR",
      message: "The LLM did not answer (it failed or took too long). Try again in a moment.",
    });
    for (const leak of ["secret-internal-detail", "10.1.2.3", "127.0.0.1", "acct-key", "stub"]) {
      expect(failed.body).not.toContain(leak);
    }
    expect(stub.requests).toHaveLength(2);

    stub.reset();
    stub.respond = () => ({ content: "   " });
    const empty = await suggest(acc.apiKey, acc.campaignId, 0);
    expect(empty.statusCode, empty.body).toBe(502);
    expect(errorCode(empty)).toBe("LLM_ERROR");

    expect(await storedCampaign(acc.apiKey, acc.campaignId)).toEqual(before);
  });

  it("gives up with LLM_ERROR when the model takes longer than the time allowed", async () => {
    const acc = await shop();
    stub.respond = () => ({ content: '["too late"]', delayMs: 3_000 });
    const started = Date.now();
    const err = await suggestPhrasings(t.parley.ctx, acc.accountId, acc.campaignId, 0, {
      timeoutMs: 400,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("LLM_ERROR");
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("answers 200 with no proposals when every one repeats what the entry has", async () => {
    const acc = await shop();
    stub.respond = () => ({ content: '["Do you deliver??", "can you bring it to my house"]' });
    const res = await suggest(acc.apiKey, acc.campaignId, 0);
    expect(res.statusCode, res.body).toBe(200);
    expect(json<Phrasings>(res).phrasings).toEqual([]);
  });
});

describe("reading the model's answer", () => {
  it("takes a JSON array after a preamble, the array inside an object, or lines", () => {
    expect(parsePhrasings('Sure! Here they are: ["a b", "c d"]')).toEqual(["a b", "c d"]);
    expect(parsePhrasings('{"phrasings": ["one", 2, "two"]}')).toEqual(["one", "two"]);
    expect(parsePhrasings('[{"phrasing": "one"}, {"text": "two", "tone": "casual"}]')).toEqual([
      "one",
      "two",
    ]);
    expect(parsePhrasings("Sure:\nfirst line\n- second line")).toEqual(["first line", "second line"]);
    // Cut short by the model's token limit: the complete strings are kept.
    expect(parsePhrasings('```json\n["do u deliver", "a \\"quoted\\" one", "cut sh')).toEqual([
      "do u deliver",
      'a "quoted" one',
    ]);
  });

  it("caps the proposals at the schema's limit of alternatives", () => {
    const many = Array.from({ length: 30 }, (_, i) => `phrasing number ${i}`);
    expect(cleanPhrasings(many, "question", [])).toHaveLength(20);
  });
});

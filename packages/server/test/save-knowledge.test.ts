// "Save as knowledge" (learning from the inbox): the bot falls back, a person answers, the question is
// saved (a new entry, or another phrasing of an entry) and the next customer asking it is answered.
// Through /app/api as the web app does it and through POST /v1/campaigns/{id}/knowledge; both databases.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, ownerBrowser, teammate } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { callWithKey, errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

const KNOWLEDGE = [
  { question: "What are your opening hours?", answer: "We are open 9am to 6pm, Monday to Saturday." },
  { question: "Do you repair bikes?", answer: "Yes, our workshop repairs all kinds of bikes." },
  { question: "Do you deliver?", answer: "We deliver within 10 miles for free." },
  { text: "Spoke & Chain is a family bike shop by the canal." },
];
const FALLBACK = "Thanks for your message! A team member will reply shortly.";

interface ThreadMessage {
  id: string;
  sender: string;
  body: string;
  botOutcome: "answer" | "fallback" | null;
}
interface Saved {
  campaignId: string;
  change: string;
  entry: { index: number; question: string; answer: string; alternatives: string[] };
  knowledgeCount: number;
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/** A customer message; waits for the bot's reply (the worker drained) and returns both bodies. */
async function ask(apiKey: string, fromId: string, body: string) {
  const res = await postIncoming(t, apiKey, { customData: customData({ fromId, body, channel: "webchat" }) });
  expect(res.statusCode, res.body).toBe(200);
  const { messageId } = json<{ messageId: string; conversationId: string }>(res);
  await t.parley.worker.drain();
  const reply = await t.parley.db.kysely
    .selectFrom("messages")
    .select(["body", "bot_outcome", "conversation_id"])
    .where("external_id", "=", `bot:${messageId}`)
    .executeTakeFirstOrThrow();
  return { messageId, conversationId: reply.conversation_id, reply: reply.body, outcome: reply.bot_outcome };
}

async function defaultCampaign(browser: Browser): Promise<string> {
  const page = json<{ data: { id: string; isDefault: boolean }[] }>(
    await browser.req({ method: "GET", url: "/app/api/campaigns" }),
  );
  const id = page.data.find((c) => c.isDefault)?.id;
  if (!id) throw new Error("no default campaign");
  return id;
}

async function knowledgeOf(browser: Browser, campaignId: string) {
  const res = await browser.req({ method: "GET", url: `/app/api/campaigns/${campaignId}` });
  return json<{ knowledge: Record<string, unknown>[]; updatedAt: string }>(res);
}

describe("Save as knowledge", () => {
  it("fallback, a person replies, saved as a new entry: the next customer asking it gets the answer", async () => {
    const { acc, browser: owner } = await ownerBrowser(t);
    const campaignId = await defaultCampaign(owner);
    const set = await owner.req({
      method: "PATCH",
      url: `/app/api/campaigns/${campaignId}`,
      payload: { status: "live", knowledge: KNOWLEDGE },
    });
    expect(set.statusCode, set.body).toBe(200);

    const first = await ask(acc.apiKey, "alice", "Hi! Can I pay with a gift card I got for my birthday?");
    expect(first).toMatchObject({ reply: FALLBACK, outcome: "fallback" });

    // The conversation shows which bot reply was a fallback; a person answers it.
    const detail = json<{ messages: ThreadMessage[] }>(
      await owner.req({ method: "GET", url: `/app/api/conversations/${first.conversationId}` }),
    );
    expect(detail.messages.map((m) => [m.sender, m.botOutcome])).toEqual([
      ["contact", null],
      ["bot", "fallback"],
    ]);
    const answer = "Yes, our gift cards work in the shop and online, for any amount.";
    const replied = await owner.req({
      method: "POST",
      url: `/app/api/conversations/${first.conversationId}/messages`,
      payload: { body: answer },
    });
    expect(replied.statusCode, replied.body).toBe(201);

    const saved = await owner.req({
      method: "POST",
      url: `/app/api/campaigns/${campaignId}/knowledge`,
      payload: { question: "Can I pay with a gift card I got for my birthday?", answer },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(json<Saved>(saved)).toEqual({
      campaignId,
      change: "entry_created",
      entry: {
        index: 4,
        question: "Can I pay with a gift card I got for my birthday?",
        answer,
        alternatives: [],
      },
      knowledgeCount: 5,
    });

    // Another customer, other words: answered by the bot, not the fallback.
    const next = await ask(acc.apiKey, "bob", "could I use my gift card to pay");
    expect(next).toMatchObject({ reply: answer, outcome: "answer" });
    const tried = json<{ entry: { index: number }; confidence: number }>(
      await owner.req({
        method: "POST",
        url: `/app/api/campaigns/${campaignId}/preview`,
        payload: { message: "hello, is paying with a gift card possible?" },
      }),
    );
    expect(tried.entry.index).toBe(4);
    expect(tried.confidence).toBeGreaterThan(0);
  });

  it("adds the message as another phrasing of an entry over the API; the same message is then answered", async () => {
    const acc = await t.account();
    const created = await callWithKey(t, "POST", "/v1/campaigns", acc.apiKey, {
      name: "Shop",
      status: "live",
      isDefault: true,
      knowledge: KNOWLEDGE,
    });
    expect(created.statusCode, created.body).toBe(201);
    const campaignId = json<{ id: string }>(created).id;
    const question = "could you drop the bicycle round at my flat";
    expect((await ask(acc.apiKey, "carol", question)).outcome).toBe("fallback");

    const saved = await callWithKey(t, "POST", `/v1/campaigns/${campaignId}/knowledge`, acc.apiKey, {
      question: `  ${question}  `,
      entryIndex: 2,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(json<Saved>(saved)).toMatchObject({
      change: "alternative_added",
      entry: { index: 2, question: "Do you deliver?", alternatives: [question] },
      knowledgeCount: 4,
    });
    // The same phrasing again (any case) changes nothing.
    const again = await callWithKey(t, "POST", `/v1/campaigns/${campaignId}/knowledge`, acc.apiKey, {
      question: question.toUpperCase(),
      entryIndex: 2,
    });
    expect(json<Saved>(again)).toMatchObject({ change: "unchanged", entry: { alternatives: [question] } });

    const next = await ask(acc.apiKey, "dan", "Could you drop the bicycle round at my flat?");
    expect(next).toMatchObject({ reply: KNOWLEDGE[2]?.answer, outcome: "answer" });
  });

  it("refuses what it cannot save with a 400 and changes nothing; another account's campaign is 404", async () => {
    const { acc, browser: owner } = await ownerBrowser(t);
    const campaignId = await defaultCampaign(owner);
    await owner.req({
      method: "PATCH",
      url: `/app/api/campaigns/${campaignId}`,
      payload: { knowledge: KNOWLEDGE },
    });
    const before = await knowledgeOf(owner, campaignId);
    const post = (payload: object, apiKey = acc.apiKey) =>
      callWithKey(t, "POST", `/v1/campaigns/${campaignId}/knowledge`, apiKey, payload);

    const refused: Array<[object, RegExp]> = [
      [{ question: "gift cards?" }, /either entryIndex .* or answer/],
      [{ question: "gift cards?", answer: "Yes.", entryIndex: 0 }, /either entryIndex .* or answer/],
      [
        { question: "gift cards?", entryIndex: 9 },
        /entryIndex 9 is not an entry of this campaign \(it has 4\)/,
      ],
      [{ question: "gift cards?", entryIndex: 3 }, /knowledge\[3\] is a text passage/],
      [{ question: "   ", answer: "Yes." }, /question must not be empty/],
      [{ question: "gift cards?", answer: "  " }, /answer must not be empty/],
      [{ question: "gift cards?", entryIndex: -1 }, /entryIndex/],
      [{ question: "x".repeat(1001), answer: "Yes." }, /question/],
    ];
    for (const [payload, message] of refused) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorCode(res)).toBe("VALIDATION_ERROR");
      expect(json<{ error: { message: string } }>(res).error.message).toMatch(message);
    }
    // A full entry: 20 phrasings already.
    const full = KNOWLEDGE.map((e, i) =>
      i === 0 ? { ...e, alternatives: Array.from({ length: 20 }, (_, k) => `When do you open ${k}?`) } : e,
    );
    await owner.req({
      method: "PATCH",
      url: `/app/api/campaigns/${campaignId}`,
      payload: { knowledge: full },
    });
    const fullBefore = await knowledgeOf(owner, campaignId);
    const tooMany = await post({ question: "what time do you open", entryIndex: 0 });
    expect(tooMany.statusCode).toBe(400);
    expect(json<{ error: { message: string } }>(tooMany).error.message).toMatch(/already has 20/);
    expect(await knowledgeOf(owner, campaignId)).toEqual(fullBefore);
    expect(fullBefore.knowledge).not.toEqual(before.knowledge);

    const other = await t.account();
    const foreign = await post({ question: "gift cards?", answer: "Yes." }, other.apiKey);
    expect(foreign.statusCode).toBe(404);
    expect(errorCode(foreign)).toBe("CAMPAIGN_NOT_FOUND");
    const missing = await callWithKey(t, "POST", "/v1/campaigns/cmp_nope/knowledge", acc.apiKey, {
      question: "gift cards?",
      answer: "Yes.",
    });
    expect(missing.statusCode).toBe(404);

    // In the web app, an agent may read and try campaigns but not change what the bot says.
    const agent = await teammate(t, owner, "agent");
    const byAgent = await agent.req({
      method: "POST",
      url: `/app/api/campaigns/${campaignId}/knowledge`,
      payload: { question: "gift cards?", answer: "Yes." },
    });
    expect(byAgent.statusCode).toBe(403);
    expect(await knowledgeOf(owner, campaignId)).toEqual(fullBefore);
  });

  it("two saves at once both land", async () => {
    const acc = await t.account();
    const created = await callWithKey(t, "POST", "/v1/campaigns", acc.apiKey, {
      name: "Shop",
      knowledge: KNOWLEDGE,
    });
    const campaignId = json<{ id: string }>(created).id;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        callWithKey(t, "POST", `/v1/campaigns/${campaignId}/knowledge`, acc.apiKey, {
          question: `Question number ${i}?`,
          ...(i % 2 === 0 ? { answer: `Answer ${i}.` } : { entryIndex: 1 }),
        }),
      ),
    );
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    const campaign = json<{ knowledge: { question?: string; alternatives?: string[] }[] }>(
      await callWithKey(t, "GET", `/v1/campaigns/${campaignId}`, acc.apiKey),
    );
    expect(campaign.knowledge.slice(4).map((e) => e.question)).toEqual(
      expect.arrayContaining(["Question number 0?", "Question number 2?", "Question number 4?"]),
    );
    expect(campaign.knowledge).toHaveLength(7);
    expect([...(campaign.knowledge[1]?.alternatives ?? [])].sort()).toEqual([
      "Question number 1?",
      "Question number 3?",
      "Question number 5?",
    ]);
  });
});

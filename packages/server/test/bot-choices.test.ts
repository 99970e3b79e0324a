// "Did you mean" (issue 34), end to end through the custom channel on both databases: the builtin
// engine unsure between two entries offers them as numbered choices (with `suggestions` in the signed
// webhook payload), the customer's pick gets that entry's answer, anything else is a new question, and
// "Try it" shows the choices. A real HTTP receiver stands in for the business's system.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { findMessageByExternalId } from "../src/modules/messaging/repo.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { callWithKey, drainUntil, json, startTestApp, type TestApp } from "./helpers.ts";
import { type Receiver, startReceiver } from "./receiver.ts";

const KNOWLEDGE = [
  { question: "What are your opening hours on weekdays?", answer: "Monday to Friday 9:00 to 18:00." },
  { question: "What are your opening hours at weekends?", answer: "Saturday 10:00 to 16:00, closed Sunday." },
  { question: "How much does a bike service cost?", answer: "A full service is £60." },
  { question: "How much does a puncture repair cost?", answer: "A puncture repair is £12." },
  { question: "Where can I park?", answer: "Free parking behind the shop." },
];
const CHOICES_BODY =
  "Did you mean:\n1. What are your opening hours on weekdays?\n2. What are your opening hours at weekends?\n" +
  "Reply with the number, or ask in other words.";

describe("Did you mean (builtin engine, custom channel)", () => {
  let t: TestApp;
  let rx: Receiver;
  let acc: { accountId: string; apiKey: string };
  let campaignId: string;

  beforeAll(async () => {
    t = await startTestApp();
    rx = await startReceiver();
    acc = await t.account();
    await updateSettings(t.parley.db, acc.accountId, { webhook_url: `${rx.url}/${acc.accountId}` });
    const page = json<{ data: { id: string; isDefault: boolean }[] }>(
      await callWithKey(t, "GET", "/v1/campaigns", acc.apiKey),
    );
    campaignId = page.data.find((c) => c.isDefault)!.id;
    const patched = await callWithKey(t, "PATCH", `/v1/campaigns/${campaignId}`, acc.apiKey, {
      knowledge: KNOWLEDGE,
      engine: "builtin",
    });
    expect(patched.statusCode, patched.body).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  /** The customer writes; resolves with the bot's reply once it reached the receiver. */
  async function say(fromId: string, body: string) {
    const res = await postIncoming(t, acc.apiKey, { customData: customData({ fromId, body }) });
    expect(res.statusCode, res.body).toBe(200);
    const inboundId = json<{ messageId: string }>(res).messageId;
    let delivered: Record<string, unknown> | undefined;
    await drainUntil(t, async () => {
      const reply = await findMessageByExternalId(t.parley.db.kysely, acc.accountId, `bot:${inboundId}`);
      delivered = rx.received
        .map((r) => JSON.parse(r.body) as Record<string, unknown>)
        .find((b) => reply && b.messageId === reply.id);
      return delivered !== undefined;
    });
    return delivered!;
  }

  it("offers the close entries as numbered choices with suggestions in the webhook payload", async () => {
    const offered = await say("dym-1", "opening hours?");
    expect(offered).toMatchObject({
      body: CHOICES_BODY,
      sender: "bot",
      type: "message.outbound",
      suggestions: [
        { id: "1", title: "What are your opening hours on weekdays?" },
        { id: "2", title: "What are your opening hours at weekends?" },
      ],
    });
    // No human alert for a question the choices may settle.
    const message = json<{ conversationId: string }>(
      await callWithKey(t, "GET", `/v1/messages/${offered.messageId}`, acc.apiKey),
    );
    const conversation = json<{ humanAlert: boolean }>(
      await callWithKey(t, "GET", `/v1/conversations/${message.conversationId}`, acc.apiKey),
    );
    expect(conversation.humanAlert).toBe(false);

    const picked = await say("dym-1", "2");
    expect(picked.body).toBe("Saturday 10:00 to 16:00, closed Sunday.");
    expect(picked).not.toHaveProperty("suggestions");
  });

  it("reads a pick by its label, a label a channel cut short, or an ordinal", async () => {
    expect((await say("dym-2", "how much?")).body).toMatch(
      /^Did you mean:\n1\. How much does a bike service/,
    );
    expect((await say("dym-2", "How much does a puncture repair cost?")).body).toBe(
      "A puncture repair is £12.",
    );

    await say("dym-2", "opening hours?");
    expect((await say("dym-2", "What are your openin…")).body).toBe("Monday to Friday 9:00 to 18:00.");

    await say("dym-2", "opening hours?");
    expect((await say("dym-2", "the second one")).body).toBe("Saturday 10:00 to 16:00, closed Sunday.");
  });

  it("takes anything else as a new question, and a number with no choices pending as an ordinary message", async () => {
    await say("dym-3", "opening hours?");
    expect((await say("dym-3", "where do I park")).body).toBe("Free parking behind the shop.");
    // The choices were answered by a new question: "1" now picks nothing, the fallback goes out.
    const late = await say("dym-3", "1");
    expect(late.body).toBe("Thanks for your message! A team member will reply shortly.");
    expect(late).not.toHaveProperty("suggestions");
  });

  it("Try it shows the choices and the entries behind them", async () => {
    const res = await callWithKey(t, "POST", `/v1/campaigns/${campaignId}/preview`, acc.apiKey, {
      message: "opening hours?",
    });
    expect(res.statusCode, res.body).toBe(200);
    const preview = json<{ outcome: string; reply: string; choices: unknown[] }>(res);
    expect(preview).toMatchObject({ engine: "builtin", outcome: "choices", reply: CHOICES_BODY });
    expect(preview.choices).toEqual([
      { id: "1", title: KNOWLEDGE[0]!.question, index: 0, confidence: 1, source: null },
      { id: "2", title: KNOWLEDGE[1]!.question, index: 1, confidence: 1, source: null },
    ]);
  });
});

// The inbox list's preview says who wrote the last message: the list answers its sender (contact, bot,
// human) and, for a person's reply, that person's id and name, so the web app shows "Bot:", "Sam:" or
// "You:" (issue 33).
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Browser, ownerBrowser, teammate } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { json, startTestApp, type TestApp } from "./helpers.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface Preview {
  body: string;
  direction: string;
  sender: string;
  userId: string | null;
  senderName: string | null;
}

async function previewOf(b: Browser, fromId: string): Promise<Preview | null> {
  const res = await b.req({ method: "GET", url: "/app/api/conversations" });
  expect(res.statusCode, res.body).toBe(200);
  const rows = json<{ data: Array<{ contact: { fromId: string }; lastMessage: Preview | null }> }>(res).data;
  return rows.find((c) => c.contact.fromId === fromId)?.lastMessage ?? null;
}

async function incoming(apiKey: string, fromId: string, body: string) {
  const res = await postIncoming(t, apiKey, { customData: customData({ fromId, body }) });
  expect(res.statusCode, res.body).toBeLessThan(300);
}

it("answers the last message's sender, and the person's id and name for a person's reply", async () => {
  const { acc, browser: owner } = await ownerBrowser(t);
  const sam = await teammate(t, owner, "agent", "Sam Lee");

  // The bot answers an unanswered message (its fallback): sender bot, no person.
  await incoming(acc.apiKey, "by-bot", "Do you deliver on Sundays?");
  expect(await previewOf(owner, "by-bot")).toMatchObject({ sender: "contact", direction: "inbound" });
  const until = Date.now() + 10_000;
  while ((await previewOf(owner, "by-bot"))?.sender !== "bot") {
    await t.parley.worker.drain();
    if (Date.now() > until) throw new Error("the bot did not answer");
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(await previewOf(owner, "by-bot")).toMatchObject({
    direction: "outbound",
    userId: null,
    senderName: null,
  });

  // A teammate's reply and the owner's own: each names its person (the owner's list shows "Sam:").
  await incoming(acc.apiKey, "by-sam", "Where is my parcel?");
  await incoming(acc.apiKey, "by-owner", "Can I change my address?");
  const rows = json<{ data: Array<{ id: string; contact: { fromId: string } }> }>(
    await owner.req({ method: "GET", url: "/app/api/conversations" }),
  ).data;
  const idOf = (fromId: string) => rows.find((c) => c.contact.fromId === fromId)?.id;
  for (const [who, fromId, body] of [
    [sam, "by-sam", "Sam here: it left the depot."],
    [owner, "by-owner", "Done, the new address is saved."],
  ] as const) {
    const res = await who.req({
      method: "POST",
      url: `/app/api/conversations/${idOf(fromId)}/messages`,
      payload: { body },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  expect(await previewOf(owner, "by-sam")).toEqual(
    expect.objectContaining({
      body: "Sam here: it left the depot.",
      sender: "human",
      userId: sam.session.user.id,
      senderName: "Sam Lee",
    }),
  );
  const own = await previewOf(owner, "by-owner");
  expect(own).toMatchObject({ sender: "human", userId: owner.session.user.id });
  // The owner set no display name: the e-mail stands in.
  expect(own?.senderName).toBe(owner.session.user.email);
  // The existing fields stay.
  expect(own).toHaveProperty("createdAt");
});

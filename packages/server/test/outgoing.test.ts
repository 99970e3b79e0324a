// Outgoing campaigns: a first message to every member of a list through a custom channel, delivered
// like every reply; members without a fromId skipped; never twice (resume, start again); pause stops
// at once; out of credits pauses itself; replies go to the campaign's bot.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { callWithKey, errorCode, json, newAgency, startTestApp, type TestApp } from "./helpers.ts";
import { type Receiver, startReceiver } from "./receiver.ts";

interface Stats {
  state: string | null;
  pausedReason: string | null;
  members: number;
  queued: number;
  sent: number;
  pending: number;
  failed: number;
  skipped: number;
  skippedByReason: Record<string, number>;
  replied: number;
}

describe("outgoing campaigns", () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    [t, receiver] = await Promise.all([startTestApp(), startReceiver()]);
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  /** An account with a receiver, a list of `withFromId` custom-channel contacts and `withoutFromId` others. */
  async function world(acc: CreatedAccount, withFromId: number, withoutFromId: number, tag: string) {
    await updateSettings(t.parley.db, acc.accountId, { webhook_url: receiver.url });
    const call = (method: "GET" | "POST" | "PATCH", url: string, body?: unknown) =>
      callWithKey(t, method, url, acc.apiKey, body);
    const list = json<{ id: string }>(await call("POST", "/v1/lists", { name: `out ${tag}` }));
    for (let i = 0; i < withFromId; i++) {
      const res = await postIncoming(t, acc.apiKey, {
        customData: customData({ fromId: `${tag}-${i}`, body: "hello" }),
      });
      const { messageId } = json<{ messageId: string }>(res);
      const m = json<{ contactId: string }>(await call("GET", `/v1/messages/${messageId}`));
      await call("POST", `/v1/lists/${list.id}/contacts`, { contactId: m.contactId });
    }
    for (let i = 0; i < withoutFromId; i++) {
      const c = json<{ id: string }>(
        await call("POST", "/v1/contacts", { firstName: "Phone", phone: `+1415555${String(7000 + i)}` }),
      );
      await call("POST", `/v1/lists/${list.id}/contacts`, { contactId: c.id });
    }
    await t.parley.worker.drain(); // the bot's replies to the hellos
    return { call, listId: list.id };
  }
  const firstMessages = (campaignId: string) =>
    receiver.received
      .map(
        (r) =>
          JSON.parse(r.body) as {
            campaignId: string;
            body: string;
            sender: string;
            channel: string;
            toId: string;
          },
      )
      .filter((b) => b.campaignId === campaignId && b.body.startsWith("Hi "));
  /** Makes the next tick due now (its first member would wait for the campaign's pace) and runs the worker. */
  const tick = async () => {
    const jobs = await t.parley.db.kysely
      .selectFrom("jobs")
      .select(["id", "payload"])
      .where("type", "=", "outgoing.send")
      .execute();
    for (const j of jobs) {
      const { campaignId } = JSON.parse(j.payload) as { campaignId: string };
      await t.parley.db.kysely
        .updateTable("jobs")
        .set({ run_at: Date.now(), payload: JSON.stringify({ campaignId }) })
        .where("id", "=", j.id)
        .execute();
    }
    await t.parley.worker.drain();
  };

  it("sends each member with a fromId the first message once, skips the others, and routes replies to the campaign", async () => {
    const acc = await t.account();
    const { call, listId } = await world(acc, 3, 2, "a");
    const made = await call("POST", "/v1/campaigns", {
      name: "Spring sale",
      status: "live",
      knowledge: [{ question: "What are your opening hours?", answer: "Spring hours: 8 to 8." }],
      outgoing: {
        message: "Hi {{firstName|there}}! Our spring sale starts today.",
        listId,
        channel: "sms",
        ratePerMinute: 600,
      },
    });
    expect(made.statusCode, made.body).toBe(201);
    const campaign = json<{ id: string; outgoing: Record<string, unknown> }>(made);
    expect(campaign.outgoing).toMatchObject({ listId, channel: "sms", ratePerMinute: 600, state: null });

    const started = json<Stats>(await call("POST", `/v1/campaigns/${campaign.id}/start`));
    expect(started).toMatchObject({ state: "running", members: 5, queued: 5 });
    await t.parley.worker.drain();
    const sent = firstMessages(campaign.id);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((s) => s.toId))).toEqual(new Set(["a-0", "a-1", "a-2"]));
    expect(sent[0]).toMatchObject({
      body: "Hi there! Our spring sale starts today.",
      sender: "bot",
      channel: "sms",
    });
    const stats = json<Stats>(await call("GET", `/v1/campaigns/${campaign.id}/stats`));
    expect(stats).toMatchObject({
      state: "done",
      queued: 0,
      sent: 3,
      skipped: 2,
      skippedByReason: { no_custom_channel_id: 2, no_known_channel: 0 },
      failed: 0,
      pending: 0,
      replied: 0,
    });

    // Started again: nobody gets it twice.
    await call("POST", `/v1/campaigns/${campaign.id}/start`);
    await tick();
    expect(firstMessages(campaign.id)).toHaveLength(3);

    // A reply goes to this campaign's bot (not the default campaign).
    await postIncoming(t, acc.apiKey, {
      customData: customData({ fromId: "a-1", body: "What are your opening hours?" }),
    });
    await t.parley.worker.drain();
    const answer = receiver.received
      .map((r) => JSON.parse(r.body) as { campaignId: string; body: string; toId: string })
      .find((b) => b.toId === "a-1" && b.body === "Spring hours: 8 to 8.");
    expect(answer?.campaignId).toBe(campaign.id);
    expect(json<Stats>(await call("GET", `/v1/campaigns/${campaign.id}/stats`)).replied).toBe(1);
  });

  it("pause stops the next member at once; resume goes on without repeating anyone", async () => {
    const acc = await t.account();
    const { call, listId } = await world(acc, 3, 0, "p");
    const campaign = json<{ id: string }>(
      await call("POST", "/v1/campaigns", {
        name: "Slow",
        outgoing: { message: "Hi {{firstName|friend}}", listId, channel: "sms", ratePerMinute: 6 },
      }),
    );
    await call("POST", `/v1/campaigns/${campaign.id}/start`);
    await t.parley.worker.drain();
    expect(firstMessages(campaign.id)).toHaveLength(1); // one per 10-second tick at 6 a minute
    expect(json<Stats>(await call("POST", `/v1/campaigns/${campaign.id}/pause`))).toMatchObject({
      state: "paused",
      pausedReason: "paused",
    });
    await tick();
    expect(firstMessages(campaign.id)).toHaveLength(1);
    await call("POST", `/v1/campaigns/${campaign.id}/start`);
    await tick();
    await tick();
    await tick();
    const all = firstMessages(campaign.id);
    expect(all).toHaveLength(3);
    expect(new Set(all.map((m) => m.toId)).size).toBe(3);
    expect(json<Stats>(await call("GET", `/v1/campaigns/${campaign.id}/stats`)).state).toBe("done");
  });

  it("keeps the send rate: 100 members at 600 a minute take about 10 seconds, evenly", async () => {
    const acc = await t.account();
    await updateSettings(t.parley.db, acc.accountId, { bot_active: 0 });
    const { call, listId } = await world(acc, 100, 0, "r");
    const campaign = json<{ id: string }>(
      await call("POST", "/v1/campaigns", {
        name: "Paced",
        outgoing: { message: "Hi paced", listId, channel: "sms", ratePerMinute: 600 },
      }),
    );
    await call("POST", `/v1/campaigns/${campaign.id}/start`);
    await t.parley.worker.drain();
    const times = (
      await t.parley.db.kysely
        .selectFrom("messages")
        .select("created_at")
        .where("account_id", "=", acc.accountId)
        .where("campaign_id", "=", campaign.id)
        .orderBy("created_at")
        .execute()
    ).map((r) => Number(r.created_at));
    expect(times).toHaveLength(100);
    // 99 intervals of 100 ms: 9.9 s, within 10 %.
    const span = (times.at(-1) ?? 0) - (times[0] ?? 0);
    expect(span).toBeGreaterThan(9900 * 0.9);
    expect(span).toBeLessThan(9900 * 1.1);
    // And no burst: no 10 members within half a second.
    for (let i = 10; i < times.length; i++)
      expect((times[i] ?? 0) - (times[i - 10] ?? 0)).toBeGreaterThan(500);
  }, 60_000);

  it("sends each member on the channel it is known on; without one (and no campaign channel) skips it, saying why", async () => {
    const acc = await t.account();
    await updateSettings(t.parley.db, acc.accountId, { webhook_url: receiver.url, bot_active: 0 });
    const call = (method: "GET" | "POST", url: string, body?: unknown) =>
      callWithKey(t, method, url, acc.apiKey, body);
    const list = json<{ id: string }>(await call("POST", "/v1/lists", { name: "channels" }));
    const add = (contactId: string) => call("POST", `/v1/lists/${list.id}/contacts`, { contactId });
    // Two contacts who wrote in on their own channels, one who wrote without a label.
    for (const [fromId, channel] of [
      ["ch-live", "livechat"],
      ["ch-wa", "whatsapp"],
      ["ch-none", undefined],
    ] as const) {
      const { messageId } = json<{ messageId: string }>(
        await postIncoming(t, acc.apiKey, { customData: customData({ fromId, channel, body: "hello" }) }),
      );
      await add(json<{ contactId: string }>(await call("GET", `/v1/messages/${messageId}`)).contactId);
    }
    // One imported with a custom channel id but never in touch, one with a phone only.
    const imported = await t.inject({
      method: "POST",
      url: `/v1/contacts/imports?apiKey=${acc.apiKey}&listId=${list.id}`,
      headers: { "content-type": "text/csv" },
      payload: "First name,Channel id\nImp,ch-imp\n",
    });
    expect(imported.statusCode, imported.body).toBe(202);
    const phoneOnly = json<{ id: string }>(
      await call("POST", "/v1/contacts", { firstName: "Phone", phone: "+14155557999" }),
    );
    await add(phoneOnly.id);
    await t.parley.worker.drain();

    const firstOf = (campaignId: string) =>
      Object.fromEntries(firstMessages(campaignId).map((m) => [m.toId, m.channel]));

    // No campaign channel: each known member on its own; the others skipped with their reason.
    const own = json<{ id: string; outgoing: { channel: string | null } }>(
      await call("POST", "/v1/campaigns", {
        name: "Own channels",
        outgoing: { message: "Hi own", listId: list.id, ratePerMinute: 6000 },
      }),
    );
    expect(own.outgoing.channel).toBeNull();
    await call("POST", `/v1/campaigns/${own.id}/start`);
    await t.parley.worker.drain();
    expect(firstOf(own.id)).toEqual({ "ch-live": "livechat", "ch-wa": "whatsapp" });
    expect(json<Stats>(await call("GET", `/v1/campaigns/${own.id}/stats`))).toMatchObject({
      state: "done",
      members: 5,
      pending: 0,
      sent: 2,
      skipped: 3,
      skippedByReason: { no_custom_channel_id: 1, no_known_channel: 2 },
    });
    const skipped = json<{ data: { contactId: string; reason: string }[] }>(
      await call("GET", `/v1/campaigns/${own.id}/skipped`),
    );
    expect(skipped.data).toHaveLength(3);
    expect(skipped.data.find((s) => s.contactId === phoneOnly.id)?.reason).toBe("no_custom_channel_id");
    expect(skipped.data.filter((s) => s.reason === "no_known_channel")).toHaveLength(2);

    // With a campaign channel: it only stands in where the member has none of its own.
    const sms = json<{ id: string }>(
      await call("POST", "/v1/campaigns", {
        name: "Sms default",
        outgoing: { message: "Hi sms", listId: list.id, channel: "sms", ratePerMinute: 6000 },
      }),
    );
    await call("POST", `/v1/campaigns/${sms.id}/start`);
    await t.parley.worker.drain();
    expect(firstOf(sms.id)).toEqual({
      "ch-live": "livechat",
      "ch-wa": "whatsapp",
      "ch-none": "sms",
      "ch-imp": "sms",
    });
    expect(json<Stats>(await call("GET", `/v1/campaigns/${sms.id}/stats`))).toMatchObject({
      sent: 4,
      skippedByReason: { no_custom_channel_id: 1, no_known_channel: 0 },
    });
  });

  it("accepts a rate up to OUTGOING_MAX_PER_MINUTE (6,000 by default) and refuses more with the ceiling in the message", async () => {
    const acc = await t.account();
    const call = (method: "POST" | "PATCH", url: string, body?: unknown) =>
      callWithKey(t, method, url, acc.apiKey, body);
    const list = json<{ id: string }>(await call("POST", "/v1/lists", { name: "rate" }));
    const made = await call("POST", "/v1/campaigns", {
      name: "Fast",
      outgoing: { message: "Hi", listId: list.id, channel: "sms", ratePerMinute: 6000 },
    });
    expect(made.statusCode, made.body).toBe(201);
    const id = json<{ id: string }>(made).id;
    for (const res of [
      await call("POST", "/v1/campaigns", {
        name: "Too fast",
        outgoing: { message: "Hi", listId: list.id, channel: "sms", ratePerMinute: 6001 },
      }),
      await call("PATCH", `/v1/campaigns/${id}`, {
        outgoing: { message: "Hi", listId: list.id, channel: "sms", ratePerMinute: 6001 },
      }),
    ]) {
      expect(res.statusCode, res.body).toBe(400);
      expect(errorCode(res)).toBe("VALIDATION_ERROR");
      expect(res.body).toMatch(/6000/);
    }
    expect(
      json<{ outgoing: { ratePerMinute: number } }>(
        await callWithKey(t, "GET", `/v1/campaigns/${id}`, acc.apiKey),
      ).outgoing.ratePerMinute,
    ).toBe(6000);
    expect(loadConfig({}).outgoingMaxPerMinute).toBe(6000);
    expect(loadConfig({ OUTGOING_MAX_PER_MINUTE: "20000" }).outgoingMaxPerMinute).toBe(20000);
    for (const bad of ["0", "ten", "1.5", "1000001"])
      expect(() => loadConfig({ OUTGOING_MAX_PER_MINUTE: bad }), bad).toThrow(/OUTGOING_MAX_PER_MINUTE/);
  });

  it("sends at 6,000 a minute: far more in the first second and a half than 600 a minute allowed, never faster than the rate", async () => {
    const acc = await t.account();
    await updateSettings(t.parley.db, acc.accountId, { bot_active: 0 });
    const members = 200;
    const { call, listId } = await world(acc, members, 0, "f");
    const campaign = json<{ id: string }>(
      await call("POST", "/v1/campaigns", {
        name: "Fast",
        outgoing: { message: "Hi fast", listId, channel: "sms", ratePerMinute: 6000 },
      }),
    );
    const started = Date.now();
    await call("POST", `/v1/campaigns/${campaign.id}/start`);
    await t.parley.worker.drain();
    const times = (
      await t.parley.db.kysely
        .selectFrom("messages")
        .select("created_at")
        .where("account_id", "=", acc.accountId)
        .where("campaign_id", "=", campaign.id)
        .orderBy("created_at")
        .execute()
    ).map((r) => Number(r.created_at));
    expect(times).toHaveLength(members);
    const first = times[0] ?? 0;
    // 600 a minute allows at most 16 in 1.5 s (one every 100 ms); 6,000 a minute paces 150.
    const inWindow = times.filter((at) => at - first <= 1500).length;
    console.log(
      `6,000/min: ${members} first messages in ${(times.at(-1) ?? 0) - first} ms (ideal ${((members - 1) * 60_000) / 6000} ms), ${inWindow} in the first 1.5 s, ${Date.now() - started} ms start to drained`,
    );
    expect(inWindow).toBeGreaterThan(40);
    // The rate is a ceiling: the last member (in the last 50 ms slot of 5) is not sent before 195 × 10 ms
    // after the tick began, which was after the start request.
    expect((times.at(-1) ?? 0) - started).toBeGreaterThanOrEqual(((members - 5) * 60_000) / 6000);
  }, 60_000);

  // At 6,000 a minute the three members share one transaction: the one that cannot be paid for must
  // not take the paid one down with it.
  it.each([600, 6000])(
    "costs 1 credit each where metering applies and pauses itself when credits run out (%i a minute)",
    async (rate) => {
      const agency = await newAgency(t);
      const sub = json<{ id: string; apiKey: string; email: string }>(
        await t.inject({
          method: "POST",
          url: "/v1/subaccounts",
          headers: { "x-api-key": agency.apiKey },
          payload: { email: `client-${Date.now()}@example.com` },
        }),
      );
      await t.inject({
        method: "POST",
        url: "/v1/subaccounts/credits",
        headers: { "x-api-key": agency.apiKey },
        payload: { email: sub.email, amount: 1 },
      });
      const subAcc = { accountId: sub.id, apiKey: sub.apiKey } as CreatedAccount;
      // The hellos' bot replies would use the credit first: the sub-account's bot is off for them.
      await updateSettings(t.parley.db, sub.id, { bot_active: 0 });
      const { call, listId } = await world(subAcc, 3, 0, "c");
      const campaign = json<{ id: string }>(
        await call("POST", "/v1/campaigns", {
          name: "Paid",
          outgoing: { message: "Hi from us", listId, channel: "sms", ratePerMinute: rate },
        }),
      );
      await call("POST", `/v1/campaigns/${campaign.id}/start`);
      await t.parley.worker.drain();
      expect(firstMessages(campaign.id)).toHaveLength(1);
      const stats = json<Stats>(await call("GET", `/v1/campaigns/${campaign.id}/stats`));
      expect(stats).toMatchObject({ state: "paused", pausedReason: "out_of_credits", sent: 1, queued: 2 });
      const account = json<{ credits: number }>(await callWithKey(t, "GET", "/v1/account", sub.apiKey));
      expect(account.credits).toBe(0);
    },
  );

  it("refuses a start without an outgoing side, an unknown list, and another account's campaign", async () => {
    const acc = await t.account();
    const call = (method: "GET" | "POST", url: string, body?: unknown) =>
      callWithKey(t, method, url, acc.apiKey, body);
    const plain = json<{ id: string }>(await call("POST", "/v1/campaigns", { name: "No outgoing" }));
    expect(errorCode(await call("POST", `/v1/campaigns/${plain.id}/start`))).toBe("VALIDATION_ERROR");
    const noList = await call("POST", "/v1/campaigns", {
      name: "Bad list",
      outgoing: { message: "Hi", listId: "ls_01aaaaaaaaaaaaaaaaaaaaaaaa", channel: "sms" },
    });
    expect(errorCode(noList)).toBe("LIST_NOT_FOUND");
    const other = await t.account();
    for (const path of ["start", "pause", "stats"]) {
      const res = await callWithKey(
        t,
        path === "stats" ? "GET" : "POST",
        `/v1/campaigns/${plain.id}/${path}`,
        other.apiKey,
      );
      expect(res.statusCode, path).toBe(404);
    }
  });
});

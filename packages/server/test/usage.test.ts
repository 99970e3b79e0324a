// A client's usage for its agency (issue 38): GET /v1/subaccounts/{id}/usage and /usage.csv, and the
// web app's twin. Activity is made through the real API (incoming messages, bot replies, deliveries,
// debits, an API send); the rows of the "three days ago" activity are then moved to that day by direct
// SQL on the test database (the app offers no way to write the past).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { signIn, teammate } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import {
  drainUntil,
  errorCode,
  json,
  newAgency,
  startTestApp,
  type TestApp,
  uniqueEmail,
} from "./helpers.ts";
import { type Receiver, startReceiver } from "./receiver.ts";

const DAY_MS = 86_400_000;
const HEADER =
  "date,messages_in,messages_out,bot_replies,credits_used,deliveries_succeeded,deliveries_failed";

interface UsageDay {
  date: string;
  messagesIn: number;
  messagesOut: number;
  botReplies: number;
  creditsUsed: number;
  deliveriesSucceeded: number;
  deliveriesFailed: number;
}
interface Usage {
  from: string;
  to: string;
  days: UsageDay[];
  totals: Omit<UsageDay, "date"> & { deliverySuccessRate: number | null };
}

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const zero = {
  messagesIn: 0,
  messagesOut: 0,
  botReplies: 0,
  creditsUsed: 0,
  deliveriesSucceeded: 0,
  deliveriesFailed: 0,
};

describe("sub-account usage", () => {
  let t: TestApp;
  let receiver: Receiver;
  let agency: Awaited<ReturnType<typeof newAgency>>;
  let subId: string;
  const today = Math.floor(Date.now() / DAY_MS);
  const threeDaysAgo = dateOf((today - 3) * DAY_MS);
  const todayDate = dateOf(today * DAY_MS);

  const get = (url: string, key: string) => t.inject({ method: "GET", url, headers: { "x-api-key": key } });

  /** Outbound messages of the sub-account with a final delivery state. */
  const settledOutbound = async () => {
    const rows = await t.parley.db.kysely
      .selectFrom("messages")
      .select("status")
      .where("account_id", "=", subId)
      .where("direction", "=", "outbound")
      .execute();
    return rows.filter((r) => r.status === "sent" || r.status === "failed").length;
  };

  beforeAll(async () => {
    t = await startTestApp({ BOT_REPLY_COST: "0.5" });
    receiver = await startReceiver();
    agency = await newAgency(t);
    const created = await t.inject({
      method: "POST",
      url: "/v1/subaccounts",
      headers: { "x-api-key": agency.apiKey },
      payload: { email: uniqueEmail("acme"), name: "ACME" },
    });
    expect(created.statusCode, created.body).toBe(201);
    const sub = json<{ id: string; apiKey: string; email: string }>(created);
    subId = sub.id;
    const grant = await t.inject({
      method: "POST",
      url: "/v1/subaccounts/credits",
      headers: { "x-api-key": agency.apiKey },
      payload: { email: sub.email, amount: 10 },
    });
    expect(grant.statusCode, grant.body).toBe(200);

    // Three days ago: two contacts write, the bot replies to each; no webhook URL, so both fail.
    for (const fromId of ["past-a", "past-b"]) {
      await postIncoming(t, sub.apiKey, { customData: customData({ fromId, body: "Anyone there?" }) });
    }
    await drainUntil(t, async () => (await settledOutbound()) === 2);
    const noon = (today - 3) * DAY_MS + DAY_MS / 2;
    await t.parley.db.kysely
      .updateTable("messages")
      .set({ created_at: noon })
      .where("account_id", "=", subId)
      .execute();
    await t.parley.db.kysely
      .updateTable("credit_transactions")
      .set({ created_at: noon })
      .where("account_id", "=", subId)
      .where("kind", "=", "bot_reply")
      .execute();

    // Today: one contact writes and gets a bot reply, and the client's own system sends one message;
    // both are delivered to the webhook.
    await updateSettings(t.parley.db, subId, { webhook_url: receiver.url });
    await postIncoming(t, sub.apiKey, { customData: customData({ fromId: "today-a", body: "Hello?" }) });
    const sent = await t.inject({
      method: "POST",
      url: `/v1/send_custom_channel_message?apiKey=${sub.apiKey}`,
      payload: { customData: { fromId: "today-b", customChannel: "crm", body: "Your order shipped" } },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    await drainUntil(t, async () => (await settledOutbound()) === 4);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it("answers every day of the last 30 with exact figures, zeros on quiet days, and the totals", async () => {
    const res = await get(`/v1/subaccounts/${subId}/usage`, agency.apiKey);
    expect(res.statusCode, res.body).toBe(200);
    const u = json<Usage>(res);
    expect(u.days).toHaveLength(30);
    expect(u.from).toBe(dateOf((today - 29) * DAY_MS));
    expect(u.to).toBe(todayDate);
    expect(u.days.find((d) => d.date === threeDaysAgo)).toEqual({
      date: threeDaysAgo,
      messagesIn: 2,
      messagesOut: 2,
      botReplies: 2,
      creditsUsed: 1,
      deliveriesSucceeded: 0,
      deliveriesFailed: 2,
    });
    expect(u.days.at(-1)).toEqual({
      date: todayDate,
      messagesIn: 1,
      messagesOut: 2,
      botReplies: 1,
      creditsUsed: 0.5,
      deliveriesSucceeded: 2,
      deliveriesFailed: 0,
    });
    for (const d of u.days.filter((x) => x.date !== threeDaysAgo && x.date !== todayDate)) {
      expect(d).toEqual({ date: d.date, ...zero });
    }
    expect(u.totals).toEqual({
      messagesIn: 3,
      messagesOut: 4,
      botReplies: 3,
      creditsUsed: 1.5,
      deliveriesSucceeded: 2,
      deliveriesFailed: 2,
      deliverySuccessRate: 50,
    });
    const week = json<Usage>(await get(`/v1/subaccounts/${subId}/usage?days=2`, agency.apiKey));
    expect(week.days.map((d) => d.date)).toEqual([dateOf((today - 1) * DAY_MS), todayDate]);
    expect(week.totals.messagesIn).toBe(1);
  });

  it("exports the same figures as spreadsheet-safe CSV, a row a day", async () => {
    const res = await get(`/v1/subaccounts/${subId}/usage.csv?days=5`, agency.apiKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="usage-acc_[^"]+\.csv"$/);
    const lines = res.body.trimEnd().split("\n");
    expect(lines[0]).toBe(HEADER);
    expect(lines).toHaveLength(6);
    expect(lines).toContain(`${threeDaysAgo},2,2,2,1.00,0,2`);
    expect(lines.at(-1)).toBe(`${todayDate},1,2,1,0.50,2,0`);
    expect(lines[1]).toBe(`${dateOf((today - 4) * DAY_MS)},0,0,0,0.00,0,0`);
  });

  it("refuses bad days, another agency's client, a non-agency key and a request without a key", async () => {
    for (const days of ["0", "91", "abc", "1.5"]) {
      for (const path of ["usage", "usage.csv"]) {
        const res = await get(`/v1/subaccounts/${subId}/${path}?days=${days}`, agency.apiKey);
        expect(res.statusCode, `${path} days=${days}`).toBe(400);
        expect(errorCode(res)).toBe("VALIDATION_ERROR");
      }
    }
    const other = await newAgency(t);
    for (const path of ["usage", "usage.csv"]) {
      const res = await get(`/v1/subaccounts/${subId}/${path}`, other.apiKey);
      expect(res.statusCode).toBe(404);
      expect(errorCode(res)).toBe("SUBACCOUNT_NOT_FOUND");
    }
    const standard = await t.account();
    expect(errorCode(await get(`/v1/subaccounts/${subId}/usage`, standard.apiKey))).toBe("NOT_AGENCY");
    expect((await t.inject({ method: "GET", url: `/v1/subaccounts/${subId}/usage` })).statusCode).toBe(401);
  });

  it("serves the agency's owners and admins in the web app, not its agents or another agency", async () => {
    const owner = await signIn(t, agency.email);
    const res = await owner.req({ method: "GET", url: `/app/api/subaccounts/${subId}/usage` });
    expect(res.statusCode, res.body).toBe(200);
    expect(json<Usage>(res).totals).toMatchObject({ messagesIn: 3, creditsUsed: 1.5 });
    const csv = await owner.req({ method: "GET", url: `/app/api/subaccounts/${subId}/usage.csv?days=1` });
    expect(csv.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(csv.body).toBe(`${HEADER}\n${todayDate},1,2,1,0.50,2,0\n`);
    const bad = await owner.req({ method: "GET", url: `/app/api/subaccounts/${subId}/usage?days=0` });
    expect(bad.statusCode).toBe(400);
    const agent = await teammate(t, owner, "agent");
    expect((await agent.req({ method: "GET", url: `/app/api/subaccounts/${subId}/usage` })).statusCode).toBe(
      403,
    );
    const other = await signIn(t, (await newAgency(t)).email);
    const foreign = await other.req({ method: "GET", url: `/app/api/subaccounts/${subId}/usage.csv` });
    expect(foreign.statusCode).toBe(404);
    expect(errorCode(foreign)).toBe("SUBACCOUNT_NOT_FOUND");
  });
});

// Auto-recharge: when a debit takes a sub-account below its threshold, exactly one
// `subaccount.auto_recharge` event goes to the agency (also under concurrent debits), and no other
// until the balance was at or above the threshold again. Delivered signed to a real receiver on
// 127.0.0.1 by the real worker, retried with the same idempotency_key; a receiver that dedupes on it
// and calls the grant endpoint brings the balance back up exactly once.
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountsModule } from "../src/modules/accounts/index.ts";
import { AUTO_RECHARGE_EVENT, debit } from "../src/modules/credits/ledger.ts";
import { balanceOf, json, startTestApp, type TestApp, uniqueEmail } from "./helpers.ts";

type Event = {
  type: string;
  idempotency_key: string;
  sub_account_id: string;
  email: string;
  balance: number;
  threshold: number;
  recharge_amount: number;
  created_at: string;
};

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

const email = uniqueEmail;

/** A real HTTP receiver; `handle` decides the status (and may call Parley first). */
async function startReceiver(handle: (d: Delivery, n: number) => Promise<number> | number) {
  const deliveries: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const d: Delivery = {
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]),
        ),
        body: Buffer.concat(chunks).toString("utf8"),
      };
      deliveries.push(d);
      let status = 500;
      try {
        status = await handle(d, deliveries.length);
      } catch {
        status = 500;
      }
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "try again");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/parley-events`,
    deliveries,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("auto-recharge", () => {
  let t: TestApp;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    t = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "0.05,0.05,0.05,0.05" });
    t.parley.worker.start();
  });
  afterAll(async () => {
    await t.close();
    for (const c of closers) await c();
  });

  async function agency(eventsUrl?: string) {
    const e = email("agency");
    const acc = await t.account({ email: e, kind: "agency" });
    if (eventsUrl) {
      await accountsModule.commands!["account set"]!.run(
        { email: e, "events-webhook-url": eventsUrl },
        t.parley.ctx,
      );
    }
    return { email: e, ...acc };
  }

  /** A sub-account with a balance and auto-recharge set through the API. */
  async function sub(
    agencyKey: string,
    agencyId: string,
    credits: number,
    threshold = 5,
    rechargeAmount = 20,
  ) {
    const e = email("sub");
    const acc = await t.account({ email: e, kind: "subaccount", parentAccountId: agencyId, credits });
    const res = await t.inject({
      method: "PUT",
      url: `/v1/subaccounts/${acc.accountId}/auto-recharge`,
      headers: { "x-api-key": agencyKey },
      payload: { threshold, rechargeAmount },
    });
    expect(res.statusCode).toBe(200);
    return { email: e, ...acc };
  }

  /** A debit as the bot makes it: ledger.debit in its own transaction. */
  function spend(accountId: string, credits: number) {
    return t.parley.db.kysely.transaction().execute((trx) =>
      debit(trx, accountId, {
        amount: Math.round(credits * 100),
        kind: "bot_reply",
        messageId: `msg_${randomBytes(8).toString("hex")}`,
      }),
    );
  }

  function grant(agencyKey: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    return t.inject({
      method: "POST",
      url: "/v1/subaccounts/credits",
      headers: { "x-api-key": agencyKey, ...headers },
      payload: body,
    });
  }

  async function events(agencyId: string): Promise<Event[]> {
    const rows = await t.parley.db.kysely
      .selectFrom("events")
      .selectAll()
      .where("account_id", "=", agencyId)
      .where("type", "=", AUTO_RECHARGE_EVENT)
      .orderBy("id")
      .execute();
    return rows.map((r) => JSON.parse(r.payload) as Event);
  }

  const balance = (accountId: string) => balanceOf(t, accountId);

  describe("when the event fires", () => {
    it("fires once when a debit takes the balance below the threshold, and again only after recovery", async () => {
      const a = await agency();
      const s = await sub(a.apiKey, a.accountId, 10, 5, 20);

      await spend(s.accountId, 3); // 7: above
      await spend(s.accountId, 2); // 5: at the threshold is not below
      expect(await events(a.accountId)).toHaveLength(0);

      await spend(s.accountId, 1); // 4: below → the event
      const [first, ...rest] = await events(a.accountId);
      expect(rest).toHaveLength(0);
      expect(first).toEqual({
        type: "subaccount.auto_recharge",
        idempotency_key: expect.any(String),
        sub_account_id: s.accountId,
        email: s.email,
        balance: 4,
        threshold: 5,
        recharge_amount: 20,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(Object.keys(first!)).toEqual([
        "type",
        "idempotency_key",
        "sub_account_id",
        "email",
        "balance",
        "threshold",
        "recharge_amount",
        "created_at",
      ]);
      // The sub-account itself gets no event: it goes to the agency.
      expect(await events(s.accountId)).toHaveLength(0);

      await spend(s.accountId, 1); // 3: still below, no new event
      expect((await grant(a.apiKey, { email: s.email, amount: 1.5 })).statusCode).toBe(200); // 4.5: still below
      await spend(s.accountId, 0.5); // 4
      expect(await events(a.accountId)).toHaveLength(1);

      expect((await grant(a.apiKey, { email: s.email, amount: 1 })).statusCode).toBe(200); // 5: at → re-armed
      await spend(s.accountId, 0.01); // 4.99: a new crossing
      const all = await events(a.accountId);
      expect(all).toHaveLength(2);
      expect(all[1]!.balance).toBe(4.99);
      expect(all[1]!.idempotency_key).not.toBe(all[0]!.idempotency_key);
    });

    it("fires exactly one event for many concurrent debits crossing the threshold", async () => {
      const a = await agency();
      const s = await sub(a.apiKey, a.accountId, 30, 20, 50);
      const results = await Promise.all(Array.from({ length: 40 }, () => spend(s.accountId, 1)));
      expect(results.filter((r) => r !== null)).toHaveLength(30);
      expect(await balance(s.accountId)).toBe(0);
      const ev = await events(a.accountId);
      expect(ev).toHaveLength(1);
      expect(ev[0]!.balance).toBeLessThan(20);
    });

    it("fires for a sub-account that is already below the threshold when auto-recharge is turned on", async () => {
      const a = await agency();
      const s = await sub(a.apiKey, a.accountId, 3, 5, 20);
      await spend(s.accountId, 1);
      await spend(s.accountId, 1);
      const ev = await events(a.accountId);
      expect(ev).toHaveLength(1);
      expect(ev[0]!.balance).toBe(2);
    });

    it("does not fire when auto-recharge is off, or for a failed debit", async () => {
      const a = await agency();
      const s = await sub(a.apiKey, a.accountId, 6, 5, 20);
      const off = await t.inject({
        method: "DELETE",
        url: `/v1/subaccounts/${s.accountId}/auto-recharge`,
        headers: { "x-api-key": a.apiKey },
      });
      expect(off.statusCode).toBe(200);
      await spend(s.accountId, 4);
      expect(await events(a.accountId)).toHaveLength(0);

      const s2 = await sub(a.apiKey, a.accountId, 6, 5, 20);
      expect(await spend(s2.accountId, 7)).toBeNull(); // refused: nothing taken, nothing fired
      expect(await balance(s2.accountId)).toBe(600);
      expect(await events(a.accountId)).toHaveLength(0);
    });
  });

  describe("delivery to the agency", () => {
    it("delivers the event signed, with webhook-id = event id, and retries it with the same idempotency_key", async () => {
      const rx = await startReceiver((_d, n) => (n === 1 ? 500 : 200));
      closers.push(rx.close);
      const a = await agency(rx.url);
      const s = await sub(a.apiKey, a.accountId, 10, 5, 25);
      await spend(s.accountId, 6);

      await waitFor(() => rx.deliveries.length >= 2, "the retried delivery");
      const [d1, d2] = rx.deliveries;
      const eventRow = await t.parley.db.kysely
        .selectFrom("events")
        .selectAll()
        .where("account_id", "=", a.accountId)
        .executeTakeFirstOrThrow();
      for (const d of [d1!, d2!]) {
        expect(d.headers["webhook-id"]).toBe(eventRow.id);
        const verified = new Webhook(a.webhookSecret).verify(d.body, d.headers) as Event;
        expect(verified).toMatchObject({
          type: "subaccount.auto_recharge",
          sub_account_id: s.accountId,
          email: s.email,
          balance: 4,
          threshold: 5,
          recharge_amount: 25,
        });
      }
      expect(d2!.body).toBe(d1!.body);
      expect(JSON.parse(d2!.body).idempotency_key).toBe(JSON.parse(d1!.body).idempotency_key);
      await waitFor(
        async () =>
          (
            await t.parley.db.kysely
              .selectFrom("events")
              .select("status")
              .where("id", "=", eventRow.id)
              .executeTakeFirstOrThrow()
          ).status === "sent",
        "the event to be marked sent",
      );
      // Delivered once successfully: no third delivery arrives.
      await new Promise((r) => setTimeout(r, 300));
      expect(rx.deliveries).toHaveLength(2);
    });

    it("a receiver that dedupes on idempotency_key and calls the grant endpoint recharges exactly once per crossing", async () => {
      const seen = new Set<string>();
      let grantsMade = 0;
      let agencyKey = "";
      // Processes the first delivery of an event, then answers 500 (as if it crashed before answering),
      // so Parley delivers the same event again; the repeat is recognised and not granted again.
      const rx = await startReceiver(async (d) => {
        const event = JSON.parse(d.body) as Event;
        if (event.type !== "subaccount.auto_recharge") return 400;
        if (seen.has(event.idempotency_key)) return 200;
        seen.add(event.idempotency_key);
        const res = await grant(agencyKey, {
          email: event.email,
          amount: event.recharge_amount,
          description: `Auto-recharge ${event.idempotency_key}`,
        });
        if (res.statusCode !== 200) throw new Error(`grant failed: ${res.body}`);
        grantsMade++;
        return 500;
      });
      closers.push(rx.close);
      const a = await agency(rx.url);
      agencyKey = a.apiKey;
      const s = await sub(a.apiKey, a.accountId, 10, 5, 20);

      await spend(s.accountId, 7); // 3 → event → +20 → 23
      await waitFor(() => rx.deliveries.length >= 2, "the repeated delivery");
      expect(rx.deliveries[1]!.body).toBe(rx.deliveries[0]!.body);
      expect(grantsMade).toBe(1);
      expect(await balance(s.accountId)).toBe(2300);

      // Back above the threshold, so the next crossing is a new event with a new key.
      await spend(s.accountId, 19); // 4 → event → +20 → 24
      await waitFor(() => rx.deliveries.length >= 4, "the second event's two deliveries");
      expect(grantsMade).toBe(2);
      expect(seen.size).toBe(2);
      await new Promise((r) => setTimeout(r, 300));
      expect(rx.deliveries).toHaveLength(4);
      expect(await balance(s.accountId)).toBe(2400);

      const history = await t.parley.db.kysely
        .selectFrom("credit_transactions")
        .selectAll()
        .where("account_id", "=", s.accountId)
        .orderBy("id")
        .execute();
      expect(history.filter((h) => h.kind === "grant")).toHaveLength(2);
      expect(history.reduce((sum, h) => sum + h.amount, 0)).toBe(2400);
      const listed = await t.inject({
        method: "GET",
        url: `/v1/subaccounts/${s.accountId}/credits/transactions`,
        headers: { "x-api-key": a.apiKey },
      });
      const grants = json<{ data: Array<{ kind: string; description: string }> }>(listed).data.filter(
        (x) => x.kind === "grant",
      );
      expect(grants.map((g) => g.description).sort()).toEqual(
        [...seen].map((k) => `Auto-recharge ${k}`).sort(),
      );
    });

    it("through the bot: replies racing with grants and recharges keep the balance equal to the history", async () => {
      const seen = new Set<string>();
      let agencyKey = "";
      const rx = await startReceiver(async (d, n) => {
        const event = JSON.parse(d.body) as Event;
        if (!seen.has(event.idempotency_key)) {
          seen.add(event.idempotency_key);
          const res = await grant(agencyKey, {
            email: event.email,
            amount: event.recharge_amount,
            description: "auto-recharge",
          });
          if (res.statusCode !== 200) throw new Error(res.body);
        }
        return n % 2 === 1 ? 500 : 200; // every other delivery fails, so events get repeated
      });
      closers.push(rx.close);
      const a = await agency(rx.url);
      agencyKey = a.apiKey;
      const s = await sub(a.apiKey, a.accountId, 10, 10, 10);

      // Six inbound messages (each a 1-credit bot reply) and five manual grants, all at once.
      const inbound = Array.from({ length: 6 }, (_, i) =>
        t.inject({
          method: "POST",
          url: `/v1/incoming_custom_channel_message?apiKey=${s.apiKey}`,
          payload: {
            customData: {
              messageSid: `sid-race-${i}`,
              fromId: `user-${i}`,
              toId: "shop",
              body: "Hello there",
            },
          },
        }),
      );
      const grants = Array.from({ length: 5 }, () => grant(a.apiKey, { email: s.email, amount: 1 }));
      const answers = await Promise.all([...inbound, ...grants]);
      expect(answers.map((r) => r.statusCode)).toEqual(Array(11).fill(200));

      const history = () =>
        t.parley.db.kysely
          .selectFrom("credit_transactions")
          .selectAll()
          .where("account_id", "=", s.accountId)
          .execute();
      const eventRows = () =>
        t.parley.db.kysely
          .selectFrom("events")
          .select("status")
          .where("account_id", "=", a.accountId)
          .execute();
      await waitFor(async () => {
        const h = await history();
        const ev = await eventRows();
        const recharges = h.filter((x) => x.description === "auto-recharge").length;
        return (
          h.filter((x) => x.kind === "bot_reply").length === 6 &&
          ev.length > 0 &&
          ev.every((e) => e.status === "sent") &&
          recharges === ev.length
        );
      }, "six bot replies and every recharge");

      const h = await history();
      const events = (await eventRows()).length;
      expect(events).toBeGreaterThanOrEqual(1);
      expect(seen.size).toBe(events);
      const final = await balance(s.accountId);
      expect(final).toBe(1000 + 5 * 100 + events * 1000 - 6 * 100);
      expect(h.reduce((sum, x) => sum + x.amount, 0)).toBe(final);
    });

    it("a receiver without its own store can pass idempotency_key as the Idempotency-Key header", async () => {
      let agencyKey = "";
      let calls = 0;
      // Calls the grant endpoint on every delivery; the header makes the repeat a replay.
      const rx = await startReceiver(async (d, n) => {
        const event = JSON.parse(d.body) as Event;
        const res = await grant(
          agencyKey,
          { email: event.email, amount: event.recharge_amount },
          { "idempotency-key": event.idempotency_key },
        );
        calls++;
        if (res.statusCode !== 200) throw new Error(res.body);
        return n === 1 ? 503 : 200;
      });
      closers.push(rx.close);
      const a = await agency(rx.url);
      agencyKey = a.apiKey;
      const s = await sub(a.apiKey, a.accountId, 10, 5, 20);
      await spend(s.accountId, 8); // 2 → event → +20 once → 22
      await waitFor(() => rx.deliveries.length >= 2, "the repeated delivery");
      await waitFor(() => calls >= 2, "the second grant call");
      expect(await balance(s.accountId)).toBe(2200);
    });
  });
});

// POST /v1/subaccounts/credits (header-only auth, agency rules, amounts, Idempotency-Key, concurrency),
// the credit history endpoints and `parley credits add`, through the real server and database.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { creditsModule } from "../src/modules/credits/index.ts";
import { debit } from "../src/modules/credits/ledger.ts";
import { balanceOf, json, newAgency, type Page, startTestApp, type TestApp, uniqueEmail } from "./helpers.ts";
import { cliEnv, oneJsonLine, runCli } from "./process-helpers.ts";

type Err = { error: { code: string; message: string } };
type Grant = { success: boolean; sub_account_id: string; credits_added: number; new_balance: number };
type Tx = {
  id: string;
  amount: number;
  balanceAfter: number;
  description: string | null;
  kind: string;
  messageId: string | null;
  createdAt: string;
};
const email = uniqueEmail;

describe("credits", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const agency = () => newAgency(t);

  async function subOf(agencyId: string, credits = 0) {
    const e = email("sub");
    return {
      email: e,
      ...(await t.account({ email: e, kind: "subaccount", parentAccountId: agencyId, credits })),
    };
  }

  function grant(key: string | null, payload: unknown, headers: Record<string, string> = {}) {
    return t.inject({
      method: "POST",
      url: "/v1/subaccounts/credits",
      headers: { ...(key ? { "x-api-key": key } : {}), ...headers },
      payload: payload as Record<string, unknown>,
    });
  }

  const balance = (accountId: string) => balanceOf(t, accountId);

  async function history(accountId: string) {
    return t.parley.db.kysely
      .selectFrom("credit_transactions")
      .selectAll()
      .where("account_id", "=", accountId)
      .orderBy("id")
      .execute();
  }

  async function historySum(accountId: string): Promise<number> {
    return (await history(accountId)).reduce((s, r) => s + r.amount, 0);
  }

  describe("POST /v1/subaccounts/credits", () => {
    it("grants credits: 200 with numbers, balance and a grant history row in hundredths", async () => {
      const a = await agency();
      const s = await subOf(a.accountId, 2.5);
      const res = await grant(a.apiKey, { email: s.email, amount: 10.25, description: "March top-up" });
      expect(res.statusCode).toBe(200);
      expect(json(res)).toEqual({
        success: true,
        sub_account_id: s.accountId,
        credits_added: 10.25,
        new_balance: 12.75,
      });
      expect(await balance(s.accountId)).toBe(1275);
      const rows = await history(s.accountId);
      const last = rows[rows.length - 1]!;
      expect(last).toMatchObject({
        amount: 1025,
        balance_after: 1275,
        kind: "grant",
        description: "March top-up",
      });
      expect(await historySum(s.accountId)).toBe(1275);
    });

    it("finds the sub-account whatever the case of the e-mail, and grants without a description", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const res = await grant(a.apiKey, { email: `  ${s.email.toUpperCase()} `, amount: 0.07 });
      expect(res.statusCode).toBe(200);
      expect(json<Grant>(res).new_balance).toBe(0.07);
      expect(await balance(s.accountId)).toBe(7);
      expect((await history(s.accountId))[0]!.description).toBeNull();
    });

    it("accepts the largest amount, 1,000,000", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const res = await grant(a.apiKey, { email: s.email, amount: 1_000_000 });
      expect(res.statusCode).toBe(200);
      expect(json<Grant>(res).new_balance).toBe(1_000_000);
      expect(await balance(s.accountId)).toBe(100_000_000);
    });

    it("is authenticated only by the x-api-key header: a query apiKey alone gives 401 and grants nothing", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const res = await t.inject({
        method: "POST",
        url: `/v1/subaccounts/credits?apiKey=${a.apiKey}`,
        payload: { email: s.email, amount: 5 },
      });
      expect(res.statusCode).toBe(401);
      expect(json<Err>(res).error.code).toBe("UNAUTHORIZED");
      expect(json<Err>(res).error.message).toMatch(/x-api-key/);
      expect(await balance(s.accountId)).toBe(0);

      const wrong = await grant("pk_live_00000000000000000000000000000000", { email: s.email, amount: 5 });
      expect(wrong.statusCode).toBe(401);
      const none = await grant(null, { email: s.email, amount: 5 });
      expect(none.statusCode).toBe(401);
      expect(await balance(s.accountId)).toBe(0);
    });

    it("refuses non-agency callers with 403 NOT_AGENCY: a standard account and the sub-account itself", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const standard = await t.account();
      for (const key of [standard.apiKey, s.apiKey]) {
        const res = await grant(key, { email: s.email, amount: 5 });
        expect(res.statusCode).toBe(403);
        expect(json<Err>(res).error.code).toBe("NOT_AGENCY");
        // The agency check comes before body checks.
        const bad = await grant(key, { email: s.email, amount: "5" });
        expect(bad.statusCode).toBe(403);
      }
      expect(await balance(s.accountId)).toBe(0);
    });

    it("answers 404 SUBACCOUNT_NOT_FOUND, identically, for another agency's sub-account and an unknown e-mail", async () => {
      const a = await agency();
      const other = await agency();
      const theirs = await subOf(other.accountId, 3);
      const standaloneEmail = email("standalone");
      await t.account({ email: standaloneEmail });
      const foreign = await grant(a.apiKey, { email: theirs.email, amount: 5 });
      const unknown = await grant(a.apiKey, { email: email("nobody"), amount: 5 });
      const notSub = await grant(a.apiKey, { email: standaloneEmail, amount: 5 });
      const itself = await grant(a.apiKey, { email: a.email, amount: 5 });
      for (const res of [foreign, unknown, notSub, itself]) {
        expect(res.statusCode).toBe(404);
        expect(json<Err>(res).error.code).toBe("SUBACCOUNT_NOT_FOUND");
      }
      const strip = (r: typeof foreign) => ({
        code: json<Err>(r).error.code,
        message: json<Err>(r).error.message,
      });
      expect(strip(foreign)).toEqual(strip(unknown));
      expect(strip(notSub)).toEqual(strip(unknown));
      expect(await balance(theirs.accountId)).toBe(300);
    });

    it.each([
      ["a string", "10"],
      ["zero", 0],
      ["a negative number", -1],
      ["more than 1,000,000", 1_000_000.01],
      ["three decimals", 1.234],
      ["a tiny fraction", 0.001],
      ["null", null],
      ["a boolean", true],
      ["an object", { value: 10 }],
      ["a huge number", 1e300],
    ])("rejects an amount that is %s with 400 INVALID_AMOUNT", async (_label, amount) => {
      const a = await agency();
      const s = await subOf(a.accountId, 1);
      const res = await grant(a.apiKey, { email: s.email, amount });
      expect(res.statusCode).toBe(400);
      expect(json<Err>(res).error.code).toBe("INVALID_AMOUNT");
      expect(await balance(s.accountId)).toBe(100);
      expect(await history(s.accountId)).toHaveLength(1);
    });

    it("rejects a missing amount with 400 INVALID_AMOUNT", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const res = await grant(a.apiKey, { email: s.email });
      expect(res.statusCode).toBe(400);
      expect(json<Err>(res).error).toMatchObject({ code: "INVALID_AMOUNT", message: "amount is required" });
    });

    it("checks the other fields: description length, e-mail presence and format, body shape", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const long = await grant(a.apiKey, { email: s.email, amount: 1, description: "x".repeat(501) });
      expect(long.statusCode).toBe(400);
      expect(json<Err>(long).error.code).toBe("VALIDATION_ERROR");
      expect(json<Err>(long).error.message).toMatch(/description/);
      const notText = await grant(a.apiKey, { email: s.email, amount: 1, description: 42 });
      expect(json<Err>(notText).error.code).toBe("VALIDATION_ERROR");
      const noEmail = await grant(a.apiKey, { amount: 1 });
      expect(noEmail.statusCode).toBe(400);
      expect(json<Err>(noEmail).error).toMatchObject({
        code: "VALIDATION_ERROR",
        message: "email is required",
      });
      const badEmail = await grant(a.apiKey, { email: "not-an-email", amount: 1 });
      expect(json<Err>(badEmail).error.code).toBe("INVALID_EMAIL");
      const notJson = await t.inject({
        method: "POST",
        url: "/v1/subaccounts/credits",
        headers: { "x-api-key": a.apiKey, "content-type": "application/json" },
        payload: "{nope",
      });
      expect(notJson.statusCode).toBe(400);
      expect(json<Err>(notJson).error.code).toBe("INVALID_JSON");
      const array = await grant(a.apiKey, [{ email: s.email, amount: 1 }]);
      expect(array.statusCode).toBe(400);
      expect(await balance(s.accountId)).toBe(0);

      const exactly500 = await grant(a.apiKey, { email: s.email, amount: 1, description: "y".repeat(500) });
      expect(exactly500.statusCode).toBe(200);
      expect(await balance(s.accountId)).toBe(100);
    });

    it("adds exactly 50 credits for 50 concurrent grants of 1", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          grant(a.apiKey, { email: s.email, amount: 1, description: `g${i}` }),
        ),
      );
      expect(answers.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
      expect(await balance(s.accountId)).toBe(5000);
      const rows = await history(s.accountId);
      expect(rows).toHaveLength(50);
      // Every grant saw a different balance: no two read the same "before".
      expect(new Set(answers.map((r) => json<Grant>(r).new_balance)).size).toBe(50);
      expect(rows.map((r) => r.balance_after).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 50 }, (_, i) => (i + 1) * 100),
      );
    });

    it("keeps the balance equal to the sum of the history when grants race with bot-style debits", async () => {
      const a = await agency();
      const s = await subOf(a.accountId, 20);
      const db = t.parley.db.kysely;
      // Debits as the bot makes them: ledger.debit in a transaction, one per reply message.
      const debits = Array.from({ length: 60 }, (_, i) =>
        db
          .transaction()
          .execute((trx) =>
            debit(trx, s.accountId, { amount: 100, kind: "bot_reply", messageId: `msg_race_${i}` }),
          ),
      );
      const grants = Array.from({ length: 30 }, () => grant(a.apiKey, { email: s.email, amount: 1.5 }));
      const [debitResults, grantAnswers] = await Promise.all([Promise.all(debits), Promise.all(grants)]);
      expect(grantAnswers.every((r) => r.statusCode === 200)).toBe(true);
      const taken = debitResults.filter((r) => r !== null).length;
      const final = await balance(s.accountId);
      expect(final).toBe(2000 + 30 * 150 - taken * 100);
      expect(final).toBeGreaterThanOrEqual(0);
      expect(await historySum(s.accountId)).toBe(final);
      expect((await history(s.accountId)).filter((r) => r.kind === "bot_reply")).toHaveLength(taken);
    });
  });

  describe("Idempotency-Key", () => {
    it("replays the stored answer for the same key and body, without granting again", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const key = `recharge-${randomBytes(6).toString("hex")}`;
      const body = { email: s.email, amount: 25, description: "auto-recharge" };
      const first = await grant(a.apiKey, body, { "idempotency-key": key });
      expect(first.statusCode).toBe(200);
      expect(first.headers["idempotent-replayed"]).toBeUndefined();
      // A later grant without the key moves the balance; the replay still shows the first answer.
      await grant(a.apiKey, { email: s.email, amount: 1 });
      const again = await grant(a.apiKey, body, { "idempotency-key": key });
      expect(again.statusCode).toBe(200);
      expect(again.body).toBe(first.body);
      expect(again.headers["idempotent-replayed"]).toBe("true");
      expect(json<Grant>(again).new_balance).toBe(25);
      expect(await balance(s.accountId)).toBe(2600);
      expect(await history(s.accountId)).toHaveLength(2);
    });

    it("answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body, and grants nothing", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const key = randomBytes(8).toString("hex");
      expect(
        (await grant(a.apiKey, { email: s.email, amount: 5 }, { "idempotency-key": key })).statusCode,
      ).toBe(200);
      for (const other of [
        { email: s.email, amount: 6 },
        { email: s.email, amount: 5, description: "different" },
      ]) {
        const res = await grant(a.apiKey, other, { "idempotency-key": key });
        expect(res.statusCode).toBe(422);
        expect(json<Err>(res).error.code).toBe("IDEMPOTENCY_KEY_REUSED");
      }
      expect(await balance(s.accountId)).toBe(500);
    });

    it("grants once when the same key arrives many times at once", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const key = randomBytes(8).toString("hex");
      const answers = await Promise.all(
        Array.from({ length: 12 }, () =>
          grant(a.apiKey, { email: s.email, amount: 7 }, { "idempotency-key": key }),
        ),
      );
      expect(answers.map((r) => r.statusCode)).toEqual(Array(12).fill(200));
      expect(new Set(answers.map((r) => r.body)).size).toBe(1);
      expect(answers.filter((r) => r.headers["idempotent-replayed"] === "true")).toHaveLength(11);
      expect(await balance(s.accountId)).toBe(700);
      expect(await history(s.accountId)).toHaveLength(1);
    });

    it("scopes keys per agency and does not store failed requests", async () => {
      const a = await agency();
      const b = await agency();
      const sa = await subOf(a.accountId);
      const sb = await subOf(b.accountId);
      const key = "shared-key-1";
      expect(
        (await grant(a.apiKey, { email: sa.email, amount: 1 }, { "idempotency-key": key })).statusCode,
      ).toBe(200);
      expect(
        (await grant(b.apiKey, { email: sb.email, amount: 2 }, { "idempotency-key": key })).statusCode,
      ).toBe(200);
      expect(await balance(sa.accountId)).toBe(100);
      expect(await balance(sb.accountId)).toBe(200);

      // A 404 is not stored: the same key works once the e-mail is right.
      const lateKey = "late-key-1";
      const miss = await grant(
        a.apiKey,
        { email: email("nobody"), amount: 1 },
        { "idempotency-key": lateKey },
      );
      expect(miss.statusCode).toBe(404);
      const ok = await grant(a.apiKey, { email: sa.email, amount: 1 }, { "idempotency-key": lateKey });
      expect(ok.statusCode).toBe(200);
      expect(await balance(sa.accountId)).toBe(200);
    });

    it("forgets keys after 24 hours", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const key = randomBytes(8).toString("hex");
      const body = { email: s.email, amount: 3 };
      expect((await grant(a.apiKey, body, { "idempotency-key": key })).statusCode).toBe(200);
      await t.parley.db.kysely
        .updateTable("idempotency_keys")
        .set({ created_at: Date.now() - 24 * 60 * 60 * 1000 - 1000 })
        .where("account_id", "=", a.accountId)
        .where("key", "=", key)
        .execute();
      const again = await grant(a.apiKey, body, { "idempotency-key": key });
      expect(again.statusCode).toBe(200);
      expect(again.headers["idempotent-replayed"]).toBeUndefined();
      expect(await balance(s.accountId)).toBe(600);
      // The fresh row replaced the expired one.
      const rows = await t.parley.db.kysely
        .selectFrom("idempotency_keys")
        .selectAll()
        .where("account_id", "=", a.accountId)
        .execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.created_at).toBeGreaterThan(Date.now() - 60_000);
    });

    it("purges the agency's other expired keys after a keyed grant", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const old = Date.now() - 25 * 60 * 60 * 1000;
      await t.parley.db.kysely
        .insertInto("idempotency_keys")
        .values(
          ["old-1", "old-2"].map((key) => ({
            account_id: a.accountId,
            scope: "POST /v1/subaccounts/credits",
            key,
            request_hash: "x",
            status_code: 200,
            response: "{}",
            created_at: old,
          })),
        )
        .execute();
      expect(
        (await grant(a.apiKey, { email: s.email, amount: 1 }, { "idempotency-key": "fresh" })).statusCode,
      ).toBe(200);
      const keys = await t.parley.db.kysely
        .selectFrom("idempotency_keys")
        .select("key")
        .where("account_id", "=", a.accountId)
        .execute();
      expect(keys.map((k) => k.key)).toEqual(["fresh"]);
    });

    it("rejects a key longer than 255 characters with 400", async () => {
      const a = await agency();
      const s = await subOf(a.accountId);
      const res = await grant(
        a.apiKey,
        { email: s.email, amount: 1 },
        { "idempotency-key": "k".repeat(256) },
      );
      expect(res.statusCode).toBe(400);
      expect(json<Err>(res).error.code).toBe("VALIDATION_ERROR");
      expect(await balance(s.accountId)).toBe(0);
    });
  });

  describe("history", () => {
    it("lists the caller's own transactions newest first, with cursor pagination", async () => {
      const a = await agency();
      const s = await subOf(a.accountId, 5);
      for (const amount of [1, 2, 3]) {
        expect(
          (await grant(a.apiKey, { email: s.email, amount, description: `d${amount}` })).statusCode,
        ).toBe(200);
      }
      await t.parley.db.kysely
        .transaction()
        .execute((trx) =>
          debit(trx, s.accountId, { amount: 50, kind: "bot_reply", messageId: "msg_hist_1" }),
        );

      // The sub-account reads its own history with its own key (query key works here).
      const all = await t.inject({ method: "GET", url: `/v1/credits/transactions?apiKey=${s.apiKey}` });
      expect(all.statusCode).toBe(200);
      const page = json<Page<Tx>>(all);
      expect(page.data.map((x) => [x.kind, x.amount, x.balanceAfter])).toEqual([
        ["bot_reply", -0.5, 10.5],
        ["grant", 3, 11],
        ["grant", 2, 8],
        ["grant", 1, 6],
        ["adjustment", 5, 5],
      ]);
      expect(page.data[0]!.messageId).toBe("msg_hist_1");
      expect(page.data[1]!.description).toBe("d3");
      expect(page.data[0]!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(page.hasMore).toBe(false);

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await t.inject({
          method: "GET",
          url: `/v1/credits/transactions?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
          headers: { "x-api-key": s.apiKey },
        });
        const p = json<Page<Tx>>(res);
        expect(p.data.length).toBeLessThanOrEqual(2);
        seen.push(...p.data.map((x) => x.id));
        cursor = p.nextCursor;
      } while (cursor);
      expect(seen).toEqual(page.data.map((x) => x.id));

      const bad = await t.inject({
        method: "GET",
        url: `/v1/credits/transactions?cursor=zzz&apiKey=${s.apiKey}`,
      });
      expect(bad.statusCode).toBe(400);
      expect(json<Err>(bad).error.code).toBe("INVALID_CURSOR");

      // The agency's own history is its own (empty here), not its sub-accounts'.
      const mine = await t.inject({ method: "GET", url: `/v1/credits/transactions?apiKey=${a.apiKey}` });
      expect(json<Page<Tx>>(mine).data).toEqual([]);
    });

    it("lets an agency read a sub-account's history, and nobody else", async () => {
      const a = await agency();
      const other = await agency();
      const s = await subOf(a.accountId);
      await grant(a.apiKey, { email: s.email, amount: 4, description: "welcome" });
      const url = `/v1/subaccounts/${s.accountId}/credits/transactions`;
      const res = await t.inject({ method: "GET", url, headers: { "x-api-key": a.apiKey } });
      expect(res.statusCode).toBe(200);
      expect(json<Page<Tx>>(res).data).toMatchObject([
        { amount: 4, balanceAfter: 4, kind: "grant", description: "welcome" },
      ]);

      const foreign = await t.inject({ method: "GET", url, headers: { "x-api-key": other.apiKey } });
      expect(foreign.statusCode).toBe(404);
      expect(json<Err>(foreign).error.code).toBe("SUBACCOUNT_NOT_FOUND");
      const self = await t.inject({ method: "GET", url, headers: { "x-api-key": s.apiKey } });
      expect(self.statusCode).toBe(403);
      expect(json<Err>(self).error.code).toBe("NOT_AGENCY");
      const unknown = await t.inject({
        method: "GET",
        url: "/v1/subaccounts/acc_01aaaaaaaaaaaaaaaaaaaaaaaa/credits/transactions",
        headers: { "x-api-key": a.apiKey },
      });
      expect(unknown.statusCode).toBe(404);
    });
  });

  describe("parley credits add", () => {
    it("adds and takes credits as operator adjustments", async () => {
      const a = await agency();
      const s = await subOf(a.accountId, 1);
      const env = cliEnv(t.database);
      const added = oneJsonLine(
        await runCli(
          ["credits", "add", "--email", s.email, "--amount", "12.5", "--description", "goodwill"],
          env,
        ),
      );
      expect(added).toMatchObject({ accountId: s.accountId, credits_added: 12.5, new_balance: 13.5 });
      const cmd = creditsModule.commands!["credits add"]!;
      const taken = await cmd.run({ email: s.email, amount: "-3.25" }, t.parley.ctx);
      expect(taken).toMatchObject({ credits_added: -3.25, new_balance: 10.25 });
      expect(await balance(s.accountId)).toBe(1025);
      const rows = await history(s.accountId);
      expect(rows.slice(1).map((r) => [r.kind, r.amount, r.description])).toEqual([
        ["adjustment", 1250, "goodwill"],
        ["adjustment", -325, null],
      ]);

      // A failing command exits non-zero with the reason on stderr.
      const tooMuch = await runCli(["credits", "add", "--email", s.email, "--amount=-100"], env);
      expect(tooMuch.code).not.toBe(0);
      expect(tooMuch.stderr).toMatch(/does not cover/);
      await expect(cmd.run({ email: s.email, amount: "1.234" }, t.parley.ctx)).rejects.toThrow(
        /two decimals/,
      );
      await expect(cmd.run({ email: email("nobody"), amount: "1" }, t.parley.ctx)).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
      expect(await balance(s.accountId)).toBe(1025);
    }, 60_000);

    it("rejects zero, amounts over 1,000,000 and a missing amount", async () => {
      const acc = { email: email("std") };
      await t.account(acc);
      const cmd = creditsModule.commands!["credits add"]!;
      for (const amount of ["0", "1000000.01", "abc", "1e3", undefined]) {
        await expect(cmd.run({ email: acc.email, amount }, t.parley.ctx)).rejects.toMatchObject({
          code: "INVALID_AMOUNT",
        });
      }
      expect(await cmd.run({ email: acc.email, amount: "1000000" }, t.parley.ctx)).toMatchObject({
        new_balance: 1_000_000,
      });
    });
  });
});

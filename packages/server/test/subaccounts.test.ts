import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountsModule } from "../src/modules/accounts/index.ts";
import { json, newAgency, type Page, startTestApp, type TestApp, uniqueEmail } from "./helpers.ts";
import { cliEnv, oneJsonLine, runCli } from "./process-helpers.ts";

type Err = { error: { code: string; message: string } };
type Sub = {
  id: string;
  email: string;
  name: string;
  credits: number;
  autoRecharge: { threshold: number; rechargeAmount: number } | null;
  createdAt: string;
  apiKey?: string;
};
const email = uniqueEmail;

describe("sub-accounts", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const agency = () => newAgency(t);

  function call(
    method: "GET" | "POST" | "PUT" | "DELETE",
    url: string,
    key: string | null,
    payload?: unknown,
  ) {
    return t.inject({
      method,
      url,
      headers: key ? { "x-api-key": key } : {},
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    });
  }

  async function armed(id: string) {
    const row = await t.parley.db.kysely
      .selectFrom("accounts")
      .select(["auto_recharge_armed", "auto_recharge_threshold", "auto_recharge_amount", "credits"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    return row;
  }

  describe("POST /v1/subaccounts", () => {
    it("creates a sub-account with its own API key, shown once", async () => {
      const a = await agency();
      const e = email("Client");
      const res = await call("POST", "/v1/subaccounts", a.apiKey, { email: e, name: "Client One" });
      expect(res.statusCode).toBe(201);
      const sub = json<Sub>(res);
      expect(sub).toMatchObject({
        email: e.toLowerCase(),
        name: "Client One",
        credits: 0,
        autoRecharge: null,
      });
      expect(sub.id).toMatch(/^acc_/);
      expect(sub.apiKey).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);

      // The key works, and the account is a sub-account of this agency.
      const me = await t.inject({ method: "GET", url: `/v1/account?apiKey=${sub.apiKey}` });
      expect(me.statusCode).toBe(200);
      expect(json(me)).toMatchObject({ accountId: sub.id, kind: "subaccount", parentAccountId: a.accountId });

      // The key is never shown again.
      const got = await call("GET", `/v1/subaccounts/${sub.id}`, a.apiKey);
      expect(got.statusCode).toBe(200);
      expect(json<Sub>(got).apiKey).toBeUndefined();
      expect(json<Sub>(got)).toMatchObject({ id: sub.id, email: e.toLowerCase() });
    });

    it("creates no sign-in: the owner joins through the invite in the answer", async () => {
      const a = await agency();
      const res = await call("POST", "/v1/subaccounts", a.apiKey, { email: email("owner") });
      const sub = json<Sub & { ownerInvite: { url: string; expiresAt: string } }>(res);
      expect(sub.ownerInvite.url).toMatch(/^https:\/\/[^/]+\/invite\/[\w-]{40,}$/);
      const users = await t.parley.db.kysely
        .selectFrom("users")
        .select("id")
        .where("account_id", "=", sub.id)
        .execute();
      expect(users).toHaveLength(0);
      const invites = await t.parley.db.kysely
        .selectFrom("invites")
        .select(["email", "role", "created_by"])
        .where("account_id", "=", sub.id)
        .execute();
      expect(invites).toEqual([{ email: sub.email, role: "owner", created_by: null }]);
      expect(sub.name).toBe(sub.email);
      // Shown once: reading the sub-account again has neither the key nor the link.
      const got = json<Record<string, unknown>>(await call("GET", `/v1/subaccounts/${sub.id}`, a.apiKey));
      expect(got.ownerInvite).toBeUndefined();
    });

    it("answers 409 ACCOUNT_EXISTS for a taken e-mail (any case) and creates nothing", async () => {
      const a = await agency();
      const e = email("dup");
      expect((await call("POST", "/v1/subaccounts", a.apiKey, { email: e })).statusCode).toBe(201);
      const again = await call("POST", "/v1/subaccounts", a.apiKey, { email: e.toUpperCase() });
      expect(again.statusCode).toBe(409);
      expect(json<Err>(again).error.code).toBe("ACCOUNT_EXISTS");
      const agencyTaken = await call("POST", "/v1/subaccounts", a.apiKey, { email: a.email });
      expect(agencyTaken.statusCode).toBe(409);
      const list = json<Page<Sub>>(await call("GET", "/v1/subaccounts", a.apiKey));
      expect(list.data).toHaveLength(1);
    });

    it("reports a duplicate within the agency naming no one (another tenant's address: tenant-emails.test.ts)", async () => {
      const a = await agency();
      const own = email("own");
      expect((await call("POST", "/v1/subaccounts", a.apiKey, { email: own })).statusCode).toBe(201);
      const answers = [];
      for (const e of [own, a.email]) {
        const res = await call("POST", "/v1/subaccounts", a.apiKey, { email: e });
        expect(res.statusCode).toBe(409);
        const { requestId: _, ...error } = json<Err & { error: { requestId: string } }>(res).error;
        expect(JSON.stringify(error)).not.toContain(e.split("@")[0]!);
        answers.push(error);
      }
      expect(answers[1]).toEqual(answers[0]);
    });

    it("validates the body: e-mail required and valid, name and password limits", async () => {
      const a = await agency();
      const cases: Array<[unknown, string]> = [
        [{}, "VALIDATION_ERROR"],
        [{ email: "" }, "VALIDATION_ERROR"],
        [{ email: "nope" }, "INVALID_EMAIL"],
        [{ email: 42 }, "VALIDATION_ERROR"],
        [{ email: email("x"), name: "n".repeat(201) }, "VALIDATION_ERROR"],
        [{ email: email("x"), password: "short" }, "VALIDATION_ERROR"],
      ];
      for (const [body, code] of cases) {
        const res = await call("POST", "/v1/subaccounts", a.apiKey, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(json<Err>(res).error.code).toBe(code);
      }
      expect(json<Page<Sub>>(await call("GET", "/v1/subaccounts", a.apiKey)).data).toHaveLength(0);
    });
  });

  describe("access rules", () => {
    it("refuses non-agency callers with 403 NOT_AGENCY on every agency route", async () => {
      const a = await agency();
      const sub = json<Sub>(await call("POST", "/v1/subaccounts", a.apiKey, { email: email("s") }));
      const standard = await t.account();
      for (const key of [standard.apiKey, sub.apiKey!]) {
        for (const [method, url, body] of [
          ["GET", "/v1/subaccounts", undefined],
          ["POST", "/v1/subaccounts", { email: email("x") }],
          ["GET", `/v1/subaccounts/${sub.id}`, undefined],
          ["PUT", `/v1/subaccounts/${sub.id}/auto-recharge`, { threshold: 1, rechargeAmount: 1 }],
          ["DELETE", `/v1/subaccounts/${sub.id}/auto-recharge`, undefined],
          ["GET", `/v1/subaccounts/${sub.id}/credits/transactions`, undefined],
        ] as const) {
          const res = await call(method, url, key, body);
          expect(res.statusCode, `${method} ${url}`).toBe(403);
          expect(json<Err>(res).error.code).toBe("NOT_AGENCY");
        }
      }
      expect((await armed(sub.id)).auto_recharge_threshold).toBeNull();
    });

    it("takes the key only from the x-api-key header on the agency routes", async () => {
      const a = await agency();
      const res = await t.inject({ method: "GET", url: `/v1/subaccounts?apiKey=${a.apiKey}` });
      expect(res.statusCode).toBe(401);
      expect(json<Err>(res).error.code).toBe("UNAUTHORIZED");
      const created = await t.inject({
        method: "POST",
        url: `/v1/subaccounts?apiKey=${a.apiKey}`,
        payload: { email: email("q") },
      });
      expect(created.statusCode).toBe(401);
      expect(json<Page<Sub>>(await call("GET", "/v1/subaccounts", a.apiKey)).data).toHaveLength(0);
    });

    it("hides another agency's sub-accounts (404) from reading and changing", async () => {
      const a = await agency();
      const b = await agency();
      const theirs = json<Sub>(await call("POST", "/v1/subaccounts", b.apiKey, { email: email("theirs") }));
      for (const [method, url, body] of [
        ["GET", `/v1/subaccounts/${theirs.id}`, undefined],
        ["PUT", `/v1/subaccounts/${theirs.id}/auto-recharge`, { threshold: 5, rechargeAmount: 10 }],
        ["DELETE", `/v1/subaccounts/${theirs.id}/auto-recharge`, undefined],
        ["GET", `/v1/subaccounts/${theirs.id}/credits/transactions`, undefined],
        ["GET", "/v1/subaccounts/acc_nothere", undefined],
      ] as const) {
        const res = await call(method, url, a.apiKey, body);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(json<Err>(res).error.code).toBe("SUBACCOUNT_NOT_FOUND");
      }
      expect(json<Page<Sub>>(await call("GET", "/v1/subaccounts", a.apiKey)).data).toEqual([]);
      expect((await armed(theirs.id)).auto_recharge_threshold).toBeNull();
    });
  });

  describe("GET /v1/subaccounts", () => {
    it("pages through the agency's own sub-accounts, oldest first, each once", async () => {
      const a = await agency();
      const b = await agency();
      await call("POST", "/v1/subaccounts", b.apiKey, { email: email("b-sub") });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(
          json<Sub>(await call("POST", "/v1/subaccounts", a.apiKey, { email: email(`c${i}`), name: `C${i}` }))
            .id,
        );
      }
      const seen: Sub[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await call(
          "GET",
          `/v1/subaccounts?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
          a.apiKey,
        );
        expect(res.statusCode).toBe(200);
        const p = json<Page<Sub>>(res);
        seen.push(...p.data);
        cursor = p.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen.map((s) => s.id)).toEqual(ids);
      expect(seen.map((s) => s.name)).toEqual(["C0", "C1", "C2", "C3", "C4"]);
      expect(Object.keys(seen[0]!).sort()).toEqual([
        "autoRecharge",
        "createdAt",
        "credits",
        "email",
        "id",
        "name",
        "status",
        "suspendedAt",
      ]);

      const bad = await call("GET", "/v1/subaccounts?limit=0", a.apiKey);
      expect(bad.statusCode).toBe(400);
      const badCursor = await call("GET", "/v1/subaccounts?cursor=abc", a.apiKey);
      expect(json<Err>(badCursor).error.code).toBe("INVALID_CURSOR");
    });
  });

  describe("auto-recharge settings", () => {
    it("sets, changes and turns off a sub-account's auto-recharge", async () => {
      const a = await agency();
      const sub = json<Sub>(await call("POST", "/v1/subaccounts", a.apiKey, { email: email("ar") }));
      const url = `/v1/subaccounts/${sub.id}/auto-recharge`;
      const set = await call("PUT", url, a.apiKey, { threshold: 10.5, rechargeAmount: 100 });
      expect(set.statusCode).toBe(200);
      expect(json<Sub>(set).autoRecharge).toEqual({ threshold: 10.5, rechargeAmount: 100 });
      expect(await armed(sub.id)).toMatchObject({
        auto_recharge_threshold: 1050,
        auto_recharge_amount: 10000,
        auto_recharge_armed: 1,
      });
      const listed = json<Page<Sub>>(await call("GET", "/v1/subaccounts", a.apiKey)).data[0]!;
      expect(listed.autoRecharge).toEqual({ threshold: 10.5, rechargeAmount: 100 });

      const off = await call("DELETE", url, a.apiKey);
      expect(off.statusCode).toBe(200);
      expect(json<Sub>(off).autoRecharge).toBeNull();
      expect((await armed(sub.id)).auto_recharge_threshold).toBeNull();
      // Turning off twice is fine.
      expect((await call("DELETE", url, a.apiKey)).statusCode).toBe(200);
    });

    it("keeps an already-fired sub-account disarmed when re-set while still below the threshold", async () => {
      const a = await agency();
      const sub = json<Sub>(await call("POST", "/v1/subaccounts", a.apiKey, { email: email("rearm") }));
      const url = `/v1/subaccounts/${sub.id}/auto-recharge`;
      await call("PUT", url, a.apiKey, { threshold: 5, rechargeAmount: 20 });
      // As after an event: disarmed while the balance (0) is below the threshold.
      await t.parley.db.kysely
        .updateTable("accounts")
        .set({ auto_recharge_armed: 0 })
        .where("id", "=", sub.id)
        .execute();
      await call("PUT", url, a.apiKey, { threshold: 6, rechargeAmount: 20 });
      expect((await armed(sub.id)).auto_recharge_armed).toBe(0);
      // Once the new threshold is at or below the balance, it is armed again.
      await t.parley.db.kysely
        .updateTable("accounts")
        .set({ credits: 600 })
        .where("id", "=", sub.id)
        .execute();
      await call("PUT", url, a.apiKey, { threshold: 6, rechargeAmount: 20 });
      expect((await armed(sub.id)).auto_recharge_armed).toBe(1);
    });

    it("rejects bad settings with 400 and changes nothing", async () => {
      const a = await agency();
      const sub = json<Sub>(await call("POST", "/v1/subaccounts", a.apiKey, { email: email("bad") }));
      const url = `/v1/subaccounts/${sub.id}/auto-recharge`;
      const cases: Array<[unknown, string]> = [
        [{ threshold: "5", rechargeAmount: 10 }, "VALIDATION_ERROR"],
        [{ threshold: 5 }, "VALIDATION_ERROR"],
        [{ threshold: 0, rechargeAmount: 10 }, "INVALID_AMOUNT"],
        [{ threshold: 5, rechargeAmount: -1 }, "INVALID_AMOUNT"],
        [{ threshold: 5, rechargeAmount: 1.234 }, "INVALID_AMOUNT"],
        [{ threshold: 1_000_001, rechargeAmount: 10 }, "INVALID_AMOUNT"],
      ];
      for (const [body, code] of cases) {
        const res = await call("PUT", url, a.apiKey, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(json<Err>(res).error.code, JSON.stringify(body)).toBe(code);
      }
      expect((await armed(sub.id)).auto_recharge_threshold).toBeNull();
    });
  });

  describe("CLI", () => {
    it("creates an agency and a sub-account with credits, and sets auto-recharge", async () => {
      const create = accountsModule.commands!["account create"]!;
      const set = accountsModule.commands!["account set"]!;
      const ae = email("cli-agency");
      const se = email("cli-sub");
      const agencyOut = (await create.run(
        { email: ae, password: "agency password", agency: true },
        t.parley.ctx,
      )) as { accountId: string; apiKey: string };
      // The sub-account through the real `parley` process, as an operator runs it.
      const subOut = oneJsonLine<{ accountId: string }>(
        await runCli(
          [
            "account",
            "create",
            "--email",
            se,
            "--password",
            "client password",
            "--parent",
            ae,
            "--credits",
            "12.5",
          ],
          cliEnv(t.database),
        ),
      );
      const listed = json<Page<Sub>>(await call("GET", "/v1/subaccounts", agencyOut.apiKey)).data;
      expect(listed).toMatchObject([{ id: subOut.accountId, email: se, credits: 12.5 }]);

      const setOut = (await set.run(
        { email: se, "auto-recharge-threshold": "5", "auto-recharge-amount": "50" },
        t.parley.ctx,
      )) as { autoRecharge: unknown };
      expect(setOut.autoRecharge).toEqual({ threshold: 5, amount: 50 });
      const viewed = json<Sub>(await call("GET", `/v1/subaccounts/${subOut.accountId}`, agencyOut.apiKey));
      expect(viewed.autoRecharge).toEqual({ threshold: 5, rechargeAmount: 50 });
      expect((await armed(subOut.accountId)).auto_recharge_armed).toBe(1);

      const off = (await set.run({ email: se, "auto-recharge-threshold": "off" }, t.parley.ctx)) as {
        autoRecharge: unknown;
      };
      expect(off.autoRecharge).toBeNull();

      await expect(
        create.run({ email: email("x"), password: "some password", parent: se }, t.parley.ctx),
      ).rejects.toMatchObject({ code: "NOT_AGENCY" });
      await expect(
        create.run({ email: email("x"), password: "some password", parent: ae, agency: true }, t.parley.ctx),
      ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    }, 60_000);

    it("refuses auto-recharge on a non-sub-account and bad values", async () => {
      const set = accountsModule.commands!["account set"]!;
      const standard = email("std");
      await t.account({ email: standard });
      await expect(
        set.run(
          { email: standard, "auto-recharge-threshold": "5", "auto-recharge-amount": "10" },
          t.parley.ctx,
        ),
      ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });

      const a = await agency();
      const sub = json<Sub>(await call("POST", "/v1/subaccounts", a.apiKey, { email: email("cli-bad") }));
      for (const [threshold, amount, code] of [
        ["5", undefined, "VALIDATION_ERROR"],
        ["0", "10", "INVALID_AMOUNT"],
        ["5", "0", "INVALID_AMOUNT"],
        ["5", "1.234", "INVALID_AMOUNT"],
        ["5", "2000000", "INVALID_AMOUNT"],
      ] as const) {
        await expect(
          set.run(
            { email: sub.email, "auto-recharge-threshold": threshold, "auto-recharge-amount": amount },
            t.parley.ctx,
          ),
        ).rejects.toMatchObject({ code });
      }
      expect((await armed(sub.id)).auto_recharge_threshold).toBeNull();
    });
  });
});

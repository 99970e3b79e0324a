// No e-mail existence leak across tenants: creating a sub-account (/v1 and /app/api) and inviting a
// teammate answer an address that belongs to another tenant exactly as a fresh one. The person joins
// through the invite link; a clash with a sign-in elsewhere is explained only to whoever proves they
// hold that sign-in (its password), never to the inviter.
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountsModule } from "../src/modules/accounts/index.ts";
import { browserFrom, ownerBrowser, PASSWORD, signIn } from "./app-helpers.ts";
import { errorCode, json, newAgency, startTestApp, type TestApp, uniqueEmail } from "./helpers.ts";

/** The shape of an answer: status and the body's keys, recursively (values differ per address). */
function shapeOf(res: LightMyRequestResponse): unknown {
  const keys = (v: unknown): unknown =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, x]) => [k, keys(x)]),
        )
      : typeof v;
  return { status: res.statusCode, body: keys(json(res)) };
}

const tokenOf = (url: string) => url.split("/invite/")[1] as string;

describe("e-mail addresses of other tenants", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  /** An address with a sign-in in a standard account, and one that is another agency's sub-account. */
  async function strangers() {
    const standard = uniqueEmail("stranger");
    await t.account({ email: standard });
    const other = await newAgency(t);
    const otherSub = uniqueEmail("other-sub");
    const made = await t.inject({
      method: "POST",
      url: "/v1/subaccounts",
      headers: { "x-api-key": other.apiKey },
      payload: { email: otherSub },
    });
    expect(made.statusCode, made.body).toBe(201);
    return { standard, otherSub, otherAgency: other };
  }

  it("POST /v1/subaccounts answers another tenant's address exactly like a fresh one", async () => {
    const { standard, otherSub, otherAgency } = await strangers();
    const a = await newAgency(t);
    const create = (email: string) =>
      t.inject({
        method: "POST",
        url: "/v1/subaccounts",
        headers: { "x-api-key": a.apiKey },
        payload: { email },
      });
    const fresh = await create(uniqueEmail("fresh"));
    expect(fresh.statusCode, fresh.body).toBe(201);
    for (const email of [standard, otherSub, otherAgency.email]) {
      const res = await create(email);
      expect(res.statusCode, `${email}: ${res.body}`).toBe(201);
      expect(shapeOf(res)).toEqual(shapeOf(fresh));
      expect(json<{ email: string }>(res).email).toBe(email);
    }
    // The owner joins through a link in the answer.
    expect(json<{ ownerInvite: { url: string } }>(fresh).ownerInvite.url).toMatch(/\/invite\/[\w-]{40,}$/);
    // Within the agency a duplicate is still reported (that reveals nothing new).
    const again = await create(standard.toUpperCase());
    expect(again.statusCode).toBe(409);
    expect(errorCode(again)).toBe("ACCOUNT_EXISTS");
    // The other tenants are untouched.
    const owners = await t.parley.db.kysely
      .selectFrom("users")
      .select(["email"])
      .where("email", "in", [standard, otherSub])
      .execute();
    expect(owners.map((o) => o.email)).toEqual([standard]);
  });

  it("the web app's sub-account form answers the same way", async () => {
    const { standard } = await strangers();
    const agencyEmail = uniqueEmail("app-agency");
    await t.account({ email: agencyEmail, kind: "agency" });
    const agency = await signIn(t, agencyEmail);
    const create = (email: string) =>
      agency.req({ method: "POST", url: "/app/api/subaccounts", payload: { email } });
    const fresh = await create(uniqueEmail("fresh"));
    expect(fresh.statusCode, fresh.body).toBe(201);
    const taken = await create(standard);
    expect(taken.statusCode, taken.body).toBe(201);
    expect(shapeOf(taken)).toEqual(shapeOf(fresh));
    expect(json(fresh).apiKey).toBeUndefined();
  });

  it("inviting a teammate answers another tenant's address exactly like a fresh one", async () => {
    const { standard, otherSub } = await strangers();
    const { browser: owner } = await ownerBrowser(t);
    const invite = (email: string) =>
      owner.req({ method: "POST", url: "/app/api/team/invites", payload: { email, role: "agent" } });
    const fresh = await invite(uniqueEmail("fresh"));
    expect(fresh.statusCode, fresh.body).toBe(201);
    for (const email of [standard, otherSub]) {
      const res = await invite(email);
      expect(res.statusCode, `${email}: ${res.body}`).toBe(201);
      expect(shapeOf(res)).toEqual(shapeOf(fresh));
    }
    // A member of the caller's own team is still reported.
    const own = await invite(owner.session.user.email);
    expect(own.statusCode).toBe(409);
    expect(errorCode(own)).toBe("ACCOUNT_EXISTS");
  });

  it("the sub-account's owner joins through the link and signs in to the sub-account", async () => {
    const a = await newAgency(t);
    const email = uniqueEmail("new-owner");
    const made = json<{ id: string; ownerInvite: { url: string; expiresAt: string } }>(
      await t.inject({
        method: "POST",
        url: "/v1/subaccounts",
        headers: { "x-api-key": a.apiKey },
        payload: { email, name: "Client" },
      }),
    );
    const days = (Date.parse(made.ownerInvite.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeCloseTo(7, 1);
    const token = tokenOf(made.ownerInvite.url);
    const info = await t.inject({ method: "GET", url: `/app/api/invites/${token}` });
    expect(json(info)).toMatchObject({ email, role: "owner", accountName: "Client" });
    const accepted = await t.inject({
      method: "POST",
      url: `/app/api/invites/${token}/accept`,
      payload: { name: "Cli Ent", password: PASSWORD },
    });
    expect(accepted.statusCode, accepted.body).toBe(201);
    const owner = browserFrom(t, accepted);
    expect(owner.session.user).toMatchObject({ email, role: "owner" });
    const again = await signIn(t, email);
    expect(again.session.account.id).toBe(made.id);
    // One owner: the link is used up.
    const twice = await t.inject({
      method: "POST",
      url: `/app/api/invites/${token}/accept`,
      payload: { password: PASSWORD },
    });
    expect(twice.statusCode).toBe(404);
  });

  it("a clash is explained only to the holder of the address's password, in their own session", async () => {
    const { standard } = await strangers();
    const { browser: owner, acc } = await ownerBrowser(t);
    const inv = await owner.req({
      method: "POST",
      url: "/app/api/team/invites",
      payload: { email: standard, role: "agent" },
    });
    const token = tokenOf(json<{ url: string }>(inv).url);
    const accept = (password: string) =>
      t.inject({ method: "POST", url: `/app/api/invites/${token}/accept`, payload: { password } });

    // Whoever holds the link without that password learns only that this password does not open it.
    const wrong = await accept("not the right password");
    expect(wrong.statusCode).toBe(401);
    expect(errorCode(wrong)).toBe("INVALID_CREDENTIALS");
    expect(wrong.headers["set-cookie"]).toBeUndefined();

    // The address's holder, with its password, is signed in to their own account and told why they
    // did not join (in their own session); nothing moves.
    const holder = await accept(PASSWORD);
    expect(holder.statusCode, holder.body).toBe(200);
    const own = browserFrom(t, holder);
    expect(own.session.user.email).toBe(standard);
    expect(own.session.account.id).not.toBe(acc.accountId);
    expect(json<{ notice: string }>(holder).notice).toMatch(/another Parley account/);

    const user = await t.parley.db.kysely
      .selectFrom("users")
      .select(["account_id", "role"])
      .where("email", "=", standard)
      .executeTakeFirstOrThrow();
    expect(user.account_id).not.toBe(acc.accountId);
    expect(user.role).toBe("owner");
    const team = json<{ members: unknown[]; invites: Array<{ email: string }> }>(
      await owner.req({ method: "GET", url: "/app/api/team" }),
    );
    expect(team.members).toHaveLength(1);
    expect(team.invites.map((i) => i.email)).toEqual([standard]);
    // The stranger still signs in to their own account.
    await signIn(t, standard);
  });

  it("the operator's --email look-up asks for the account id when several tenants use the address", async () => {
    const shared = uniqueEmail("shared");
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const agency = await newAgency(t);
      const res = await t.inject({
        method: "POST",
        url: "/v1/subaccounts",
        headers: { "x-api-key": agency.apiKey },
        payload: { email: shared },
      });
      ids.push(json<{ id: string }>(res).id);
    }
    const set = accountsModule.commands!["account set"]!;
    await expect(set.run({ email: shared, bot: "off" }, t.parley.ctx)).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      message: expect.stringContaining(ids[0] as string),
    });
    const out = (await set.run({ email: ids[1] as string, bot: "off" }, t.parley.ctx)) as {
      accountId: string;
      botActive: boolean;
    };
    expect(out).toMatchObject({ accountId: ids[1], botActive: false });
  });

  it("POST /v1/subaccounts no longer takes a password (the owner chooses one through the link)", async () => {
    const a = await newAgency(t);
    const res = await t.inject({
      method: "POST",
      url: "/v1/subaccounts",
      headers: { "x-api-key": a.apiKey },
      payload: { email: uniqueEmail("pw"), password: "a long secret" },
    });
    expect(res.statusCode).toBe(400);
    expect(errorCode(res)).toBe("VALIDATION_ERROR");
    expect(json<{ error: { message: string } }>(res).error.message).toMatch(/ownerInvite/);
  });
});

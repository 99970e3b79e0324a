// The web app's door (/app/api): onboarding once and only from the server itself or with the setup
// token, sign-in (cookie flags; throttling is in app-auth-hardening.test.ts), CSRF, sign-out,
// password change, team and invites, and every route refusing a request without a session (401) or
// without the CSRF header (403).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserFrom, cookieFrom, ownerBrowser, PASSWORD, signIn, teammate } from "./app-helpers.ts";
import { errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

/** Every session route with a sample path (ids that do not exist are fine: auth comes first). */
const SESSION_ROUTES: Array<[string, string]> = [
  ["GET", "/app/api/session"],
  ["DELETE", "/app/api/session"],
  ["POST", "/app/api/password"],
  ["GET", "/app/api/team"],
  ["POST", "/app/api/team/invites"],
  ["DELETE", "/app/api/team/invites/inv_x"],
  ["DELETE", "/app/api/team/members/usr_x"],
  ["GET", "/app/api/settings"],
  ["PATCH", "/app/api/settings"],
  ["POST", "/app/api/settings/api-key"],
  ["POST", "/app/api/settings/webhook-secret/reveal"],
  ["POST", "/app/api/settings/webhook-secret/rotate"],
  ["POST", "/app/api/settings/test-event"],
  ["GET", "/app/api/conversations"],
  ["GET", "/app/api/conversations/cv_x"],
  ["POST", "/app/api/conversations/cv_x/messages"],
  ["PATCH", "/app/api/conversations/cv_x"],
  ["POST", "/app/api/messages/msg_x/resend"],
  ["GET", "/app/api/messages/msg_x/media"],
  ["GET", "/app/api/events"],
];

const BODIES: Record<string, unknown> = {
  "/app/api/password": { currentPassword: "x", newPassword: "yyyyyyyy" },
  "/app/api/team/invites": { email: "a@example.com", role: "agent" },
  "/app/api/settings": {},
  "/app/api/conversations/cv_x/messages": { body: "hi" },
  "/app/api/conversations/cv_x": {},
};

describe("onboarding", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it("is needed on an empty database, allowed from loopback, not from elsewhere without the token", async () => {
    expect(t.parley.ctx.setup.token).toMatch(/^[\w-]{20,}$/);
    const local = await t.inject({ method: "GET", url: "/app/api/onboarding" });
    expect(json(local)).toEqual({ needed: true, allowed: true });
    const remote = await t.inject({
      method: "GET",
      url: "/app/api/onboarding",
      remoteAddress: "203.0.113.7",
    });
    expect(json(remote)).toEqual({ needed: true, allowed: false });
    const withToken = await t.inject({
      method: "GET",
      url: `/app/api/onboarding?setupToken=${t.parley.ctx.setup.token}`,
      remoteAddress: "203.0.113.7",
    });
    expect(json(withToken)).toEqual({ needed: true, allowed: true });
    // X-Forwarded-For is not believed without TRUST_PROXY.
    const forwarded = await t.inject({
      method: "GET",
      url: "/app/api/onboarding",
      remoteAddress: "203.0.113.7",
      headers: { "x-forwarded-for": "127.0.0.1" },
    });
    expect(json(forwarded)).toEqual({ needed: true, allowed: false });
    // A proxy on this machine relays everyone from loopback: forwarded requests need the token.
    const relayed = await t.inject({
      method: "GET",
      url: "/app/api/onboarding",
      headers: { "x-forwarded-for": "203.0.113.7" },
    });
    expect(json(relayed)).toEqual({ needed: true, allowed: false });
  });

  it("refuses a remote browser without (or with a wrong) setup token, then onboards once with it", async () => {
    const body = { businessName: "Acme", email: "owner@acme.example", password: PASSWORD };
    const refused = await t.inject({
      method: "POST",
      url: "/app/api/onboarding",
      remoteAddress: "203.0.113.7",
      payload: body,
    });
    expect(refused.statusCode).toBe(403);
    expect(errorCode(refused)).toBe("FORBIDDEN");
    const wrong = await t.inject({
      method: "POST",
      url: "/app/api/onboarding",
      remoteAddress: "203.0.113.7",
      payload: { ...body, setupToken: "not-the-token" },
    });
    expect(wrong.statusCode).toBe(403);

    const ok = await t.inject({
      method: "POST",
      url: "/app/api/onboarding",
      remoteAddress: "203.0.113.7",
      payload: { ...body, setupToken: t.parley.ctx.setup.token },
    });
    expect(ok.statusCode, ok.body).toBe(201);
    const session = json<{ user: { role: string; email: string }; account: { name: string; kind: string } }>(
      ok,
    );
    expect(session.user).toMatchObject({ role: "owner", email: "owner@acme.example" });
    expect(session.account).toMatchObject({ name: "Acme", kind: "standard" });
    const b = browserFrom(t, ok);
    expect((await b.req({ method: "GET", url: "/app/api/session" })).statusCode).toBe(200);
    // The default campaign and the opening ledger were created by the modules' hooks.
    const campaigns = await t.parley.db.kysely.selectFrom("campaigns").select("id").execute();
    expect(campaigns.length).toBe(1);

    // Gone afterwards, from anywhere, token or not.
    expect(t.parley.ctx.setup.token).toBeNull();
    expect(json(await t.inject({ method: "GET", url: "/app/api/onboarding" }))).toEqual({
      needed: false,
      allowed: false,
    });
    const again = await t.inject({
      method: "POST",
      url: "/app/api/onboarding",
      payload: { ...body, email: "second@acme.example" },
    });
    expect(again.statusCode).toBe(409);
    expect(errorCode(again)).toBe("ALREADY_ONBOARDED");
  });
});

describe("sessions", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it("signs in with a Secure, HttpOnly, SameSite=Strict cookie and returns the session JSON", async () => {
    const acc = await t.account({ email: "ada@example.com" });
    const res = await t.inject({
      method: "POST",
      url: "/app/api/session",
      payload: { email: "ADA@example.com", password: PASSWORD },
    });
    expect(res.statusCode).toBe(200);
    const line = String(res.headers["set-cookie"]);
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/Secure/);
    expect(line).toMatch(/SameSite=Strict/);
    expect(line).toMatch(/Path=\//);
    expect(res.headers["cache-control"]).toBe("no-store");
    const body = json<Record<string, Record<string, unknown>>>(res);
    expect(body.user).toMatchObject({ id: acc.userId, email: "ada@example.com", role: "owner" });
    expect(body.account).toMatchObject({ id: acc.accountId, kind: "standard" });
    expect(typeof body.csrfToken).toBe("string");
    // Only the token's hash is stored.
    const token = cookieFrom(res).split("=")[1] as string;
    const rows = await t.parley.db.kysely.selectFrom("sessions").select("token_hash").execute();
    expect(rows.some((r) => r.token_hash.includes(token))).toBe(false);
  });

  it("slides the 30-day expiry (at most once a day) and refuses an expired session", async () => {
    const { browser } = await ownerBrowser(t);
    const day = 24 * 3600_000;
    const expiry = async () =>
      (
        await t.parley.db.kysely
          .selectFrom("sessions")
          .select(["id", "expires_at"])
          .where("csrf_token", "=", browser.csrf)
          .executeTakeFirstOrThrow()
      ).expires_at;
    const fresh = await browser.req({ method: "GET", url: "/app/api/session" });
    expect(fresh.headers["set-cookie"]).toBeUndefined();
    const setExpiry = (at: number) =>
      t.parley.db.write((trx) =>
        trx.updateTable("sessions").set({ expires_at: at }).where("csrf_token", "=", browser.csrf).execute(),
      );
    await setExpiry(Date.now() + 20 * day);
    const used = await browser.req({ method: "GET", url: "/app/api/session" });
    expect(used.statusCode).toBe(200);
    expect(String(used.headers["set-cookie"])).toMatch(/Max-Age=259\d{4}/);
    expect(await expiry()).toBeGreaterThan(Date.now() + 29 * day);
    await setExpiry(Date.now() - 1);
    expect((await browser.req({ method: "GET", url: "/app/api/session" })).statusCode).toBe(401);
  });

  it("refuses a wrong password or an unknown e-mail with 401 INVALID_CREDENTIALS", async () => {
    await t.account({ email: "bob@example.com" });
    for (const payload of [
      { email: "bob@example.com", password: "wrong password" },
      { email: "nobody@example.com", password: PASSWORD },
    ]) {
      const res = await t.inject({ method: "POST", url: "/app/api/session", payload });
      expect(res.statusCode).toBe(401);
      expect(errorCode(res)).toBe("INVALID_CREDENTIALS");
    }
  });

  it("requires the CSRF header on state-changing requests, then signs out", async () => {
    const { browser } = await ownerBrowser(t);
    const noCsrf = await browser.req({ method: "DELETE", url: "/app/api/session", csrf: false });
    expect(noCsrf.statusCode).toBe(403);
    expect(errorCode(noCsrf)).toBe("CSRF_FAILED");
    const wrong = await browser.req({
      method: "DELETE",
      url: "/app/api/session",
      csrf: false,
      headers: { "x-csrf-token": "nope" },
    });
    expect(wrong.statusCode).toBe(403);
    const out = await browser.req({ method: "DELETE", url: "/app/api/session" });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers["set-cookie"])).toMatch(/Max-Age=0/);
    expect((await browser.req({ method: "GET", url: "/app/api/session" })).statusCode).toBe(401);
  });

  // Sign-in and password-change throttling (per e-mail and address, growing delays; no lock-out from
  // elsewhere) is tested in app-auth-hardening.test.ts.

  it("changes the password: the current one is checked, other sessions end, the new one signs in", async () => {
    const { acc, browser } = await ownerBrowser(t, "erin@example.com");
    const other = await signIn(t, "erin@example.com");
    const wrong = await browser.req({
      method: "POST",
      url: "/app/api/password",
      payload: { currentPassword: "not it at all", newPassword: "a new password" },
    });
    expect(wrong.statusCode).toBe(401);
    const short = await browser.req({
      method: "POST",
      url: "/app/api/password",
      payload: { currentPassword: PASSWORD, newPassword: "short" },
    });
    expect(short.statusCode).toBe(400);
    const ok = await browser.req({
      method: "POST",
      url: "/app/api/password",
      payload: { currentPassword: PASSWORD, newPassword: "a new password" },
    });
    expect(ok.statusCode).toBe(204);
    expect((await browser.req({ method: "GET", url: "/app/api/session" })).statusCode).toBe(200);
    expect((await other.req({ method: "GET", url: "/app/api/session" })).statusCode).toBe(401);
    const old = await t.inject({
      method: "POST",
      url: "/app/api/session",
      payload: { email: "erin@example.com", password: PASSWORD },
    });
    expect(old.statusCode).toBe(401);
    const fresh = await signIn(t, "erin@example.com", "a new password");
    expect(fresh.session.account.id).toBe(acc.accountId);
  });

  it("every session route answers 401 without a session and 403 without the CSRF header", async () => {
    const { browser } = await ownerBrowser(t);
    for (const [method, url] of SESSION_ROUTES) {
      const payload = BODIES[url];
      const anon = await t.inject({
        method: method as "GET",
        url,
        ...(payload ? { payload: payload as object } : {}),
      });
      expect(anon.statusCode, `${method} ${url}`).toBe(401);
      expect(errorCode(anon)).toBe("UNAUTHORIZED");
      const forged = await t.inject({
        method: method as "GET",
        url,
        headers: { cookie: "parley_session=forged-token" },
      });
      expect(forged.statusCode, `${method} ${url} forged`).toBe(401);
      if (method !== "GET") {
        const noCsrf = await browser.req({
          method: method as "POST",
          url,
          csrf: false,
          ...(payload ? { payload: payload as object } : {}),
        });
        expect(noCsrf.statusCode, `${method} ${url} without CSRF`).toBe(403);
        expect(errorCode(noCsrf)).toBe("CSRF_FAILED");
      }
    }
  });

  it("an API key does not open /app/api, and a session cookie does not open /v1", async () => {
    const { acc, browser } = await ownerBrowser(t);
    const withKey = await t.inject({ method: "GET", url: `/app/api/conversations?apiKey=${acc.apiKey}` });
    expect(withKey.statusCode).toBe(401);
    const v1 = await browser.req({ method: "GET", url: "/v1/conversations" });
    expect(v1.statusCode).toBe(401);
  });
});

describe("team and invites", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it("the owner invites an agent (link shown once, 7 days), who joins and signs in", async () => {
    const { browser: owner } = await ownerBrowser(t);
    const inv = await owner.req({
      method: "POST",
      url: "/app/api/team/invites",
      payload: { email: "Agent.Smith@example.com", role: "agent" },
    });
    expect(inv.statusCode).toBe(201);
    const { invite, url } = json<{ invite: Record<string, string>; url: string }>(inv);
    expect(invite).toMatchObject({ email: "agent.smith@example.com", role: "agent" });
    const days =
      (Date.parse(invite.expiresAt as string) - Date.parse(invite.createdAt as string)) / 86_400_000;
    expect(days).toBeCloseTo(7, 3);
    expect(url).toMatch(/^https:\/\/[^/]+\/invite\/[\w-]{40,}$/);
    const token = url.split("/invite/")[1] as string;
    // Only the hash is stored.
    const stored = await t.parley.db.kysely.selectFrom("invites").select("token_hash").execute();
    expect(stored.some((r) => r.token_hash === token)).toBe(false);

    const team = json<{ invites: Array<{ id: string }> }>(
      await owner.req({ method: "GET", url: "/app/api/team" }),
    );
    expect(team.invites.map((i) => i.id)).toEqual([invite.id]);

    const info = await t.inject({ method: "GET", url: `/app/api/invites/${token}` });
    expect(info.statusCode).toBe(200);
    expect(json(info)).toMatchObject({ email: "agent.smith@example.com", role: "agent" });

    const accepted = await t.inject({
      method: "POST",
      url: `/app/api/invites/${token}/accept`,
      payload: { name: "Agent Smith", password: PASSWORD },
    });
    expect(accepted.statusCode, accepted.body).toBe(201);
    const agent = browserFrom(t, accepted);
    expect(agent.session.user).toMatchObject({ role: "agent", email: "agent.smith@example.com" });
    // Used up.
    expect((await t.inject({ method: "GET", url: `/app/api/invites/${token}` })).statusCode).toBe(404);
    const twice = await t.inject({
      method: "POST",
      url: `/app/api/invites/${token}/accept`,
      payload: { password: PASSWORD },
    });
    expect(twice.statusCode).toBe(404);
    // The agent signs in with the password they chose, and sees the team.
    const again = await signIn(t, "agent.smith@example.com");
    const members = json<{ members: Array<{ role: string; name: string | null }> }>(
      await again.req({ method: "GET", url: "/app/api/team" }),
    ).members;
    expect(members.map((m) => m.role).sort()).toEqual(["agent", "owner"]);
    expect(members.find((m) => m.role === "agent")?.name).toBe("Agent Smith");
  });

  it("agents cannot manage the team or the settings (403); admins can", async () => {
    const { browser: owner } = await ownerBrowser(t);
    const agent = await teammate(t, owner, "agent");
    const admin = await teammate(t, owner, "admin");
    for (const [method, url, payload] of [
      ["POST", "/app/api/team/invites", { email: "x@example.com", role: "agent" }],
      ["DELETE", "/app/api/team/members/usr_x", undefined],
      ["DELETE", "/app/api/team/invites/inv_x", undefined],
      ["GET", "/app/api/settings", undefined],
      ["PATCH", "/app/api/settings", { botActive: false }],
      ["POST", "/app/api/settings/api-key", undefined],
      ["POST", "/app/api/settings/webhook-secret/reveal", undefined],
      ["POST", "/app/api/settings/webhook-secret/rotate", undefined],
      ["POST", "/app/api/settings/test-event", undefined],
    ] as const) {
      const res = await agent.req({ method, url, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(errorCode(res)).toBe("FORBIDDEN");
    }
    expect((await admin.req({ method: "GET", url: "/app/api/settings" })).statusCode).toBe(200);
    const inv = await admin.req({
      method: "POST",
      url: "/app/api/team/invites",
      payload: { email: "by-admin@example.com", role: "agent" },
    });
    expect(inv.statusCode).toBe(201);
  });

  it("removes a teammate (their session ends at once), never the owner (409), never another account's (404)", async () => {
    const { acc, browser: owner } = await ownerBrowser(t);
    const agent = await teammate(t, owner, "agent");
    const admin = await teammate(t, owner, "admin");
    const { browser: stranger } = await ownerBrowser(t);

    const ownerGone = await admin.req({ method: "DELETE", url: `/app/api/team/members/${acc.userId}` });
    expect(ownerGone.statusCode).toBe(409);
    const foreign = await stranger.req({
      method: "DELETE",
      url: `/app/api/team/members/${agent.session.user.id}`,
    });
    expect(foreign.statusCode).toBe(404);
    const removed = await owner.req({
      method: "DELETE",
      url: `/app/api/team/members/${agent.session.user.id}`,
    });
    expect(removed.statusCode).toBe(204);
    expect((await agent.req({ method: "GET", url: "/app/api/session" })).statusCode).toBe(401);
  });

  it("revokes an invite; another account's invite is 404", async () => {
    const { browser: owner } = await ownerBrowser(t);
    const { browser: stranger } = await ownerBrowser(t);
    const inv = json<{ invite: { id: string }; url: string }>(
      await owner.req({
        method: "POST",
        url: "/app/api/team/invites",
        payload: { email: "later@example.com", role: "admin" },
      }),
    );
    expect(
      (await stranger.req({ method: "DELETE", url: `/app/api/team/invites/${inv.invite.id}` })).statusCode,
    ).toBe(404);
    expect(
      (await owner.req({ method: "DELETE", url: `/app/api/team/invites/${inv.invite.id}` })).statusCode,
    ).toBe(204);
    const token = inv.url.split("/invite/")[1];
    expect((await t.inject({ method: "GET", url: `/app/api/invites/${token}` })).statusCode).toBe(404);
  });
});

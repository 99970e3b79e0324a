// Suspending and resuming a sub-account (issue 38): its key (even one the key cache holds) and its
// sessions are refused with 403 ACCOUNT_SUSPENDED (the custom channel's incoming route too), a built-in
// channel's messages are still stored while the bot stays silent, nothing is deleted, and resuming brings everything back. Through /v1 (agency key) and
// /app/api (agency owner), on whatever database the run uses.
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, browserFrom, PASSWORD, signIn } from "./app-helpers.ts";
import {
  drainUntil,
  errorCode,
  json,
  newAgency,
  startTestApp,
  type TestApp,
  uniqueEmail,
} from "./helpers.ts";

interface Sub {
  id: string;
  name: string;
  email: string;
  status: "active" | "suspended";
  suspendedAt: string | null;
  apiKey: string;
  ownerInvite: { url: string };
}

describe("sub-account suspension", () => {
  let t: TestApp;
  let agencyKey: string;
  let agencyId: string;
  let agencyApp: Browser;
  beforeAll(async () => {
    t = await startTestApp();
    const agency = await newAgency(t);
    agencyKey = agency.apiKey;
    agencyId = agency.accountId;
    agencyApp = await signIn(t, agency.email);
  });
  afterAll(async () => t?.close());

  const v1 = (method: "GET" | "POST", url: string, key: string, payload?: object) =>
    t.inject({ method, url, headers: { "x-api-key": key }, ...(payload ? { payload } : {}) });

  /** A new sub-account of the agency, and its owner signed in through the invite link. */
  async function subWithOwner(): Promise<{ sub: Sub; owner: Browser; ownerEmail: string }> {
    const ownerEmail = uniqueEmail("client");
    const res = await v1("POST", "/v1/subaccounts", agencyKey, { email: ownerEmail, name: "Client" });
    expect(res.statusCode, res.body).toBe(201);
    const sub = json<Sub>(res);
    expect(sub).toMatchObject({ status: "active", suspendedAt: null });
    const token = sub.ownerInvite.url.split("/invite/")[1] as string;
    const accepted = await t.inject({
      method: "POST",
      url: `/app/api/invites/${token}/accept`,
      payload: { name: "Owner", password: PASSWORD },
    });
    expect(accepted.statusCode, accepted.body).toBe(201);
    return { sub, owner: browserFrom(t, accepted), ownerEmail };
  }

  const incoming = (key: string, body: string) =>
    t.inject({
      method: "POST",
      url: "/v1/incoming_custom_channel_message",
      headers: { "x-api-key": key },
      payload: {
        customData: { messageSid: `sid-${Math.random()}`, fromId: "cust-1", toId: "shop", body },
      },
    });

  const SHOP = "https://shop.example";
  /** A website chat channel of the account, and a visitor on it. */
  async function websiteChat(key: string): Promise<{ channelId: string; visitorToken: string }> {
    const channel = await v1("POST", "/v1/channels", key, {
      type: "web",
      name: "Website",
      config: { allowedOrigins: [SHOP] },
    });
    expect(channel.statusCode, channel.body).toBe(201);
    const channelId = json<{ id: string }>(channel).id;
    const visitor = await t.inject({
      method: "POST",
      url: `/widget/v1/channels/${channelId}/visitors`,
      headers: { origin: SHOP },
    });
    expect(visitor.statusCode, visitor.body).toBe(201);
    return { channelId, visitorToken: json<{ visitorToken: string }>(visitor).visitorToken };
  }

  /** The ids of the account's messages (oldest first) that came in, or that the bot sent. */
  const messagesOf = async (accountId: string, which: "inbound" | "bot") => {
    const all = t.parley.db.kysely.selectFrom("messages").select("id").where("account_id", "=", accountId);
    const rows = await (which === "bot"
      ? all.where("sender", "=", "bot")
      : all.where("direction", "=", "inbound")
    )
      .orderBy("id")
      .execute();
    return rows.map((r) => r.id);
  };
  const inboundMessages = async (accountId: string) => (await messagesOf(accountId, "inbound")).length;
  const botMessages = async (accountId: string) => (await messagesOf(accountId, "bot")).length;

  /** Waits until the message's jobs (the bot's reply) have run. */
  const jobsDone = (messageId: string) =>
    drainUntil(t, async () => {
      const left = await t.parley.db.kysely
        .selectFrom("jobs")
        .select("id")
        .where("subject_id", "=", messageId)
        .where("status", "!=", "dead")
        .execute();
      return left.length === 0;
    });

  const expectSuspended = (res: LightMyRequestResponse, what: string) => {
    expect(res.statusCode, `${what}: ${res.body}`).toBe(403);
    expect(errorCode(res), what).toBe("ACCOUNT_SUSPENDED");
  };

  it("refuses the key (cached or not, incoming included) and the sessions, keeps channel messages, silences the bot; resume restores", async () => {
    const { sub, owner, ownerEmail } = await subWithOwner();
    const web = await websiteChat(sub.apiKey);
    // Used once, so the key cache holds it when the suspension lands.
    expect((await v1("GET", "/v1/account", sub.apiKey)).statusCode).toBe(200);
    expect((await owner.req({ method: "GET", url: "/app/api/session" })).statusCode).toBe(200);

    const suspended = await v1("POST", `/v1/subaccounts/${sub.id}/suspend`, agencyKey);
    expect(suspended.statusCode, suspended.body).toBe(200);
    const first = json<Sub>(suspended);
    expect(first).toMatchObject({ id: sub.id, status: "suspended", suspendedAt: expect.any(String) });
    // Idempotent: the first time stays.
    const again = json<Sub>(await v1("POST", `/v1/subaccounts/${sub.id}/suspend`, agencyKey));
    expect(again.suspendedAt).toBe(first.suspendedAt);
    expect(json<Sub>(await v1("GET", `/v1/subaccounts/${sub.id}`, agencyKey)).status).toBe("suspended");

    expectSuspended(await v1("GET", "/v1/account", sub.apiKey), "GET /v1/account");
    expectSuspended(await v1("GET", "/v1/contacts", sub.apiKey), "GET /v1/contacts");
    expectSuspended(
      await v1("POST", "/v1/contacts", sub.apiKey, { phone: "+15550001" }),
      "POST /v1/contacts",
    );
    expectSuspended(
      await t.inject({ method: "GET", url: `/v1/conversations?apiKey=${sub.apiKey}` }),
      "key in the query",
    );
    expectSuspended(await owner.req({ method: "GET", url: "/app/api/session" }), "session");
    expectSuspended(await owner.req({ method: "GET", url: "/app/api/conversations" }), "inbox");
    const state = await owner.req({ method: "GET", url: "/app/api/session/state" });
    expect(json(state)).toEqual({ signedIn: false, suspended: true, csrfToken: owner.csrf });
    const signInAgain = await t.inject({
      method: "POST",
      url: "/app/api/session",
      payload: { email: ownerEmail, password: PASSWORD },
    });
    expectSuspended(signInAgain, "sign-in");
    expect(signInAgain.headers["set-cookie"]).toBeUndefined();
    // A wrong password still says only that (suspension is not told to strangers).
    const wrong = await t.inject({
      method: "POST",
      url: "/app/api/session",
      payload: { email: ownerEmail, password: "not the password" },
    });
    expect(errorCode(wrong)).toBe("INVALID_CREDENTIALS");

    // The custom channel's key is refused like every other route, and nothing is stored.
    const before = await inboundMessages(sub.id);
    // (That route answers in the spec's simple error form, {"error": "…"}.)
    const refused = await incoming(sub.apiKey, "Hello, are you open?");
    expect(refused.statusCode, refused.body).toBe(403);
    expect(json<{ error: string }>(refused).error).toMatch(/suspended/i);
    expect(await inboundMessages(sub.id)).toBe(before);
    // A visitor on the client's website (a built-in channel: no key) still writes in: stored, not
    // answered.
    const visitorMessage = await t.inject({
      method: "POST",
      url: `/widget/v1/channels/${web.channelId}/messages`,
      headers: { origin: SHOP, authorization: `Bearer ${web.visitorToken}` },
      payload: { body: "Hello, are you open?", clientMessageId: "while-suspended" },
    });
    expect(visitorMessage.statusCode, visitorMessage.body).toBe(201);
    expect(await inboundMessages(sub.id)).toBe(before + 1);
    const messageId = (await messagesOf(sub.id, "inbound")).at(-1) as string;
    await jobsDone(messageId);
    expect(await botMessages(sub.id)).toBe(0);

    // Resume: the same key and session work again; the message is there; the bot answers again.
    const resumed = await v1("POST", `/v1/subaccounts/${sub.id}/resume`, agencyKey);
    expect(json<Sub>(resumed)).toMatchObject({ status: "active", suspendedAt: null });
    expect((await v1("GET", `/v1/messages/${messageId}`, sub.apiKey)).statusCode).toBe(200);
    expect((await owner.req({ method: "GET", url: "/app/api/session" })).statusCode).toBe(200);
    const grant = await t.inject({
      method: "POST",
      url: "/v1/subaccounts/credits",
      headers: { "x-api-key": agencyKey },
      payload: { email: ownerEmail, amount: 10 },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    const later = json<{ messageId: string }>(await incoming(sub.apiKey, "Hello again"));
    await jobsDone(later.messageId);
    await drainUntil(t, async () => (await botMessages(sub.id)) > 0);
  });

  it("the app: an owner or admin suspends, resumes and renames; bad input is 4xx and changes nothing", async () => {
    const { sub, owner } = await subWithOwner();
    const suspend = await agencyApp.req({ method: "POST", url: `/app/api/subaccounts/${sub.id}/suspend` });
    expect(json<Sub>(suspend)).toMatchObject({ status: "suspended" });
    expectSuspended(await owner.req({ method: "GET", url: "/app/api/session" }), "session");
    // Signing out still works, so the person can leave the "suspended" page.
    expect((await owner.req({ method: "DELETE", url: "/app/api/session" })).statusCode).toBe(204);
    const list = json<{ data: Sub[] }>(await agencyApp.req({ method: "GET", url: "/app/api/subaccounts" }));
    expect(list.data.find((s) => s.id === sub.id)).toMatchObject({ status: "suspended" });
    const resume = await agencyApp.req({ method: "POST", url: `/app/api/subaccounts/${sub.id}/resume` });
    expect(json<Sub>(resume)).toMatchObject({ status: "active", suspendedAt: null });

    const renamed = await agencyApp.req({
      method: "PATCH",
      url: `/app/api/subaccounts/${sub.id}`,
      payload: { name: "  Acme Bikes  " },
    });
    expect(json<Sub>(renamed).name).toBe("Acme Bikes");
    for (const payload of [{ name: "" }, { name: "   " }, { name: "x".repeat(201) }, {}, { name: 5 }]) {
      const bad = await agencyApp.req({ method: "PATCH", url: `/app/api/subaccounts/${sub.id}`, payload });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
    }
    const long = await agencyApp.req({
      method: "POST",
      url: `/app/api/subaccounts/${"x".repeat(65)}/suspend`,
    });
    expect(long.statusCode).toBe(400);
    // Without the CSRF header nothing changes.
    const noCsrf = await agencyApp.req({
      method: "POST",
      url: `/app/api/subaccounts/${sub.id}/suspend`,
      csrf: false,
    });
    expect(errorCode(noCsrf)).toBe("CSRF_FAILED");
    const after = json<Sub>(await v1("GET", `/v1/subaccounts/${sub.id}`, agencyKey));
    expect(after).toMatchObject({ name: "Acme Bikes", status: "active" });
  });

  it("another agency's sub-account and the agency itself are 404; a non-agency key is 403", async () => {
    const { sub } = await subWithOwner();
    const other = await newAgency(t);
    const otherApp = await signIn(t, other.email);
    for (const action of ["suspend", "resume"]) {
      const viaKey = await v1("POST", `/v1/subaccounts/${sub.id}/${action}`, other.apiKey);
      expect(viaKey.statusCode).toBe(404);
      expect(errorCode(viaKey)).toBe("SUBACCOUNT_NOT_FOUND");
      const viaApp = await otherApp.req({ method: "POST", url: `/app/api/subaccounts/${sub.id}/${action}` });
      expect(viaApp.statusCode).toBe(404);
      const itself = await v1("POST", `/v1/subaccounts/${agencyId}/${action}`, agencyKey);
      expect(itself.statusCode).toBe(404);
      const bySub = await v1("POST", `/v1/subaccounts/${sub.id}/${action}`, sub.apiKey);
      expect(errorCode(bySub)).toBe("NOT_AGENCY");
    }
    const rename = await otherApp.req({
      method: "PATCH",
      url: `/app/api/subaccounts/${sub.id}`,
      payload: { name: "Mallory" },
    });
    expect(rename.statusCode).toBe(404);
    expect(json<Sub>(await v1("GET", `/v1/subaccounts/${sub.id}`, agencyKey))).toMatchObject({
      name: "Client",
      status: "active",
    });
    // The agency's own key is never suspended by any of this.
    expect((await v1("GET", "/v1/account", agencyKey)).statusCode).toBe(200);
  });
});

// Agency assist (issue 38): an agency owner or admin works inside one client from its own session, for
// a short time, never reaching another client or (as the agency) its own routes; every change made so
// is in the client's audit log, which only the client reads; the client can turn assist off.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, signIn, teammate } from "./app-helpers.ts";
import {
  callWithKey,
  errorCode,
  json,
  type Page,
  startTestApp,
  type TestApp,
  uniqueEmail,
} from "./helpers.ts";

interface SessionState {
  account: { id: string; name: string };
  assist: { clientId: string; clientName: string; agencyName: string; expiresAt: string } | null;
}
interface AuditEntry {
  actor: { email: string };
  agency: { id: string; name: string };
  method: string;
  route: string;
  objectId: string | null;
  createdAt: string;
}

async function client(t: TestApp, agencyId: string, name: string) {
  const email = uniqueEmail("client");
  const acc = await t.account({ email, name, kind: "subaccount", parentAccountId: agencyId });
  return { ...acc, email };
}

const sessionOf = async (b: Browser) =>
  json<SessionState>(await b.req({ method: "GET", url: "/app/api/session" }));
const assist = (b: Browser, accountId: string) =>
  b.req({ method: "POST", url: "/app/api/assist", payload: { accountId } });

describe("agency assist", () => {
  let t: TestApp;
  let agency: Browser;
  let agencyId: string;
  let acme: Awaited<ReturnType<typeof client>>;
  let globex: Awaited<ReturnType<typeof client>>;
  beforeAll(async () => {
    t = await startTestApp();
    const email = uniqueEmail("agency");
    agencyId = (await t.account({ email, name: "Big Agency", kind: "agency" })).accountId;
    agency = await signIn(t, email);
    acme = await client(t, agencyId, "ACME");
    globex = await client(t, agencyId, "Globex");
  });
  afterAll(async () => t?.close());

  it("acts inside one client only, and every change is in that client's audit log", async () => {
    const other = await t.account({ kind: "agency" });
    const foreign = await client(t, other.accountId, "Foreign");
    expect(errorCode(await assist(agency, foreign.accountId))).toBe("SUBACCOUNT_NOT_FOUND");
    const globexContact = json<{ id: string }>(
      await callWithKey(t, "POST", "/v1/contacts", globex.apiKey, { phone: "+14155550101" }),
    );
    expect(globexContact.id).toMatch(/^ct_/);
    const started = await assist(agency, acme.accountId);
    expect(started.statusCode, started.body).toBe(200);
    expect(json(started)).toMatchObject({
      clientId: acme.accountId,
      clientName: "ACME",
      agencyName: "Big Agency",
    });
    expect(await sessionOf(agency)).toMatchObject({
      account: { id: acme.accountId, name: "ACME" },
      assist: { clientName: "ACME" },
    });
    // Another client's contact, and the agency's own routes, are out of reach while assisting.
    const cross = await agency.req({ method: "GET", url: `/app/api/contacts/${globexContact.id}` });
    expect(cross.statusCode).toBe(404);
    expect(errorCode(await agency.req({ method: "GET", url: "/app/api/subaccounts" }))).toBe("NOT_AGENCY");
    // Its password and profile are not changed from inside a client, nor the client's assist switch.
    const profile = await agency.req({ method: "PATCH", url: "/app/api/profile", payload: { name: "X" } });
    expect(profile.statusCode).toBe(403);
    const flip = await agency.req({
      method: "PUT",
      url: "/app/api/settings/assist",
      payload: { allowed: true },
    });
    expect(flip.statusCode).toBe(403);

    const made = await agency.req({
      method: "POST",
      url: "/app/api/contacts",
      payload: { phone: "+14155550102", labels: ["vip"] },
    });
    expect(made.statusCode, made.body).toBe(201);
    const contactId = json<{ id: string }>(made).id;
    const patched = await agency.req({
      method: "PATCH",
      url: `/app/api/contacts/${contactId}`,
      payload: { firstName: "Ada" },
    });
    expect(patched.statusCode, patched.body).toBe(200);

    // The switcher moves the assist to the other client, then back to the agency.
    expect((await assist(agency, globex.accountId)).statusCode).toBe(200);
    expect((await sessionOf(agency)).account.id).toBe(globex.accountId);
    expect((await agency.req({ method: "DELETE", url: "/app/api/assist" })).statusCode).toBe(204);
    const back = await sessionOf(agency);
    expect(back.account.id).toBe(agencyId);
    expect(back.assist).toBeNull();
    expect((await agency.req({ method: "GET", url: "/app/api/subaccounts" })).statusCode).toBe(200);

    // The client reads who did what, when.
    const owner = await signIn(t, acme.email);
    const log = json<Page<AuditEntry>>(await owner.req({ method: "GET", url: "/app/api/audit-log" }));
    expect(log.data.map((e) => [e.method, e.route, e.objectId])).toEqual([
      ["PATCH", "/app/api/contacts/:contactId", contactId],
      ["POST", "/app/api/contacts", contactId],
      ["POST", "assist started", null],
    ]);
    expect(log.data[0]).toMatchObject({
      actor: { email: agency.session.user.email },
      agency: { id: agencyId, name: "Big Agency" },
    });
    expect(Date.parse(log.data[0]!.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    // Paged: one entry a page, newest first.
    const first = json<Page<AuditEntry>>(
      await owner.req({ method: "GET", url: "/app/api/audit-log?limit=1" }),
    );
    expect(first.hasMore).toBe(true);
    const second = json<Page<AuditEntry>>(
      await owner.req({ method: "GET", url: `/app/api/audit-log?limit=1&cursor=${first.nextCursor}` }),
    );
    expect(second.data[0]?.method).toBe("POST");
    // Another account never sees it; the client's agents do not read it.
    const globexOwner = await signIn(t, globex.email);
    const theirs = json<Page<AuditEntry>>(
      await globexOwner.req({ method: "GET", url: "/app/api/audit-log" }),
    );
    expect(theirs.data.map((e) => e.route)).toEqual(["assist started"]);
    const agent = await teammate(t, owner, "agent");
    expect((await agent.req({ method: "GET", url: "/app/api/audit-log" })).statusCode).toBe(403);
  });

  it("is refused when the client turned it off, and for the agency's agents", async () => {
    expect((await assist(agency, globex.accountId)).statusCode).toBe(200);
    const owner = await signIn(t, globex.email);
    const off = await owner.req({
      method: "PUT",
      url: "/app/api/settings/assist",
      payload: { allowed: false },
    });
    expect(json(off)).toEqual({ allowed: false });
    // The running assist ends at once; a new one is refused with the reason.
    expect((await sessionOf(agency)).account.id).toBe(agencyId);
    const refused = await assist(agency, globex.accountId);
    expect(refused.statusCode).toBe(403);
    expect(json<{ error: { message: string } }>(refused).error.message).toMatch(
      /Globex turned agency assist off/,
    );
    await owner.req({ method: "PUT", url: "/app/api/settings/assist", payload: { allowed: true } });
    expect(json(await owner.req({ method: "GET", url: "/app/api/settings/assist" }))).toEqual({
      allowed: true,
    });

    const agent = await teammate(t, agency, "agent");
    const denied = await assist(agent, acme.accountId);
    expect(denied.statusCode).toBe(403);
    expect(errorCode(denied)).toBe("FORBIDDEN");
    expect((await agent.req({ method: "GET", url: "/app/api/assist/clients" })).statusCode).toBe(403);
  });

  it("lists the agency's clients for the switcher, with balance and what needs a human", async () => {
    await t.parley.db.write((trx) =>
      trx.updateTable("accounts").set({ credits: 1250 }).where("id", "=", acme.accountId).execute(),
    );
    const list = json<{ data: Array<{ id: string; name: string; balance: number; needsHuman: number }> }>(
      await agency.req({ method: "GET", url: "/app/api/assist/clients?search=acm" }),
    );
    expect(list.data).toEqual([
      { id: acme.accountId, name: "ACME", balance: 12.5, needsHuman: 0, suspended: false },
    ]);
    // While assisting, the switcher still lists the agency's clients.
    await assist(agency, acme.accountId);
    const all = json<{ data: Array<{ name: string }> }>(
      await agency.req({ method: "GET", url: "/app/api/assist/clients" }),
    );
    expect(all.data.map((c) => c.name)).toEqual(["ACME", "Globex"]);
    await agency.req({ method: "DELETE", url: "/app/api/assist" });
  });
});

describe("agency assist expiry", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ASSIST_SESSION_SECONDS: "1" });
  });
  afterAll(async () => t?.close());

  it("ends by itself: the browser is back in the agency", async () => {
    const email = uniqueEmail("agency");
    const agencyId = (await t.account({ email, kind: "agency" })).accountId;
    const agency = await signIn(t, email);
    const acme = await client(t, agencyId, "ACME");
    expect((await assist(agency, acme.accountId)).statusCode).toBe(200);
    expect((await sessionOf(agency)).account.id).toBe(acme.accountId);
    const deadline = Date.now() + 5_000;
    let state = await sessionOf(agency);
    while (state.account.id !== agencyId && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      state = await sessionOf(agency);
    }
    expect(state.account.id).toBe(agencyId);
    expect(state.assist).toBeNull();
  });
});

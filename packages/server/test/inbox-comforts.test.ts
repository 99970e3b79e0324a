// Issue 33's daily comforts on the server: a person's reply hands a "needs a human" conversation back
// (and the thread says who), a failed message says when it is retried and which attempt of how many,
// the owner's display name (onboarding and the profile), a sub-account's own balance, and the
// session probe that answers 200 when nobody is signed in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "../src/modules/accounts/service.ts";
import { browserFrom, ownerBrowser, PASSWORD, signIn, teammate } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { json, startTestApp, type TestApp } from "./helpers.ts";

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

async function conversationOf(apiKey: string, fromId: string, browser: Awaited<ReturnType<typeof signIn>>) {
  const res = await postIncoming(t, apiKey, { customData: customData({ fromId, body: "hello" }) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  const list = json<{ data: Array<{ id: string; contact: { fromId: string } }> }>(
    await browser.req({ method: "GET", url: "/app/api/conversations" }),
  );
  return list.data.find((c) => c.contact.fromId === fromId)?.id as string;
}

describe("inbox comforts", () => {
  // First: onboarding needs a server without accounts.
  it("onboarding takes the owner's name; the profile sets and clears it", async () => {
    const res = await t.inject({
      method: "POST",
      url: "/app/api/onboarding",
      payload: {
        businessName: "Sam's Shop",
        name: "  Sam Owner ",
        email: "sam@example.com",
        password: PASSWORD,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(json(res)).toMatchObject({ user: { name: "Sam Owner", role: "owner" } });
    const sam = browserFrom(t, res);

    const renamed = await sam.req({
      method: "PATCH",
      url: "/app/api/profile",
      payload: { name: "Samantha" },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(json(renamed)).toMatchObject({ user: { name: "Samantha" } });
    const team = json<{ members: Array<{ email: string; name: string | null }> }>(
      await sam.req({ method: "GET", url: "/app/api/team" }),
    );
    expect(team.members.find((m) => m.email === "sam@example.com")?.name).toBe("Samantha");
    // Blank clears it; too long is a 400 that changes nothing; without a session, 401.
    expect(
      json(await sam.req({ method: "PATCH", url: "/app/api/profile", payload: { name: " " } })),
    ).toMatchObject({
      user: { name: null },
    });
    const long = await sam.req({
      method: "PATCH",
      url: "/app/api/profile",
      payload: { name: "x".repeat(201) },
    });
    expect(long.statusCode).toBe(400);
    const anonymous = await t.inject({ method: "PATCH", url: "/app/api/profile", payload: { name: "Eve" } });
    expect(anonymous.statusCode).toBe(401);
  });

  it("the session probe answers 200 signed in or not; GET /session still answers 401", async () => {
    const out = await t.inject({ method: "GET", url: "/app/api/session/state" });
    expect(out.statusCode).toBe(200);
    expect(json(out)).toEqual({ signedIn: false });
    const bogus = await t.inject({
      method: "GET",
      url: "/app/api/session/state",
      headers: { cookie: "parley_session=nope" },
    });
    expect(json(bogus)).toEqual({ signedIn: false });
    expect((await t.inject({ method: "GET", url: "/app/api/session" })).statusCode).toBe(401);
    const { browser } = await ownerBrowser(t);
    const inside = json<{ signedIn: boolean; session: { csrfToken: string; user: { id: string } } }>(
      await browser.req({ method: "GET", url: "/app/api/session/state" }),
    );
    expect(inside).toMatchObject({ signedIn: true, session: { user: { id: browser.session.user.id } } });
    expect(inside.session.csrfToken).toBe(browser.csrf);
  });

  it("a person's reply clears 'needs a human' and the thread says who took it back", async () => {
    const { acc, browser: owner } = await ownerBrowser(t);
    const agent = await teammate(t, owner, "agent", "Sam Agent");
    const conversationId = await conversationOf(acc.apiKey, "needs-1", owner);
    await t.parley.db.kysely
      .updateTable("conversations")
      .set({ human_alert: 1, human_alert_reason: "no_answer" })
      .where("id", "=", conversationId)
      .execute();
    const reply = await agent.req({
      method: "POST",
      url: `/app/api/conversations/${conversationId}/messages`,
      payload: { body: "Sam here" },
    });
    expect(reply.statusCode, reply.body).toBe(201);
    const detail = json<{
      conversation: { humanAlert: boolean; humanAlertReason: string | null };
      events: Array<{ kind: string; userName: string | null; createdAt: string }>;
    }>(await owner.req({ method: "GET", url: `/app/api/conversations/${conversationId}` }));
    expect(detail.conversation).toMatchObject({ humanAlert: false, humanAlertReason: null });
    expect(detail.events).toEqual([expect.objectContaining({ kind: "handed_back", userName: "Sam Agent" })]);
    // Another reply while nothing needs a person records nothing more.
    await owner.req({
      method: "POST",
      url: `/app/api/conversations/${conversationId}/messages`,
      payload: { body: "and the owner" },
    });
    const again = json<{ events: unknown[] }>(
      await owner.req({ method: "GET", url: `/app/api/conversations/${conversationId}` }),
    );
    expect(again.events).toHaveLength(1);
    expect(
      (await owner.req({ method: "GET", url: "/app/api/conversations?humanAlert=true" })).body,
    ).not.toContain(conversationId);
  });

  it("a failed message with retries left says when and which attempt of how many", async () => {
    const { acc, browser } = await ownerBrowser(t);
    // Nothing listens there: the attempt fails at once and a retry is scheduled.
    await updateSettings(t.parley.db, acc.accountId, { webhook_url: "http://127.0.0.1:1/hook" });
    const conversationId = await conversationOf(acc.apiKey, "retry-1", browser);
    const sent = json<{ id: string; retry: unknown }>(
      await browser.req({
        method: "POST",
        url: `/app/api/conversations/${conversationId}/messages`,
        payload: { body: "will fail" },
      }),
    );
    expect(sent.retry).toBeNull();
    type Msg = {
      id: string;
      status: string;
      retry: { nextAttemptAt: string; attempt: number; maxAttempts: number } | null;
    };
    const messageOf = async () =>
      json<{ messages: Msg[] }>(
        await browser.req({ method: "GET", url: `/app/api/conversations/${conversationId}` }),
      ).messages.find((m) => m.id === sent.id) as Msg;
    const until = Date.now() + 10_000;
    while ((await messageOf()).status !== "failed") {
      await t.parley.worker.drain();
      if (Date.now() > until) throw new Error("the attempt did not fail in time");
      await new Promise((r) => setTimeout(r, 20));
    }
    const failed = await messageOf();
    expect(failed.retry).toMatchObject({
      attempt: 2,
      maxAttempts: t.config.deliveryRetryScheduleSeconds.length + 1,
    });
    expect(Date.parse(failed.retry?.nextAttemptAt ?? "")).toBeGreaterThan(Date.now());
  });

  it("a sub-account reads its own balance; every account has one", async () => {
    const agency = await t.account({ kind: "agency" });
    const email = `sub-${Date.now()}@example.com`;
    await t.account({ email, kind: "subaccount", parentAccountId: agency.accountId, credits: 12.5 });
    const sub = await signIn(t, email);
    const res = await sub.req({ method: "GET", url: "/app/api/credits" });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ balance: 12.5 });
    expect((await t.inject({ method: "GET", url: "/app/api/credits" })).statusCode).toBe(401);
  });
});

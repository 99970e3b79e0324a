// Hardening of the web app's door: no invite, CSRF or setup token in the logs; sign-in throttled per
// (e-mail, client address) with growing delays, so failures from elsewhere never lock a person out;
// the password change throttled per (user, address); live streams (SSE) end at once when their
// session ends (sign-out, removal, password change), on this node and on another one; a too-short
// password is answered with the real rule.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { type Browser, ownerBrowser, PASSWORD, signIn, teammate } from "./app-helpers.ts";
import { DIALECT, errorCode, json, LogCapture, startTestApp, type TestApp } from "./helpers.ts";

const message = (res: { body: string }) => json<{ error: { message: string } }>(res as never).error.message;

describe("logs", () => {
  it("never contain an invite token, a CSRF token or the setup token", async () => {
    const logs = new LogCapture();
    const t = await startTestApp({ LOG_LEVEL: "trace" }, { logStream: logs });
    try {
      const setupToken = t.parley.ctx.setup.token as string;
      await t.inject({ method: "GET", url: `/app/api/onboarding?setupToken=${setupToken}` });
      const { browser: owner } = await ownerBrowser(t);
      const inv = await owner.req({
        method: "POST",
        url: "/app/api/team/invites",
        payload: { email: "logged@example.com", role: "agent" },
      });
      expect(inv.statusCode, inv.body).toBe(201);
      const token = json<{ url: string }>(inv).url.split("/invite/")[1] as string;
      // The page of the link, its look-up, a wrong then a right acceptance.
      await t.inject({ method: "GET", url: `/invite/${token}` });
      expect((await t.inject({ method: "GET", url: `/app/api/invites/${token}` })).statusCode).toBe(200);
      const short = await t.inject({
        method: "POST",
        url: `/app/api/invites/${token}/accept`,
        payload: { password: "x" },
      });
      expect(short.statusCode).toBe(400);
      const accepted = await t.inject({
        method: "POST",
        url: `/app/api/invites/${token}/accept`,
        payload: { password: PASSWORD },
      });
      expect(accepted.statusCode, accepted.body).toBe(201);
      // The token once used, and a path below it that does not exist.
      await t.inject({ method: "GET", url: `/app/api/invites/${token}` });
      await t.inject({ method: "GET", url: `/app/api/invites/${token}/nope` });
      // A password-reset token, on the page and on the API (unknown or not, it is a secret).
      const resetToken = "Zr4nd0mResetT0kenZr4nd0mResetT0ken123";
      await t.inject({ method: "GET", url: `/reset-password/${resetToken}` });
      await t.inject({ method: "GET", url: `/app/api/password-resets/${resetToken}` });
      await t.inject({
        method: "POST",
        url: `/app/api/password-resets/${resetToken}`,
        payload: { password: "a long enough new password" },
      });
      // A state-changing request carries the CSRF header; a wrong one is logged too.
      const csrf = owner.csrf;
      expect((await owner.req({ method: "PATCH", url: "/app/api/settings", payload: {} })).statusCode).toBe(
        200,
      );
      await owner.req({
        method: "DELETE",
        url: "/app/api/session",
        csrf: false,
        headers: { "x-csrf-token": `${csrf}x` },
      });
      expect(logs.lines.length).toBeGreaterThan(10);
      expect(logs.text).toContain("/app/api/invites/[REDACTED]");
      expect(logs.text).toContain("/app/api/password-resets/[REDACTED]");
      expect(logs.text).toContain("/reset-password/[REDACTED]");
      for (const secret of [token, token.slice(0, 20), csrf, csrf.slice(0, 20), setupToken, resetToken]) {
        expect(logs.text).not.toContain(secret);
      }
    } finally {
      await t.close();
    }
  });
});

describe("password rules", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it("a too-short password is answered with the minimum length, not 'must not be empty'", async () => {
    const { browser } = await ownerBrowser(t);
    const res = await browser.req({
      method: "POST",
      url: "/app/api/password",
      payload: { currentPassword: PASSWORD, newPassword: "12345" },
    });
    expect(res.statusCode).toBe(400);
    expect(errorCode(res)).toBe("VALIDATION_ERROR");
    expect(message(res)).toBe("newPassword must be at least 8 characters");
    const inv = await browser.req({
      method: "POST",
      url: "/app/api/team/invites",
      payload: { email: "short@example.com", role: "agent" },
    });
    const token = json<{ url: string }>(inv).url.split("/invite/")[1] as string;
    const accept = await t.inject({
      method: "POST",
      url: `/app/api/invites/${token}/accept`,
      payload: { password: "12345" },
    });
    expect(accept.statusCode).toBe(400);
    expect(message(accept)).toBe("password must be at least 8 characters");
    // A field that must merely be non-empty still says so (a reply's text may be empty only
    // beside an attachment, so the rule lives in the service and names blanks too).
    const blank = await browser.req({
      method: "POST",
      url: "/app/api/conversations/cv_x/messages",
      payload: { body: "" },
    });
    expect(message(blank)).toBe("body must not be empty or whitespace-only");
  });
});

describe("sign-in throttling", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const attempt = (email: string, password: string, remoteAddress: string) =>
    t.inject({ method: "POST", url: "/app/api/session", remoteAddress, payload: { email, password } });
  /** Moves every recorded failure `ms` into the past (as if that time had gone by). */
  const age = (ms: number) =>
    t.parley.db.write((trx) =>
      trx
        .updateTable("sign_in_failures")
        .set((eb) => ({ created_at: eb("created_at", "-", ms) }))
        .execute(),
    );

  it("failures for an e-mail from other addresses never lock its owner out", async () => {
    await t.account({ email: "victim@example.com" });
    for (let i = 0; i < 30; i++) {
      const res = await attempt("victim@example.com", `wrong-${i}`, `198.51.100.${(i % 3) + 1}`);
      expect([401, 429]).toContain(res.statusCode);
    }
    const own = await attempt("VICTIM@example.com", PASSWORD, "203.0.113.10");
    expect(own.statusCode, own.body).toBe(200);
  });

  it("a (e-mail, address) pair waits a growing delay after 5 failures, the password unchecked", async () => {
    await t.account({ email: "pair@example.com" });
    const from = "203.0.113.20";
    for (let i = 0; i < 5; i++) {
      expect((await attempt("pair@example.com", `wrong-${i}`, from)).statusCode).toBe(401);
    }
    const blocked = await attempt("pair@example.com", PASSWORD, from);
    expect(blocked.statusCode).toBe(429);
    expect(errorCode(blocked)).toBe("RATE_LIMITED");
    const first = Number(blocked.headers["retry-after"]);
    expect(first).toBeGreaterThanOrEqual(1);
    // The same e-mail from another address is not affected.
    expect((await attempt("pair@example.com", "still wrong", "203.0.113.21")).statusCode).toBe(401);
    // After the wait, one more try; a failure makes the next wait longer.
    await age(first * 1000);
    expect((await attempt("pair@example.com", "wrong again", from)).statusCode).toBe(401);
    const longer = await attempt("pair@example.com", PASSWORD, from);
    expect(longer.statusCode).toBe(429);
    expect(Number(longer.headers["retry-after"])).toBeGreaterThan(first);
    // After that wait the right password signs in, and the count starts again.
    await age(Number(longer.headers["retry-after"]) * 1000);
    expect((await attempt("pair@example.com", PASSWORD, from)).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) {
      expect((await attempt("pair@example.com", `wrong-${i}`, from)).statusCode).toBe(401);
    }
  });

  it("an address spraying many e-mails is slowed, but not for people who signed in from it before", async () => {
    await t.account({ email: "regular@example.com" });
    await t.account({ email: "newcomer@example.com" });
    const nat = "192.0.2.77";
    expect((await attempt("regular@example.com", PASSWORD, nat)).statusCode).toBe(200);
    for (let i = 0; i < 100; i++) {
      const res = await attempt(`spray-${i}@example.com`, "Password1!", nat);
      expect(res.statusCode).toBe(401);
    }
    const sprayed = await attempt("spray-x@example.com", "Password1!", nat);
    expect(sprayed.statusCode).toBe(429);
    expect(Number(sprayed.headers["retry-after"])).toBeGreaterThan(0);
    const fresh = await attempt("newcomer@example.com", PASSWORD, nat);
    expect(fresh.statusCode).toBe(429);
    // Someone who signed in from this address before still can; so can anyone elsewhere.
    expect((await attempt("regular@example.com", PASSWORD, nat)).statusCode).toBe(200);
    expect((await attempt("newcomer@example.com", PASSWORD, "192.0.2.78")).statusCode).toBe(200);
  });

  it("the password change is throttled per (user, address): the right password after 14 wrong is refused", async () => {
    const { browser } = await ownerBrowser(t, "changer@example.com");
    const change = (currentPassword: string, remoteAddress = "203.0.113.30") =>
      browser.req({
        method: "POST",
        url: "/app/api/password",
        remoteAddress,
        payload: { currentPassword, newPassword: "a brand new password" },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) statuses.push((await change(`wrong-${i}`)).statusCode);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
    const right = await change(PASSWORD);
    expect(right.statusCode).toBe(429);
    expect(errorCode(right)).toBe("RATE_LIMITED");
    expect(Number(right.headers["retry-after"])).toBeGreaterThan(0);
    // Not changed: the old password still signs in.
    await signIn(t, "changer@example.com", PASSWORD);
    await age(3600_000);
    expect((await change(PASSWORD)).statusCode).toBe(204);
    await signIn(t, "changer@example.com", "a brand new password");
  });
});

/** An SSE stream of /app/api/events over a real connection; `ended` settles when the server ends it. */
async function openStream(port: number, browser: Browser) {
  let text = "";
  let resolveEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    resolveEnded = resolve;
  });
  let isEnded = false;
  const req = http.get(
    { host: "127.0.0.1", port, path: "/app/api/events", headers: { cookie: browser.cookie } },
    (res) => {
      expect(res.statusCode).toBe(200);
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => {
        isEnded = true;
        resolveEnded();
      });
      res.on("close", () => {
        isEnded = true;
        resolveEnded();
      });
    },
  );
  req.on("error", () => {
    isEnded = true;
    resolveEnded();
  });
  const until = Date.now() + 5000;
  while (!text.includes(": connected")) {
    if (Date.now() > until) throw new Error("SSE did not connect");
    await new Promise((r) => setTimeout(r, 10));
  }
  return {
    /** Resolves when the stream ended; rejects after a few seconds (the old behaviour took 25 s). */
    endedSoon: () =>
      Promise.race([
        ended,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("the stream is still open")), 4000),
        ),
      ]),
    get ended() {
      return isEnded;
    },
    close: () => req.destroy(),
  };
}

describe("live streams end with their session", () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp();
    await t.parley.app.listen({ port: 0, host: "127.0.0.1" });
    port = (t.parley.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t?.close());

  it("ends at once when the session signs out", async () => {
    const { browser } = await ownerBrowser(t);
    const stream = await openStream(port, browser);
    try {
      const out = await browser.req({ method: "DELETE", url: "/app/api/session" });
      expect(out.statusCode).toBe(204);
      await stream.endedSoon();
    } finally {
      stream.close();
    }
  });

  it("ends the other sessions' streams when the password changes, not the changer's own", async () => {
    const { browser } = await ownerBrowser(t, "streams@example.com");
    const other = await signIn(t, "streams@example.com");
    const mine = await openStream(port, browser);
    const theirs = await openStream(port, other);
    try {
      const changed = await browser.req({
        method: "POST",
        url: "/app/api/password",
        payload: { currentPassword: PASSWORD, newPassword: "another password" },
      });
      expect(changed.statusCode).toBe(204);
      await theirs.endedSoon();
      await new Promise((r) => setTimeout(r, 200));
      expect(mine.ended).toBe(false);
    } finally {
      mine.close();
      theirs.close();
    }
  });

  it("ends a removed teammate's stream", async () => {
    const { browser: owner } = await ownerBrowser(t);
    const agent = await teammate(t, owner, "agent");
    const stream = await openStream(port, agent);
    try {
      const removed = await owner.req({
        method: "DELETE",
        url: `/app/api/team/members/${agent.session.user.id}`,
      });
      expect(removed.statusCode).toBe(204);
      await stream.endedSoon();
    } finally {
      stream.close();
    }
  });

  it.runIf(DIALECT === "postgres")("ends a stream held by another API node (PostgreSQL)", async () => {
    const second = await buildApp(t.config, { worker: { pollIntervalMs: 20, leaseMs: 5_000 } });
    try {
      await second.app.listen({ port: 0, host: "127.0.0.1" });
      const secondPort = (second.app.server.address() as AddressInfo).port;
      const { browser } = await ownerBrowser(t);
      // Give the second node's LISTEN connection time to come up.
      await new Promise((r) => setTimeout(r, 300));
      const stream = await openStream(secondPort, browser);
      try {
        const out = await browser.req({ method: "DELETE", url: "/app/api/session" });
        expect(out.statusCode).toBe(204);
        await stream.endedSoon();
      } finally {
        stream.close();
      }
    } finally {
      await second.close();
    }
  });
});

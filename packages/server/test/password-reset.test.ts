// "Forgot password" and invitations by e-mail (issue 35), through the real HTTP routes, the real job
// worker and nodemailer, into a local SMTP server (stand-ins/smtp.ts): the link arrives, works once,
// expires, ends every session; unknown addresses get the same answer and no e-mail; requests per
// address are limited silently; invites (a teammate, a sub-account's owner) arrive by e-mail.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserFrom, ownerBrowser, PASSWORD, signIn } from "./app-helpers.ts";
import { errorCode, json, newAgency, startTestApp, type TestApp, uniqueEmail } from "./helpers.ts";
import { type ReceivedEmail, type SmtpStandIn, startSmtpStandIn } from "./stand-ins/smtp.ts";

const NEW_PASSWORD = "a brand new passphrase";

function linkIn(mail: ReceivedEmail, path: "reset-password" | "invite"): { url: string; token: string } {
  const match = new RegExp(`(https://\\S+/${path}/([\\w-]+))`).exec(mail.text);
  if (!match?.[1] || !match[2]) throw new Error(`no ${path} link in: ${mail.text}`);
  return { url: match[1], token: match[2] };
}

describe("password reset and invites by e-mail", () => {
  let t: TestApp;
  let smtp: SmtpStandIn;

  beforeAll(async () => {
    smtp = await startSmtpStandIn();
    t = await startTestApp({ SMTP_URL: smtp.url, SMTP_FROM: "Parley <parley@example.test>" });
    t.parley.worker.start();
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const ask = (email: string) =>
    t.inject({ method: "POST", url: "/app/api/password-resets", payload: { email } });
  const describeLink = (token: string) =>
    t.inject({ method: "GET", url: `/app/api/password-resets/${token}` });
  const reset = (token: string, password: string) =>
    t.inject({ method: "POST", url: `/app/api/password-resets/${token}`, payload: { password } });
  const resetMailTo = (email: string) =>
    smtp.waitFor((m) => m.to.includes(email) && m.subject === "Reset your Parley password");

  it("e-mails a link that works once, ends every session and clears the sign-in delays", async () => {
    const { acc, browser: first } = await ownerBrowser(t);
    const email = first.session.user.email;
    const second = await signIn(t, email);
    // A forgotten password: guesses from this address until sign-in makes the person wait.
    for (let i = 0; i < 5; i++) {
      const res = await t.inject({
        method: "POST",
        url: "/app/api/session",
        payload: { email, password: "not the password" },
      });
      expect(res.statusCode).toBe(401);
    }
    const waiting = await t.inject({
      method: "POST",
      url: "/app/api/session",
      payload: { email, password: PASSWORD },
    });
    expect(waiting.statusCode).toBe(429);

    // Upper case and spaces: the address is normalised as sign-in does.
    const asked = await ask(`  ${email.toUpperCase()} `);
    expect(asked.statusCode).toBe(202);
    expect(json(asked)).toEqual({ ok: true });
    const mail = await resetMailTo(email);
    expect(mail.from).toBe("parley@example.test");
    expect(mail.headers.from).toContain("parley@example.test");
    const { url, token } = linkIn(mail, "reset-password");
    expect(url).toBe(`https://localhost:80/reset-password/${token}`);
    expect(mail.text).toContain("within an hour");
    // Only the hash is stored.
    const row = await t.parley.db.kysely
      .selectFrom("password_resets")
      .selectAll()
      .where("user_id", "=", acc.userId)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.token_hash).not.toContain(token);
    expect(row.expires_at - row.created_at).toBe(3600_000);

    expect(json(await describeLink(token))).toEqual({ email });
    // A weak password changes nothing, and the link still works.
    const weak = await reset(token, "short");
    expect(weak.statusCode).toBe(400);
    expect(errorCode(weak)).toBe("VALIDATION_ERROR");
    expect((await describeLink(token)).statusCode).toBe(200);

    const done = await reset(token, NEW_PASSWORD);
    expect(done.statusCode, done.body).toBe(204);
    // Used: 404 on both routes, with the page's words.
    const again = await reset(token, "yet another passphrase");
    expect(again.statusCode).toBe(404);
    expect(json<{ error: { code: string; message: string } }>(again).error).toMatchObject({
      code: "NOT_FOUND",
      message: "This link has expired or was already used",
    });
    expect((await describeLink(token)).statusCode).toBe(404);

    // Every session ended; the old password fails, the new one signs in at once (no delay owed).
    for (const b of [first, second]) {
      expect((await b.req({ method: "GET", url: "/app/api/session" })).statusCode).toBe(401);
    }
    const old = await t.inject({
      method: "POST",
      url: "/app/api/session",
      payload: { email, password: PASSWORD },
    });
    expect(old.statusCode).toBe(401);
    await signIn(t, email, NEW_PASSWORD);
  });

  it("answers an unknown address the same way and sends nothing", async () => {
    const unknown = uniqueEmail("nobody");
    const res = await ask(unknown);
    expect(res.statusCode).toBe(202);
    expect(json(res)).toEqual({ ok: true });
    // A known address asked afterwards arrives; nothing ever went to the unknown one.
    const { browser } = await ownerBrowser(t);
    await ask(browser.session.user.email);
    await resetMailTo(browser.session.user.email);
    expect(smtp.messages.filter((m) => m.to.includes(unknown))).toEqual([]);
    // A malformed address is a plain input error (it tells nothing about accounts).
    const bad = await ask("not an address");
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe("INVALID_EMAIL");
    expect((await describeLink("no-such-token")).statusCode).toBe(404);
    expect((await reset("no-such-token", NEW_PASSWORD)).statusCode).toBe(404);
  });

  it("expires a link after an hour", async () => {
    const { acc, browser } = await ownerBrowser(t);
    await ask(browser.session.user.email);
    const { token } = linkIn(await resetMailTo(browser.session.user.email), "reset-password");
    await t.parley.db.write((trx) =>
      trx
        .updateTable("password_resets")
        .set({ expires_at: Date.now() - 1 })
        .where("user_id", "=", acc.userId)
        .execute(),
    );
    expect((await describeLink(token)).statusCode).toBe(404);
    expect((await reset(token, NEW_PASSWORD)).statusCode).toBe(404);
    expect((await browser.req({ method: "GET", url: "/app/api/session" })).statusCode).toBe(200);
  });

  it("lets only one of two simultaneous uses through, and a new password ends older links", async () => {
    const { browser } = await ownerBrowser(t);
    const email = browser.session.user.email;
    await ask(email);
    const firstMail = await resetMailTo(email);
    await ask(email);
    const secondMail = await smtp.waitFor(
      (m) => m !== firstMail && m.to.includes(email) && m.subject === "Reset your Parley password",
    );
    const { token } = linkIn(secondMail, "reset-password");
    const answers = await Promise.all([reset(token, NEW_PASSWORD), reset(token, "the other passphrase")]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([204, 404]);
    // The first link, still unused, died with the new password.
    expect((await describeLink(linkIn(firstMail, "reset-password").token)).statusCode).toBe(404);

    // A password change while signed in ends open links too.
    const { browser: other } = await ownerBrowser(t);
    await ask(other.session.user.email);
    const link = linkIn(await resetMailTo(other.session.user.email), "reset-password");
    const changed = await other.req({
      method: "POST",
      url: "/app/api/password",
      payload: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(changed.statusCode).toBe(204);
    expect((await describeLink(link.token)).statusCode).toBe(404);
  });

  it("limits requests per address silently: still 202, at most 3 links an hour", async () => {
    const { acc, browser } = await ownerBrowser(t);
    for (let i = 0; i < 5; i++) {
      const res = await ask(browser.session.user.email);
      expect(res.statusCode).toBe(202);
    }
    const rows = await t.parley.db.kysely
      .selectFrom("password_resets")
      .select("id")
      .where("user_id", "=", acc.userId)
      .execute();
    expect(rows).toHaveLength(3);
  });

  it("e-mails invites: a teammate's link, and a sub-account owner's", async () => {
    const { browser: owner } = await ownerBrowser(t);
    const invited = uniqueEmail("teammate");
    const res = await owner.req({
      method: "POST",
      url: "/app/api/team/invites",
      payload: { email: invited, role: "agent" },
    });
    expect(res.statusCode, res.body).toBe(201);
    const mail = await smtp.waitFor((m) => m.to.includes(invited));
    expect(mail.subject).toContain("invited you to");
    expect(mail.text).toContain("as an agent");
    expect(linkIn(mail, "invite").url).toBe(json<{ url: string }>(res).url);
    // The link in the e-mail works.
    const accepted = await t.inject({
      method: "POST",
      url: `/app/api/invites/${linkIn(mail, "invite").token}/accept`,
      payload: { name: "Ines", password: PASSWORD },
    });
    expect(accepted.statusCode, accepted.body).toBe(201);
    browserFrom(t, accepted);

    const agency = await newAgency(t);
    const agencyBrowser = await signIn(t, agency.email);
    const subOwner = uniqueEmail("sub-owner");
    const sub = await agencyBrowser.req({
      method: "POST",
      url: "/app/api/subaccounts",
      payload: { email: subOwner, name: "Corner Café" },
    });
    expect(sub.statusCode, sub.body).toBe(201);
    const ownerMail = await smtp.waitFor((m) => m.to.includes(subOwner));
    expect(ownerMail.subject).toBe("Your Parley account Corner Café is ready");
    expect(linkIn(ownerMail, "invite").url).toBe(json<{ ownerInvite: { url: string } }>(sub).ownerInvite.url);
  });
});

describe("without SMTP_URL", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it("still answers a reset request 202; an invite queues no e-mail", async () => {
    const { browser } = await ownerBrowser(t);
    expect((await askReset(t, browser.session.user.email)).statusCode).toBe(202);
    const res = await browser.req({
      method: "POST",
      url: "/app/api/team/invites",
      payload: { email: uniqueEmail("quiet"), role: "agent" },
    });
    expect(res.statusCode).toBe(201);
    const jobs = await t.parley.db.kysely
      .selectFrom("jobs")
      .select("payload")
      .where("type", "=", "email.send")
      .execute();
    // The reset's e-mail is queued (the worker logs it as not sent); the invite's is not.
    expect(jobs).toHaveLength(1);
    expect(String(jobs[0]?.payload)).toContain("Reset your Parley password");
  });
});

const askReset = (t: TestApp, email: string) =>
  t.inject({ method: "POST", url: "/app/api/password-resets", payload: { email } });

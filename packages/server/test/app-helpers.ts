// Helpers for the web app's API tests (/app/api): sign in, then send requests with the session
// cookie and the CSRF header.
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import { json, type TestApp } from "./helpers.ts";

export const PASSWORD = "correct horse battery";

export interface Browser {
  cookie: string;
  csrf: string;
  session: { user: { id: string; email: string; role: string }; account: { id: string } };
  /** A request with the cookie and (unless csrf: false) the CSRF header. */
  req(opts: InjectOptions & { csrf?: boolean }): Promise<LightMyRequestResponse>;
}

export function cookieFrom(res: LightMyRequestResponse): string {
  const raw = res.headers["set-cookie"];
  const line = Array.isArray(raw) ? raw[0] : raw;
  expect(line).toMatch(/^parley_session=/);
  return (line as string).split(";")[0] as string;
}

export function browserFrom(t: TestApp, res: LightMyRequestResponse): Browser {
  const cookie = cookieFrom(res);
  const session = json<Browser["session"] & { csrfToken: string }>(res);
  return {
    cookie,
    csrf: session.csrfToken,
    session,
    req: ({ csrf = true, headers, ...opts }) =>
      t.inject({
        ...opts,
        headers: { cookie, ...(csrf ? { "x-csrf-token": session.csrfToken } : {}), ...headers },
      }),
  };
}

export async function signIn(t: TestApp, email: string, password = PASSWORD): Promise<Browser> {
  const res = await t.inject({
    method: "POST",
    url: "/app/api/session",
    payload: { email, password },
  });
  expect(res.statusCode, res.body).toBe(200);
  return browserFrom(t, res);
}

/** A new account and its owner, signed in. */
export async function ownerBrowser(t: TestApp, email?: string) {
  const acc = await t.account(email ? { email } : {});
  const row = await t.parley.db.kysely
    .selectFrom("users")
    .select("email")
    .where("id", "=", acc.userId)
    .executeTakeFirstOrThrow();
  return { acc, browser: await signIn(t, row.email) };
}

/** Invites a teammate with `role` through the owner's browser and signs them in. */
export async function teammate(t: TestApp, owner: Browser, role: "admin" | "agent", name = "Tea Mate") {
  const email = `${role}-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const inv = await owner.req({ method: "POST", url: "/app/api/team/invites", payload: { email, role } });
  expect(inv.statusCode, inv.body).toBe(201);
  const token = json<{ url: string }>(inv).url.split("/invite/")[1] as string;
  const res = await t.inject({
    method: "POST",
    url: `/app/api/invites/${token}/accept`,
    payload: { name, password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(201);
  return browserFrom(t, res);
}

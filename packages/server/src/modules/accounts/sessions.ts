// Browser sessions of the web app: e-mail + argon2id password sign-in (failures counted in the
// database per (e-mail, address) and per address with growing delays, sign-in-throttle.ts, so every
// node enforces the same limits), a random cookie token stored only as its SHA-256, a per-session
// CSRF token, 30-day sliding expiry.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { hash as argon2Hash, verify as argon2Verify } from "@node-rs/argon2";
import type { Db } from "../../platform/db/index.ts";
import type { AccountRow, SessionRow, UserRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { normaliseEmail } from "../../platform/text.ts";
import { findAccountById } from "./repo.ts";
import { isSuspended, suspendedError } from "./service.ts";
import { oneAtATime, PAIR_WINDOW_MS, requireAddressAllowed, requirePairAllowed } from "./sign-in-throttle.ts";
import * as users from "./users-repo.ts";

export const SESSION_COOKIE = "parley_session";
export const SESSION_TTL_MS = 30 * 24 * 3600_000;
/** A session is extended (one write) at most once a day. */
const EXTEND_AFTER_MS = 24 * 3600_000;
export const MIN_PASSWORD_LENGTH = 8;

export type Role = UserRow["role"];

export interface SessionInfo {
  session: SessionRow;
  user: UserRow;
  account: AccountRow;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Constant-time string equality. */
export function sameSecret(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

export function checkPassword(password: string, field = "password"): void {
  if (typeof password !== "string" || password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError("VALIDATION_ERROR", `${field} must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
}

export function hashPassword(password: string): Promise<string> {
  return argon2Hash(password);
}

// A fixed hash to verify against when the e-mail is unknown, so both cases take the same time.
let dummyHash: Promise<string> | null = null;

export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  dummyHash ??= argon2Hash("parley-no-such-user");
  const against = hash ?? (await dummyHash);
  const ok = await argon2Verify(against, password).catch(() => false);
  return ok && hash !== null;
}

/** A new session for the user; the token goes into the cookie and is never stored. */
export async function createSession(
  db: Db,
  user: Pick<UserRow, "id" | "account_id">,
): Promise<{ token: string; session: SessionRow }> {
  const token = newToken();
  const now = Date.now();
  const session: SessionRow = {
    id: `ses_${randomBytes(16).toString("base64url")}`,
    account_id: user.account_id,
    user_id: user.id,
    token_hash: hashToken(token),
    csrf_token: randomBytes(24).toString("base64url"),
    created_at: now,
    expires_at: now + SESSION_TTL_MS,
  };
  await db.write(async (trx) => {
    await users.deleteExpiredSessions(trx, now);
    await users.insertSession(trx, session);
  });
  return { token, session };
}

/**
 * The session behind a cookie token, or null (unknown, expired). Extends the expiry (sliding) when
 * the last extension is over a day old; `extended` tells the caller to refresh the cookie.
 */
export async function resolveSession(
  db: Db,
  token: string,
): Promise<(SessionInfo & { extended: boolean }) | null> {
  if (!token || token.length > 200) return null;
  const found = await users.findSessionByTokenHash(db.kysely, hashToken(token));
  const now = Date.now();
  if (!found || found.session.expires_at <= now) return null;
  const account = await findAccountById(db.kysely, found.session.account_id);
  if (!account) return null;
  let extended = false;
  if (found.session.expires_at - now < SESSION_TTL_MS - EXTEND_AFTER_MS) {
    const expiresAt = now + SESSION_TTL_MS;
    await db.write((trx) => users.extendSession(trx, found.session.id, expiresAt));
    found.session.expires_at = expiresAt;
    extended = true;
  }
  return { ...found, account, extended };
}

/** The signed-in person sets their display name (blank clears it); answers the session with it. */
export async function setDisplayName(db: Db, info: SessionInfo, name: string | null): Promise<SessionInfo> {
  const cleaned = name?.trim() || null;
  await db.write((trx) => users.setUserName(trx, info.account.id, info.user.id, cleaned));
  return { ...info, user: { ...info.user, name: cleaned } };
}

/** Signs a session out; its open live stream (on any node) ends at once. */
export async function endSession(db: Db, session: Pick<SessionRow, "id" | "account_id">): Promise<void> {
  await db.write((trx) => users.deleteSession(trx, session.account_id, session.id));
}

/**
 * E-mail + password sign-in. Refused with 429 (before the password is even checked) while this
 * (e-mail, address) pair owes a wait after its recent failures, or while the address is over its
 * ceiling and the e-mail never signed in from it; a failure is recorded for the pair and the address.
 */
export async function signIn(
  db: Db,
  input: { email: string; password: string; address: string },
): Promise<{ token: string; session: SessionRow; user: UserRow }> {
  const email = normaliseEmail(String(input.email ?? ""));
  const pairKey = `pair:${email}|${input.address}`;
  const addressKey = `ip:${input.address}`;
  const knownKey = `ok:${email}|${input.address}`;
  return oneAtATime(pairKey, async () => {
    await requirePairAllowed(db, pairKey, "sign-in attempts");
    await requireAddressAllowed(db, addressKey, knownKey);
    const user = email ? await users.findUserByEmail(db.kysely, email) : undefined;
    const ok = await verifyPassword(user?.password_hash ?? null, String(input.password ?? ""));
    const now = Date.now();
    if (!user || !ok) {
      await db.write((trx) => users.recordFailures(trx, [pairKey, addressKey], now, now - PAIR_WINDOW_MS));
      throw new AppError("INVALID_CREDENTIALS", "The e-mail address or the password is wrong");
    }
    await db.write((trx) => users.resetFailures(trx, [pairKey], [knownKey], now));
    // Told only to whoever knows the password, so suspension cannot be probed by e-mail.
    const account = await findAccountById(db.kysely, user.account_id);
    if (account && isSuspended(account)) throw suspendedError();
    const { token, session } = await createSession(db, user);
    return { token, session, user };
  });
}

/**
 * Changes the signed-in user's password; the user's other sessions end. Wrong current passwords are
 * throttled per (user, address) as sign-in is: a stolen session is no password oracle.
 */
export async function changePassword(
  db: Db,
  info: SessionInfo,
  input: { currentPassword: string; newPassword: string; address: string },
): Promise<void> {
  checkPassword(input.newPassword, "newPassword");
  const key = `pw:${info.user.id}|${input.address}`;
  await oneAtATime(key, async () => {
    await requirePairAllowed(db, key, "password checks");
    if (!(await verifyPassword(info.user.password_hash, input.currentPassword))) {
      const now = Date.now();
      await db.write((trx) => users.recordFailures(trx, [key], now, now - PAIR_WINDOW_MS));
      throw new AppError("INVALID_CREDENTIALS", "currentPassword is wrong");
    }
    const hash = await hashPassword(input.newPassword);
    await db.write(async (trx) => {
      await users.setPasswordHash(trx, info.account.id, info.user.id, hash);
      await users.deleteOtherSessions(trx, info.account.id, info.user.id, info.session.id);
      // A reset link asked for earlier would undo the change: it stops working.
      await users.endPasswordResetsOfUser(trx, info.account.id, info.user.id, Date.now());
      await users.resetFailures(trx, [key], [], Date.now());
    });
  });
}

/** The session JSON of the contract. */
export function sessionView(info: { user: UserRow; account: AccountRow; session: SessionRow }) {
  return {
    user: {
      id: info.user.id,
      email: info.user.email,
      name: info.user.name,
      role: info.user.role,
    },
    account: { id: info.account.id, name: info.account.name, kind: info.account.kind },
    csrfToken: info.session.csrf_token,
  };
}

export function canManage(role: Role): boolean {
  return role === "owner" || role === "admin";
}

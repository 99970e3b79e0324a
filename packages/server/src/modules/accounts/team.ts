// The team of an account: members (owner, admins, agents), invites (a link shown once, valid 7
// days, its token stored hashed) and the one-time onboarding of a fresh install.
import { randomBytes } from "node:crypto";
import type { Transaction } from "kysely";
import type { AppContext } from "../../context.ts";
import { isUniqueViolation } from "../../platform/db/index.ts";
import type { Database, InviteRow, UserRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { iso, isValidEmail, normaliseEmail } from "../../platform/text.ts";
import { findAccountById, insertUser } from "./repo.ts";
import { createAccount } from "./service.ts";
import {
  checkPassword,
  createSession,
  hashPassword,
  hashToken,
  type SessionInfo,
  sameSecret,
} from "./sessions.ts";
import * as users from "./users-repo.ts";

export const INVITE_TTL_MS = 7 * 24 * 3600_000;

export function memberView(u: UserRow) {
  return { id: u.id, email: u.email, name: u.name, role: u.role, createdAt: iso(u.created_at) };
}

export function inviteView(i: InviteRow) {
  return {
    id: i.id,
    email: i.email,
    role: i.role,
    expiresAt: iso(i.expires_at),
    createdAt: iso(i.created_at),
  };
}

export async function teamOf(ctx: Pick<AppContext, "db">, accountId: string) {
  const [members, invites] = await Promise.all([
    users.listUsers(ctx.db.kysely, accountId),
    users.listOpenInvites(ctx.db.kysely, accountId, Date.now()),
  ]);
  return { members: members.map(memberView), invites: invites.map(inviteView) };
}

export function requireManager(info: SessionInfo): void {
  if (info.user.role !== "owner" && info.user.role !== "admin") {
    throw new AppError("FORBIDDEN", "Only the owner and admins can manage the team and the settings");
  }
}

/** A new invite; the token is returned once (the link) and only its hash is kept. */
export async function createInvite(
  ctx: Pick<AppContext, "db">,
  info: SessionInfo,
  input: { email: string; role: "admin" | "agent" },
): Promise<{ invite: InviteRow; token: string }> {
  requireManager(info);
  const email = normaliseEmail(String(input.email ?? ""));
  if (!isValidEmail(email)) throw new AppError("INVALID_EMAIL", `email "${input.email}" is not valid`);
  if (input.role !== "admin" && input.role !== "agent") {
    throw new AppError("VALIDATION_ERROR", "role must be admin or agent");
  }
  if (await users.findUserByEmail(ctx.db.kysely, email)) {
    throw new AppError("ACCOUNT_EXISTS", `a user with e-mail ${email} already exists`);
  }
  const token = randomBytes(32).toString("base64url");
  const now = Date.now();
  const invite: InviteRow = {
    id: `inv_${randomBytes(12).toString("base64url")}`,
    account_id: info.account.id,
    email,
    role: input.role,
    token_hash: hashToken(token),
    created_by: info.user.id,
    created_at: now,
    expires_at: now + INVITE_TTL_MS,
    accepted_at: null,
  };
  await ctx.db.write((trx) => users.insertInvite(trx, invite));
  return { invite, token };
}

export async function revokeInvite(ctx: Pick<AppContext, "db">, info: SessionInfo, inviteId: string) {
  requireManager(info);
  const found = await ctx.db.write((trx) => users.deleteInvite(trx, info.account.id, inviteId));
  if (!found) throw new AppError("NOT_FOUND", `invite ${inviteId} not found`);
}

/** Removes a teammate (never the owner: 409); their sessions end at once. */
export async function removeMember(
  ctx: Pick<AppContext, "db">,
  info: SessionInfo,
  userId: string,
  alsoInTransaction?: (trx: Transaction<Database>) => Promise<void>,
): Promise<void> {
  requireManager(info);
  const user = await users.findUser(ctx.db.kysely, info.account.id, userId);
  if (!user) throw new AppError("NOT_FOUND", `user ${userId} not found`);
  if (user.role === "owner")
    throw new AppError("OWNER_NOT_REMOVABLE", "the account's owner cannot be removed");
  await ctx.db.write(async (trx) => {
    await alsoInTransaction?.(trx);
    await users.deleteUser(trx, info.account.id, userId);
  });
}

export async function describeInvite(ctx: Pick<AppContext, "db">, token: string) {
  const invite = await users.findOpenInviteByTokenHash(ctx.db.kysely, hashToken(token), Date.now());
  if (!invite) throw new AppError("NOT_FOUND", "this invite link is unknown, expired or already used");
  return { email: invite.email, accountName: invite.account_name, role: invite.role };
}

/** Joins the account of the invite: the user is created and signed in; the link is used up. */
export async function acceptInvite(
  ctx: Pick<AppContext, "db">,
  token: string,
  input: { name?: string | null; password: string },
) {
  checkPassword(input.password);
  const invite = await users.findOpenInviteByTokenHash(ctx.db.kysely, hashToken(token), Date.now());
  if (!invite) throw new AppError("NOT_FOUND", "this invite link is unknown, expired or already used");
  const passwordHash = await hashPassword(input.password);
  const userId = newId("user");
  const now = Date.now();
  try {
    await ctx.db.write(async (trx) => {
      if (!(await users.markInviteAccepted(trx, invite.account_id, invite.id, now))) {
        throw new AppError("NOT_FOUND", "this invite link is unknown, expired or already used");
      }
      await insertUser(trx, invite.account_id, {
        id: userId,
        email: invite.email,
        passwordHash,
        role: invite.role,
        name: input.name?.trim() || null,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError("ACCOUNT_EXISTS", `a user with e-mail ${invite.email} already exists`);
    }
    throw err;
  }
  const user = await users.findUser(ctx.db.kysely, invite.account_id, userId);
  const account = await findAccountById(ctx.db.kysely, invite.account_id);
  if (!user || !account) throw new Error("accepted invite's user or account vanished");
  const { token: sessionToken, session } = await createSession(ctx.db, user);
  return { token: sessionToken, info: { user, account, session } };
}

// ---- onboarding --------------------------------------------------------------------------------

/** Whether a request may onboard: from the server itself, or holding the printed setup token. */
export function onboardingAllowed(
  ctx: Pick<AppContext, "setup">,
  remoteAddress: string | undefined,
  setupToken: string | undefined,
): boolean {
  if (isLoopback(remoteAddress)) return true;
  const expected = ctx.setup.token;
  return !!expected && typeof setupToken === "string" && sameSecret(setupToken, expected);
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith("::ffff:") ? address.slice(7) : address;
  return a === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

let onboardingChain: Promise<unknown> = Promise.resolve();

/** Creates the first account and its owner, once; afterwards 409 ALREADY_ONBOARDED. */
export async function onboard(
  ctx: AppContext,
  input: { businessName: string; email: string; password: string },
) {
  const run = async () => {
    if (await users.anyAccountExists(ctx.db.kysely)) {
      throw new AppError("ALREADY_ONBOARDED", "this server already has an account; sign in instead");
    }
    const name = String(input.businessName ?? "").trim();
    if (!name) throw new AppError("VALIDATION_ERROR", "businessName must not be empty");
    checkPassword(input.password);
    const created = await createAccount(ctx, {
      email: input.email,
      password: input.password,
      name,
      kind: "standard",
    });
    ctx.setup.token = null;
    const user = await users.findUser(ctx.db.kysely, created.accountId, created.userId);
    const account = await findAccountById(ctx.db.kysely, created.accountId);
    if (!user || !account) throw new Error("onboarded account vanished");
    const { token, session } = await createSession(ctx.db, user);
    // The account's first API key, shown once to the owner who just created it.
    return { token, info: { user, account, session }, apiKey: created.apiKey };
  };
  // Two browsers racing on one node: one wins, the other gets 409.
  const result = onboardingChain.then(run, run);
  onboardingChain = result.catch(() => {});
  return result;
}

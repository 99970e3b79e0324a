// The team of an account: members (owner, admins, agents), invites (a link shown once, valid 7
// days, its token stored hashed) and the one-time onboarding of a fresh install.
import { randomBytes } from "node:crypto";
import type { Transaction } from "kysely";
import type { AppContext } from "../../context.ts";
import { isUniqueViolation } from "../../platform/db/index.ts";
import type { Database, InviteRow, UserRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { type Email, enqueueEmail } from "../../platform/mail.ts";
import { inviteLink } from "../../platform/public-url.ts";
import { iso, isValidEmail, normaliseEmail, oneLine } from "../../platform/text.ts";
import { findAccountById, findOwnerUserId, insertUser } from "./repo.ts";
import { createAccount } from "./service.ts";
import {
  checkPassword,
  createSession,
  hashPassword,
  hashToken,
  type SessionInfo,
  sameSecret,
  signIn,
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

/**
 * The e-mail that carries an invite link. Sent only when SMTP_URL is set: otherwise the link shown
 * to the inviter is the only way, as before.
 */
export function inviteEmail(input: {
  to: string;
  accountName: string;
  invitedBy: string | null;
  role: InviteRow["role"];
  url: string;
}): Email {
  const as = input.role === "owner" ? "its owner" : input.role === "admin" ? "an admin" : "an agent";
  // Names people typed go into the subject: one line each.
  const who = oneLine(input.invitedBy ?? "") || "Someone";
  const accountName = oneLine(input.accountName);
  return {
    to: input.to,
    subject:
      input.role === "owner"
        ? `Your Parley account ${accountName} is ready`
        : `${who} invited you to ${accountName} on Parley`,
    text: [
      input.role === "owner"
        ? `${who} created the Parley account ${accountName} for you, with you as ${as}.`
        : `${who} invited you to join ${accountName} on Parley as ${as}.`,
      "",
      "Open this link to choose your password (it works once and for 7 days):",
      input.url,
      "",
      "If you did not expect this e-mail, ignore it.",
      "",
    ].join("\n"),
  };
}

/** Queues the invite's e-mail in its transaction, when e-mail is set up. */
export async function enqueueInviteEmail(
  trx: Transaction<Database>,
  config: Pick<AppContext["config"], "smtp">,
  input: Omit<Parameters<typeof inviteEmail>[0], "url"> & {
    accountId: string;
    linkBase: string;
    token: string;
  },
): Promise<void> {
  if (!config.smtp) return;
  const { accountId, linkBase, token, ...rest } = input;
  await enqueueEmail(trx, accountId, inviteEmail({ ...rest, url: inviteLink(linkBase, token) }));
}

/**
 * A new invite; the token is returned once (the link) and only its hash is kept. With e-mail set up,
 * the invited person also gets the link by e-mail (`linkBase`: where links point).
 */
export async function createInvite(
  ctx: Pick<AppContext, "db" | "config">,
  info: SessionInfo,
  input: { email: string; role: "admin" | "agent" },
  linkBase: string,
): Promise<{ invite: InviteRow; token: string }> {
  requireManager(info);
  const email = normaliseEmail(String(input.email ?? ""));
  if (!isValidEmail(email)) throw new AppError("INVALID_EMAIL", `email "${input.email}" is not valid`);
  if (input.role !== "admin" && input.role !== "agent") {
    throw new AppError("VALIDATION_ERROR", "role must be admin or agent");
  }
  // Only this team is looked at: whether the address signs in to another account is never asked
  // here (the answer and its timing would tell), and is settled when the invite is accepted.
  if (await users.findUserInAccountByEmail(ctx.db.kysely, info.account.id, email)) {
    throw new AppError("ACCOUNT_EXISTS", `${email} is already a member of this team`);
  }
  const { invite, token } = newInvite(info.account.id, email, input.role, info.user.id);
  await ctx.db.write(async (trx) => {
    await users.insertInvite(trx, invite);
    await enqueueInviteEmail(trx, ctx.config, {
      accountId: info.account.id,
      to: email,
      accountName: info.account.name,
      invitedBy: info.user.name ?? info.user.email,
      role: input.role,
      linkBase,
      token,
    });
  });
  return { invite, token };
}

/** An invite row and its token (shown once; only the hash is stored). */
export function newInvite(
  accountId: string,
  email: string,
  role: InviteRow["role"],
  createdBy: string | null,
): { invite: InviteRow; token: string } {
  const token = randomBytes(32).toString("base64url");
  const now = Date.now();
  const invite: InviteRow = {
    id: `inv_${randomBytes(12).toString("base64url")}`,
    account_id: accountId,
    email,
    role,
    token_hash: hashToken(token),
    created_by: createdBy,
    created_at: now,
    expires_at: now + INVITE_TTL_MS,
    accepted_at: null,
  };
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

const INVITE_USED = "this invite link is unknown, expired or already used";

/** The note for a person whose address already signs in elsewhere (shown only after its password). */
export const CLASH_NOTICE =
  "This e-mail address already signs in to another Parley account, and an address belongs to one " +
  "account only: you are signed in to that one. To join the account that invited you, ask for an " +
  "invite to another address.";

/**
 * Joins the account of the invite: the user is created and signed in (joined); the link is used up.
 * When the address already signs in to another account (the inviter could not be told), the person
 * must give that sign-in's password, checked and throttled as a sign-in is: with it they are signed in
 * to their own account and told why they did not join (joined: false, the invite stays open); without
 * it they get the sign-in's INVALID_CREDENTIALS and learn nothing else.
 */
export async function acceptInvite(
  ctx: Pick<AppContext, "db">,
  token: string,
  input: { name?: string | null; password: string; address: string },
): Promise<{ token: string; info: SessionInfo; joined: boolean }> {
  checkPassword(input.password);
  const invite = await users.findOpenInviteByTokenHash(ctx.db.kysely, hashToken(token), Date.now());
  if (!invite) throw new AppError("NOT_FOUND", INVITE_USED);
  if (await users.findUserByEmail(ctx.db.kysely, invite.email)) {
    const signedIn = await signIn(ctx.db, {
      email: invite.email,
      password: input.password,
      address: input.address,
    });
    const account = await findAccountById(ctx.db.kysely, signedIn.user.account_id);
    if (!account) throw new Error("signed-in user's account vanished");
    return {
      token: signedIn.token,
      info: { user: signedIn.user, account, session: signedIn.session },
      joined: false,
    };
  }
  const passwordHash = await hashPassword(input.password);
  const userId = newId("user");
  const now = Date.now();
  try {
    await ctx.db.write(async (trx) => {
      if (!(await users.markInviteAccepted(trx, invite.account_id, invite.id, now))) {
        throw new AppError("NOT_FOUND", INVITE_USED);
      }
      // A sub-account has one owner: its owner invite is spent once someone owns it.
      if (invite.role === "owner" && (await findOwnerUserId(trx, invite.account_id))) {
        throw new AppError("NOT_FOUND", INVITE_USED);
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
    // Someone took the address between the look-up and the insert (two links accepted at once).
    if (isUniqueViolation(err)) {
      throw new AppError("ACCOUNT_EXISTS", "This e-mail address was just taken; try signing in instead");
    }
    throw err;
  }
  const user = await users.findUser(ctx.db.kysely, invite.account_id, userId);
  const account = await findAccountById(ctx.db.kysely, invite.account_id);
  if (!user || !account) throw new Error("accepted invite's user or account vanished");
  const { token: sessionToken, session } = await createSession(ctx.db, user);
  return { token: sessionToken, info: { user, account, session }, joined: true };
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
  input: { businessName: string; email: string; password: string; name?: string | null | undefined },
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
      ownerName: input.name?.trim() || null,
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

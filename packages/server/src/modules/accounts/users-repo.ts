// Users, browser sessions, invites and sign-in failures (the web app's people). Account id first in
// every function that acts on one tenant; look-ups by a secret's hash are the only global ones.
import { randomBytes } from "node:crypto";
import type { Selectable } from "kysely";
import { type Kysely, sql, type Transaction } from "kysely";
import type { Db } from "../../platform/db/index.ts";
import type {
  Database,
  InviteRow,
  PasswordResetsTable,
  SessionRow,
  UserRow,
} from "../../platform/db/schema.ts";
import { sessionsEnded } from "../../platform/live.ts";

type Q = Kysely<Database> | Transaction<Database>;

export async function anyAccountExists(db: Q): Promise<boolean> {
  const row = await db.selectFrom("accounts").select("id").limit(1).executeTakeFirst();
  return row !== undefined;
}

/** A one-time onboarding token while the database holds no account; null afterwards. */
export async function newSetupToken(db: Db): Promise<string | null> {
  return (await anyAccountExists(db.kysely)) ? null : randomBytes(24).toString("base64url");
}

// ---- users -------------------------------------------------------------------------------------

export async function findUserByEmail(db: Q, email: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();
}

/** A member of this account with the address (a duplicate within the team may be reported). */
export async function findUserInAccountByEmail(
  db: Q,
  accountId: string,
  email: string,
): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("email", "=", email)
    .executeTakeFirst();
}

export async function findUser(db: Q, accountId: string, userId: string): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", userId)
    .executeTakeFirst();
}

export async function listUsers(db: Q, accountId: string): Promise<UserRow[]> {
  return db.selectFrom("users").selectAll().where("account_id", "=", accountId).orderBy("id").execute();
}

export async function findUsersByIds(
  db: Q,
  accountId: string,
  ids: string[],
): Promise<Map<string, Pick<UserRow, "id" | "name" | "email">>> {
  const out = new Map<string, Pick<UserRow, "id" | "name" | "email">>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom("users")
    .select(["id", "name", "email"])
    .where("account_id", "=", accountId)
    .where("id", "in", [...new Set(ids)])
    .execute();
  for (const r of rows) out.set(r.id, r);
  return out;
}

export async function setPasswordHash(
  db: Q,
  accountId: string,
  userId: string,
  passwordHash: string,
): Promise<void> {
  await db
    .updateTable("users")
    .set({ password_hash: passwordHash })
    .where("account_id", "=", accountId)
    .where("id", "=", userId)
    .execute();
}

/** Removes a non-owner user and their sessions; false when there is no such (non-owner) user. */
export async function deleteUser(db: Q, accountId: string, userId: string): Promise<boolean> {
  await db.deleteFrom("sessions").where("account_id", "=", accountId).where("user_id", "=", userId).execute();
  await db
    .deleteFrom("password_resets")
    .where("account_id", "=", accountId)
    .where("user_id", "=", userId)
    .execute();
  sessionsEnded(db, accountId);
  const res = await db
    .deleteFrom("users")
    .where("account_id", "=", accountId)
    .where("id", "=", userId)
    .where("role", "!=", "owner")
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

// ---- sessions ----------------------------------------------------------------------------------

export async function insertSession(db: Q, row: SessionRow): Promise<void> {
  await db.insertInto("sessions").values(row).execute();
}

export async function findSessionByTokenHash(
  db: Q,
  tokenHash: string,
): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const row = await db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .selectAll("sessions")
    .select([
      "users.email as u_email",
      "users.name as u_name",
      "users.role as u_role",
      "users.password_hash as u_password_hash",
      "users.created_at as u_created_at",
    ])
    .where("sessions.token_hash", "=", tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { u_email, u_name, u_role, u_password_hash, u_created_at, ...session } = row;
  return {
    session,
    user: {
      id: session.user_id,
      account_id: session.account_id,
      email: u_email,
      name: u_name,
      role: u_role,
      password_hash: u_password_hash,
      created_at: u_created_at,
    },
  };
}

export async function extendSession(db: Q, sessionId: string, expiresAt: number): Promise<void> {
  await db.updateTable("sessions").set({ expires_at: expiresAt }).where("id", "=", sessionId).execute();
}

/** Ends a session; inside db.write(), its open live stream ends after the commit. */
export async function deleteSession(db: Q, accountId: string, sessionId: string): Promise<void> {
  await db.deleteFrom("sessions").where("account_id", "=", accountId).where("id", "=", sessionId).execute();
  sessionsEnded(db, accountId);
}

/** Every session of the user but one (a password change signs the other devices out). */
export async function deleteOtherSessions(
  db: Q,
  accountId: string,
  userId: string,
  keepSessionId: string,
): Promise<void> {
  await db
    .deleteFrom("sessions")
    .where("account_id", "=", accountId)
    .where("user_id", "=", userId)
    .where("id", "!=", keepSessionId)
    .execute();
  sessionsEnded(db, accountId);
}

/** Every session of the user (a password reset signs every device out); their live streams end. */
export async function deleteSessionsOfUser(db: Q, accountId: string, userId: string): Promise<void> {
  await db.deleteFrom("sessions").where("account_id", "=", accountId).where("user_id", "=", userId).execute();
  sessionsEnded(db, accountId);
}

export async function deleteExpiredSessions(db: Q, now: number): Promise<void> {
  await db.deleteFrom("sessions").where("expires_at", "<", now).execute();
}

// ---- invites -----------------------------------------------------------------------------------

export async function insertInvite(db: Q, row: InviteRow): Promise<void> {
  await db.insertInto("invites").values(row).execute();
}

/** Open invites (not accepted, not expired), newest first. */
export async function listOpenInvites(db: Q, accountId: string, now: number): Promise<InviteRow[]> {
  return db
    .selectFrom("invites")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("accepted_at", "is", null)
    .where("expires_at", ">", now)
    .orderBy("id", "desc")
    .execute();
}

export async function deleteInvite(db: Q, accountId: string, inviteId: string): Promise<boolean> {
  const res = await db
    .deleteFrom("invites")
    .where("account_id", "=", accountId)
    .where("id", "=", inviteId)
    .where("accepted_at", "is", null)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** An invite that can still be accepted, with its account's name. */
export async function findOpenInviteByTokenHash(
  db: Q,
  tokenHash: string,
  now: number,
): Promise<(InviteRow & { account_name: string }) | undefined> {
  return db
    .selectFrom("invites")
    .innerJoin("accounts", "accounts.id", "invites.account_id")
    .selectAll("invites")
    .select("accounts.name as account_name")
    .where("invites.token_hash", "=", tokenHash)
    .where("invites.accepted_at", "is", null)
    .where("invites.expires_at", ">", now)
    .executeTakeFirst();
}

/** Marks the invite used; false when someone else used it first. */
export async function markInviteAccepted(db: Q, accountId: string, inviteId: string, at: number) {
  const res = await db
    .updateTable("invites")
    .set({ accepted_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", inviteId)
    .where("accepted_at", "is", null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

// ---- password resets ---------------------------------------------------------------------------

export type PasswordResetRow = Selectable<PasswordResetsTable>;

export async function insertPasswordReset(db: Q, row: PasswordResetRow): Promise<void> {
  await db.insertInto("password_resets").values(row).execute();
}

/** Forgets links that can no longer be used (expired or used), on every account. */
export async function deleteDeadPasswordResets(db: Q, now: number): Promise<void> {
  await db
    .deleteFrom("password_resets")
    .where((eb) => eb.or([eb("expires_at", "<=", now), eb("used_at", "is not", null)]))
    .execute();
}

/** A reset link that still works (not used, not expired), with its user's e-mail. */
export async function findOpenPasswordResetByTokenHash(
  db: Q,
  tokenHash: string,
  now: number,
): Promise<(PasswordResetRow & { email: string }) | undefined> {
  return db
    .selectFrom("password_resets")
    .innerJoin("users", (j) =>
      j
        .onRef("users.id", "=", "password_resets.user_id")
        .onRef("users.account_id", "=", "password_resets.account_id"),
    )
    .selectAll("password_resets")
    .select("users.email")
    .where("password_resets.token_hash", "=", tokenHash)
    .where("password_resets.used_at", "is", null)
    .where("password_resets.expires_at", ">", now)
    .executeTakeFirst();
}

/**
 * Uses the link: false when it was used (or expired) meanwhile. The one conditional update decides
 * between two uses racing, on either database.
 */
export async function markPasswordResetUsed(
  db: Q,
  accountId: string,
  resetId: string,
  at: number,
): Promise<boolean> {
  const res = await db
    .updateTable("password_resets")
    .set({ used_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", resetId)
    .where("used_at", "is", null)
    .where("expires_at", ">", at)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Ends the user's other open links (a new password makes every older link useless). */
export async function endPasswordResetsOfUser(
  db: Q,
  accountId: string,
  userId: string,
  at: number,
): Promise<void> {
  await db
    .updateTable("password_resets")
    .set({ used_at: at })
    .where("account_id", "=", accountId)
    .where("user_id", "=", userId)
    .where("used_at", "is", null)
    .execute();
}

// ---- sign-in failures --------------------------------------------------------------------------

export async function countFailuresSince(db: Q, key: string, since: number): Promise<number> {
  const row = await db
    .selectFrom("sign_in_failures")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("key", "=", key)
    .where("created_at", ">=", since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** How many failures of the key since `since`, and when the latest was (null: none). */
export async function failureStats(
  db: Q,
  key: string,
  since: number,
): Promise<{ count: number; last: number | null }> {
  const row = await db
    .selectFrom("sign_in_failures")
    .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("created_at").as("last")])
    .where("key", "=", key)
    .where("created_at", ">=", since)
    .executeTakeFirst();
  const last = row?.last;
  return { count: Number(row?.n ?? 0), last: last === null || last === undefined ? null : Number(last) };
}

/** The time of the key's n-th latest record since `since`, or null when it has fewer. */
export async function nthLatestFailure(db: Q, key: string, since: number, n: number): Promise<number | null> {
  const row = await db
    .selectFrom("sign_in_failures")
    .select("created_at")
    .where("key", "=", key)
    .where("created_at", ">=", since)
    .orderBy("created_at", "desc")
    .limit(1)
    .offset(n - 1)
    .executeTakeFirst();
  return row ? Number(row.created_at) : null;
}

/** Forgets the keys' records, then writes one record for each of `mark` (a success marker). */
export async function resetFailures(db: Q, keys: string[], mark: string[], at: number): Promise<void> {
  const all = [...keys, ...mark];
  if (all.length > 0) await db.deleteFrom("sign_in_failures").where("key", "in", all).execute();
  if (mark.length > 0) {
    await db
      .insertInto("sign_in_failures")
      .values(mark.map((key) => ({ id: randomBytes(12).toString("base64url"), key, created_at: at })))
      .execute();
  }
}

/**
 * Forgets the sign-in delays of an e-mail from every address (its `pair:<e-mail>|<ip>` records): after a
 * password reset the person signs in at once, however often they guessed before.
 */
export async function clearSignInDelaysOf(db: Q, email: string): Promise<void> {
  const prefix = `pair:${email}|`;
  // substr, not LIKE: an address may hold "_" or "%".
  await db
    .deleteFrom("sign_in_failures")
    .where(sql<string>`substr(key, 1, ${prefix.length})`, "=", prefix)
    .execute();
}

export async function recordFailures(db: Q, keys: string[], at: number, olderThan: number): Promise<void> {
  await db
    .deleteFrom("sign_in_failures")
    .where("key", "in", keys)
    .where("created_at", "<", olderThan)
    .execute();
  await db
    .insertInto("sign_in_failures")
    .values(keys.map((key) => ({ id: randomBytes(12).toString("base64url"), key, created_at: at })))
    .execute();
}

// ---- API key (the settings page shows its prefix) ----------------------------------------------

export async function findApiKeyInfo(
  db: Q,
  accountId: string,
): Promise<{ prefix: string; createdAt: number } | undefined> {
  const row = await db
    .selectFrom("api_keys")
    .select(["key_prefix", "created_at"])
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return row ? { prefix: row.key_prefix, createdAt: row.created_at } : undefined;
}

/** A person's display name (null: none, the app shows their e-mail address). */
export async function setUserName(
  db: Q,
  accountId: string,
  userId: string,
  name: string | null,
): Promise<void> {
  await db
    .updateTable("users")
    .set({ name })
    .where("account_id", "=", accountId)
    .where("id", "=", userId)
    .execute();
}

// "Forgot password": a person asks with their e-mail address and gets a link, single use, valid one
// hour, whose token is stored only as its SHA-256. The request is answered the same way whether or not
// the address signs in here (the e-mail goes out through the job queue, never in the request), and is
// limited per address, silently, so the form cannot be used to flood someone's mailbox. Setting the new
// password uses the link up, ends every session of the person (and their live streams) and clears the
// sign-in delays their forgotten password earned.
import { randomBytes } from "node:crypto";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { type Email, enqueueEmail } from "../../platform/mail.ts";
import { isValidEmail, normaliseEmail } from "../../platform/text.ts";
import { checkPassword, hashPassword, hashToken } from "./sessions.ts";
import { oneAtATime } from "./sign-in-throttle.ts";
import * as users from "./users-repo.ts";

export const PASSWORD_RESET_TTL_MS = 3600_000;
/** Requests per address per window; more are answered as usual and do nothing. */
export const PASSWORD_RESETS_PER_WINDOW = 3;
export const PASSWORD_RESET_WINDOW_MS = 3600_000;
export const PASSWORD_RESET_GONE = "This link has expired or was already used";

export function passwordResetLink(base: string, token: string): string {
  return `${base}/reset-password/${token}`;
}

export function passwordResetEmail(to: string, url: string): Email {
  return {
    to,
    subject: "Reset your Parley password",
    text: [
      `Someone asked to reset the password of ${to} on Parley.`,
      "",
      "To choose a new password, open this link within an hour (it works once):",
      url,
      "",
      "If it was not you, ignore this e-mail: your password stays as it is.",
      "",
    ].join("\n"),
  };
}

/**
 * Sends a reset link when the address is a user's; answers nothing either way. Unknown and known
 * addresses take the same path up to the one write (which records the request in both cases).
 */
export async function requestPasswordReset(
  ctx: Pick<AppContext, "db">,
  input: { email: string; linkBase: string },
): Promise<void> {
  const email = normaliseEmail(String(input.email ?? ""));
  if (!isValidEmail(email)) throw new AppError("INVALID_EMAIL", `email "${input.email}" is not valid`);
  const key = `reset:${email}`;
  await oneAtATime(key, async () => {
    const now = Date.now();
    const since = now - PASSWORD_RESET_WINDOW_MS;
    if ((await users.countFailuresSince(ctx.db.kysely, key, since)) >= PASSWORD_RESETS_PER_WINDOW) return;
    const user = await users.findUserByEmail(ctx.db.kysely, email);
    const token = randomBytes(32).toString("base64url");
    await ctx.db.write(async (trx) => {
      await users.recordFailures(trx, [key], now, since);
      if (!user) return;
      await users.deleteDeadPasswordResets(trx, now);
      await users.insertPasswordReset(trx, {
        id: `pwr_${randomBytes(12).toString("base64url")}`,
        account_id: user.account_id,
        user_id: user.id,
        token_hash: hashToken(token),
        created_at: now,
        expires_at: now + PASSWORD_RESET_TTL_MS,
        used_at: null,
      });
      await enqueueEmail(
        trx,
        user.account_id,
        passwordResetEmail(user.email, passwordResetLink(input.linkBase, token)),
      );
    });
  });
}

async function openReset(ctx: Pick<AppContext, "db">, token: string) {
  const reset =
    token && token.length <= 200
      ? await users.findOpenPasswordResetByTokenHash(ctx.db.kysely, hashToken(token), Date.now())
      : undefined;
  if (!reset) throw new AppError("NOT_FOUND", PASSWORD_RESET_GONE);
  return reset;
}

/** The address a working link is for (the page shows it); 404 for anything else. */
export async function describePasswordReset(ctx: Pick<AppContext, "db">, token: string) {
  const reset = await openReset(ctx, token);
  return { email: reset.email };
}

/**
 * Sets the new password through a working link. A weak password is refused before the link is
 * touched (it stays usable); of two uses racing, one wins and the other gets 404.
 */
export async function completePasswordReset(
  ctx: Pick<AppContext, "db">,
  token: string,
  input: { password: string },
): Promise<void> {
  checkPassword(input.password);
  const reset = await openReset(ctx, token);
  const passwordHash = await hashPassword(input.password);
  await ctx.db.write(async (trx) => {
    const now = Date.now();
    if (!(await users.markPasswordResetUsed(trx, reset.account_id, reset.id, now))) {
      throw new AppError("NOT_FOUND", PASSWORD_RESET_GONE);
    }
    await users.setPasswordHash(trx, reset.account_id, reset.user_id, passwordHash);
    await users.endPasswordResetsOfUser(trx, reset.account_id, reset.user_id, now);
    await users.deleteSessionsOfUser(trx, reset.account_id, reset.user_id);
    await users.clearSignInDelaysOf(trx, reset.email);
  });
}

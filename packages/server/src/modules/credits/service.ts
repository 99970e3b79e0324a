// Credit rules: agency-only access, amounts, grants (with optional Idempotency-Key), sub-accounts,
// auto-recharge settings, history pages and operator adjustments. Balances move only through ledger.ts.
import { createHash } from "node:crypto";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../platform/db/index.ts";
import type { AccountRow, CreditTransactionRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { MAX_AMOUNT, parseAmount } from "../../platform/money.ts";
import { DEFAULT_PAGE_SIZE, decodeCursor, toPage } from "../../platform/pagination.ts";
import { iso, isValidEmail, normaliseEmail } from "../../platform/text.ts";
import * as accounts from "../accounts/repo.ts";
import { createAccountWithoutOwner, requireAccountByEmail } from "../accounts/service.ts";
import { enqueueInviteEmail, newInvite } from "../accounts/team.ts";
import * as users from "../accounts/users-repo.ts";
import { credit, debit } from "./ledger.ts";
import * as repo from "./repo.ts";

export const GRANT_SCOPE = "POST /v1/subaccounts/credits";
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_DESCRIPTION = 500;

/** Printable ASCII, as Stripe-style clients send (UUIDs, ULIDs, "recharge-<idempotency_key>"). */
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

export function requireAgency(account: AccountRow): void {
  if (account.kind !== "agency") {
    throw new AppError("NOT_AGENCY", "Only agency accounts can manage sub-accounts and grant credits");
  }
}

/** Runs before schema validation on the grant route, so every bad amount is INVALID_AMOUNT. */
export function checkGrantAmount(body: unknown): void {
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    parseAmount((body as Record<string, unknown>).amount);
  }
}

const credits = (hundredths: number) => hundredths / 100;

export interface SubaccountView {
  id: string;
  email: string;
  name: string;
  credits: number;
  autoRecharge: { threshold: number; rechargeAmount: number } | null;
  status: "active" | "suspended";
  suspendedAt: string | null;
  createdAt: string;
}

export function subaccountView(a: AccountRow): SubaccountView {
  return {
    id: a.id,
    email: a.email,
    name: a.name,
    credits: credits(a.credits),
    autoRecharge:
      a.auto_recharge_threshold !== null && a.auto_recharge_amount !== null
        ? { threshold: credits(a.auto_recharge_threshold), rechargeAmount: credits(a.auto_recharge_amount) }
        : null,
    status: a.suspended_at == null ? "active" : "suspended",
    suspendedAt: a.suspended_at == null ? null : iso(a.suspended_at),
    createdAt: iso(a.created_at),
  };
}

export function transactionView(t: CreditTransactionRow) {
  return {
    id: t.id,
    amount: credits(t.amount),
    balanceAfter: credits(t.balance_after),
    description: t.description,
    kind: t.kind,
    messageId: t.message_id,
    createdAt: iso(t.created_at),
  };
}

// ---- Sub-accounts -----------------------------------------------------------------------------

export async function requireSubaccount(db: Db, agencyId: string, subaccountId: string): Promise<AccountRow> {
  const sub = await repo.findSubaccountById(db.kysely, agencyId, subaccountId);
  if (!sub) throw new AppError("SUBACCOUNT_NOT_FOUND", `No sub-account ${subaccountId} in this agency`);
  return sub;
}

export async function pageSubaccounts(db: Db, agencyId: string, query: { limit?: number; cursor?: string }) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await repo.listSubaccounts(db.kysely, agencyId, { after: decodeCursor(query.cursor), limit });
  return toPage(rows, limit, (r) => r.id, subaccountView);
}

/** Runs before schema validation: the owner's password is no longer set by the agency. */
export function refuseOwnerPassword(body: unknown): void {
  if (typeof body === "object" && body !== null && "password" in body) {
    throw new AppError(
      "VALIDATION_ERROR",
      "password is no longer accepted: the sub-account's owner chooses one through the link in ownerInvite.url",
    );
  }
}

export interface CreatedSubaccount extends SubaccountView {
  apiKey: string;
  /** The owner's invite: its token (the route makes the link) and when it expires. */
  ownerInvite: { token: string; expiresAt: string };
}

/**
 * A sub-account of the agency, with its API key and an invite for its owner (role owner, 7 days):
 * the person sets a password by accepting the link. The address may be used by another tenant; this
 * neither asks nor tells (no look-up outside the agency, no password hashed): if it already signs in
 * elsewhere, that is settled when the invite is accepted. Within the agency a duplicate is reported.
 */
export async function createSubaccount(
  ctx: Pick<AppContext, "db" | "onAccountCreated" | "config">,
  agency: Pick<AccountRow, "id" | "email" | "name">,
  input: { email: string; name?: string },
  /** Where links point: with e-mail set up, the owner also gets their link by e-mail. */
  linkBase: string,
): Promise<CreatedSubaccount> {
  const email = normaliseEmail(input.email);
  if (!isValidEmail(email))
    throw new AppError("INVALID_EMAIL", `"${input.email}" is not a valid e-mail address`);
  const duplicate = () =>
    new AppError("ACCOUNT_EXISTS", "This agency already uses this e-mail address; choose another");
  if (email === agency.email || (await users.findUserInAccountByEmail(ctx.db.kysely, agency.id, email))) {
    throw duplicate();
  }
  const made: { ownerInvite?: CreatedSubaccount["ownerInvite"] } = {};
  const created = await createAccountWithoutOwner(
    ctx,
    { email, name: input.name ?? null, kind: "subaccount", parentAccountId: agency.id },
    async (trx, accountId, address) => {
      const { invite, token } = newInvite(accountId, address, "owner", null);
      await users.insertInvite(trx, invite);
      await enqueueInviteEmail(trx, ctx.config, {
        accountId,
        to: address,
        accountName: input.name?.trim() || address,
        invitedBy: agency.name,
        role: "owner",
        linkBase,
        token,
      });
      made.ownerInvite = { token, expiresAt: iso(invite.expires_at) };
    },
  ).catch((err: unknown) => {
    // Only the agency's own sub-accounts can clash here (an address is unique within the agency).
    if (err instanceof AppError && err.code === "ACCOUNT_EXISTS") throw duplicate();
    throw err;
  });
  const row = await accounts.findAccountById(ctx.db.kysely, created.accountId);
  if (!row || !made.ownerInvite) throw new Error("sub-account vanished after creation");
  return { ...subaccountView(row), apiKey: created.apiKey, ownerInvite: made.ownerInvite };
}

export async function setAutoRecharge(
  db: Db,
  agencyId: string,
  subaccountId: string,
  input: { threshold: unknown; rechargeAmount: unknown },
): Promise<SubaccountView> {
  const threshold = parseAmount(input.threshold, "threshold");
  const rechargeAmount = parseAmount(input.rechargeAmount, "rechargeAmount");
  if (
    !(await db.write((trx) =>
      accounts.setAutoRecharge(trx, agencyId, subaccountId, threshold, rechargeAmount),
    ))
  ) {
    throw new AppError("SUBACCOUNT_NOT_FOUND", `No sub-account ${subaccountId} in this agency`);
  }
  return subaccountView(await requireSubaccount(db, agencyId, subaccountId));
}

export async function clearAutoRecharge(
  db: Db,
  agencyId: string,
  subaccountId: string,
): Promise<SubaccountView> {
  if (!(await db.write((trx) => accounts.clearAutoRecharge(trx, agencyId, subaccountId)))) {
    throw new AppError("SUBACCOUNT_NOT_FOUND", `No sub-account ${subaccountId} in this agency`);
  }
  return subaccountView(await requireSubaccount(db, agencyId, subaccountId));
}

/**
 * Suspends (true) or resumes (false) one of the agency's sub-accounts; idempotent. Only the one column
 * changes: nothing is deleted, so resuming brings back its key, sessions, bot and campaigns as they were.
 */
export async function setSubaccountSuspended(
  db: Db,
  agencyId: string,
  subaccountId: string,
  suspended: boolean,
): Promise<SubaccountView> {
  const at = suspended ? Date.now() : null;
  if (!(await db.write((trx) => accounts.setSuspended(trx, agencyId, subaccountId, at)))) {
    throw new AppError("SUBACCOUNT_NOT_FOUND", `No sub-account ${subaccountId} in this agency`);
  }
  return subaccountView(await requireSubaccount(db, agencyId, subaccountId));
}

export async function renameSubaccount(
  db: Db,
  agencyId: string,
  subaccountId: string,
  name: string,
): Promise<SubaccountView> {
  const cleaned = name.trim();
  if (!cleaned) throw new AppError("VALIDATION_ERROR", "name must not be blank");
  if (!(await db.write((trx) => accounts.renameSubaccount(trx, agencyId, subaccountId, cleaned)))) {
    throw new AppError("SUBACCOUNT_NOT_FOUND", `No sub-account ${subaccountId} in this agency`);
  }
  return subaccountView(await requireSubaccount(db, agencyId, subaccountId));
}

// ---- History ----------------------------------------------------------------------------------

export async function pageTransactions(
  db: Db,
  accountId: string,
  query: { limit?: number; cursor?: string },
) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await repo.listTransactions(db.kysely, accountId, {
    before: decodeCursor(query.cursor),
    limit,
  });
  return toPage(rows, limit, (r) => r.id, transactionView);
}

// ---- Grants -----------------------------------------------------------------------------------

export interface GrantInput {
  email: string;
  amount: unknown;
  description?: string | null;
}

export interface GrantAnswer {
  success: true;
  sub_account_id: string;
  credits_added: number;
  new_balance: number;
}

/** Only successful grants are stored under a key, so a replay is always a 200. */
export interface GrantOutcome {
  body: GrantAnswer;
  /** True when the answer is the stored one of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

// One message for an unknown e-mail and for another agency's sub-account, so neither can be probed.
const NO_SUCH_SUBACCOUNT = "No sub-account of this agency has that e-mail address";

/**
 * Grants credits to a sub-account of the agency: balance and history row in one transaction. With an
 * Idempotency-Key, the key row is written in that same transaction, so two requests with one key
 * grant once, and a repeat (same body, within 24 h) gets the stored answer.
 */
export async function grantCredits(
  ctx: Pick<AppContext, "db" | "caches">,
  agency: AccountRow,
  input: GrantInput,
  idempotencyKey: string | undefined,
): Promise<GrantOutcome> {
  const { db } = ctx;
  requireAgency(agency);
  const amount = parseAmount(input.amount);
  const description = input.description ?? null;
  // Characters as the schema counts them (code points), not UTF-16 units.
  if (description !== null && [...description].length > MAX_DESCRIPTION) {
    throw new AppError("VALIDATION_ERROR", `description must be at most ${MAX_DESCRIPTION} characters`);
  }
  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw new AppError("VALIDATION_ERROR", "Idempotency-Key must be 1 to 255 printable ASCII characters");
  }
  const email = normaliseEmail(input.email);
  if (!isValidEmail(email))
    throw new AppError("INVALID_EMAIL", `"${input.email}" is not a valid e-mail address`);
  const sub = await repo.findSubaccountByEmail(db.kysely, agency.id, email);
  if (!sub) throw new AppError("SUBACCOUNT_NOT_FOUND", NO_SUCH_SUBACCOUNT);

  const requestHash = createHash("sha256")
    .update(JSON.stringify([email, amount, description]))
    .digest("hex");
  const now = Date.now();
  const cutoff = now - IDEMPOTENCY_TTL_MS;
  const outcome = await db.write(async (trx): Promise<GrantOutcome> => {
    if (idempotencyKey !== undefined) {
      await repo.deleteExpiredKey(trx, agency.id, GRANT_SCOPE, idempotencyKey, cutoff);
      const claimed = await repo.claimKey(trx, agency.id, GRANT_SCOPE, idempotencyKey, requestHash, now);
      if (!claimed) {
        const stored = await repo.findKey(trx, agency.id, GRANT_SCOPE, idempotencyKey);
        if (stored && stored.request_hash !== requestHash) {
          throw new AppError(
            "IDEMPOTENCY_KEY_REUSED",
            "This Idempotency-Key was already used with a different request body",
          );
        }
        if (!stored || stored.status_code === 0) {
          throw new AppError(
            "IDEMPOTENCY_KEY_IN_USE",
            "A request with this Idempotency-Key is in progress; retry",
          );
        }
        return { body: JSON.parse(stored.response) as GrantAnswer, replayed: true };
      }
    }
    const result = await credit(trx, sub.id, { amount, kind: "grant", description });
    const body: GrantAnswer = {
      success: true,
      sub_account_id: sub.id,
      credits_added: credits(amount),
      new_balance: credits(result.balanceAfter),
    };
    if (idempotencyKey !== undefined) {
      await repo.storeAnswer(trx, agency.id, GRANT_SCOPE, idempotencyKey, 200, JSON.stringify(body));
    }
    return { body, replayed: false };
  });
  if (idempotencyKey !== undefined && !outcome.replayed && purgeDue(ctx, agency.id, now)) {
    // Housekeeping outside the grant's transaction; a failure here changes nothing for the client.
    await db.write((trx) => repo.purgeExpiredKeys(trx, agency.id, cutoff)).catch(() => undefined);
  }
  return outcome;
}

// Expired keys are purged at most once a minute per agency (per process), off the hot path's way.
const PURGE_EVERY_MS = 60_000;
function purgeDue(ctx: Pick<AppContext, "caches">, agencyId: string, now: number): boolean {
  const lastPurge = ctx.caches.get("credits.lastPurge", () => new Map<string, number>());
  if (now - (lastPurge.get(agencyId) ?? 0) < PURGE_EVERY_MS) return false;
  if (lastPurge.size >= 10_000) lastPurge.clear();
  lastPurge.set(agencyId, now);
  return true;
}

// ---- Operator adjustments (CLI) ---------------------------------------------------------------

/** "12", "-3.5", "0.25" → signed hundredths; at most two decimals, 0 < |amount| <= 1,000,000. */
export function parseSignedAmountText(text: string): number {
  if (!/^-?\d+(\.\d{1,2})?$/.test(text.trim())) {
    throw new AppError(
      "INVALID_AMOUNT",
      `--amount must be a number with at most two decimals, got "${text}"`,
    );
  }
  const value = Number(text.trim());
  if (value === 0 || Math.abs(value) > MAX_AMOUNT) {
    throw new AppError("INVALID_AMOUNT", `--amount must be non-zero and at most ${MAX_AMOUNT} either way`);
  }
  return Math.round(value * 100);
}

/** An operator's correction (kind `adjustment`): positive adds, negative takes (never below zero). */
export async function adjustCredits(
  db: Db,
  email: string,
  amountText: string,
  description: string | null,
): Promise<{ accountId: string; credits_added: number; new_balance: number; transactionId: string }> {
  const amount = parseSignedAmountText(amountText);
  if (description !== null && [...description].length > MAX_DESCRIPTION) {
    throw new AppError("VALIDATION_ERROR", `--description must be at most ${MAX_DESCRIPTION} characters`);
  }
  const account = await requireAccountByEmail(db, email);
  const entry = { amount: Math.abs(amount), kind: "adjustment" as const, description };
  const result = await db.write((trx) =>
    amount > 0 ? credit(trx, account.id, entry) : debit(trx, account.id, entry),
  );
  if (!result) {
    throw new AppError(
      "INVALID_AMOUNT",
      `the balance (${credits(account.credits)}) does not cover taking ${credits(-amount)} credits`,
    );
  }
  return {
    accountId: account.id,
    credits_added: credits(amount),
    new_balance: credits(result.balanceAfter),
    transactionId: result.transactionId,
  };
}

// Account rules: creation (with owner user, API key, webhook secret and default bot campaign),
// settings, key rotation. Used by the CLI now and by the web app later.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { hash as argon2Hash } from "@node-rs/argon2";
import type { Transaction } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../platform/db/index.ts";
import { isUniqueViolation } from "../../platform/db/index.ts";
import type { AccountRow, AccountUpdate, Database } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { fromHundredths, parseAmount, toHundredths } from "../../platform/money.ts";
import { isValidEmail, normaliseEmail } from "../../platform/text.ts";
import * as repo from "./repo.ts";

export const API_KEY_PREFIX = "pk_live_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** 32 base62 characters ≈ 190 bits of randomness (rejection sampling keeps them uniform). */
export function generateApiKey(): string {
  let out = "";
  while (out.length < 32) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && out.length < 32) out += BASE62[byte % 62];
    }
  }
  return API_KEY_PREFIX + out;
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** Constant-time equality of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const ba = Buffer.from(a, "hex");
  const bb = Buffer.from(b, "hex");
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** Standard Webhooks secret: "whsec_" + base64 of 24 random bytes. */
/** A sub-account its agency suspended: its key and sessions are refused, its bot is silent. */
export function isSuspended(account: Pick<AccountRow, "suspended_at">): boolean {
  return account.suspended_at != null;
}

export function suspendedError(): AppError {
  return new AppError(
    "ACCOUNT_SUSPENDED",
    "This account is suspended by its agency; nothing in it was deleted. Ask the agency to resume it.",
  );
}

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

export interface CreateAccountInput {
  email: string;
  password: string;
  name?: string | null;
  /** The owner's display name. */
  ownerName?: string | null;
  kind: "standard" | "agency" | "subaccount";
  parentAccountId?: string | null;
  /** Whole credits (may carry two decimals). */
  credits?: number;
}

export interface CreatedAccount {
  accountId: string;
  userId: string;
  apiKey: string;
  webhookSecret: string;
}

/** What creating an account needs: storage and the modules' hooks (default campaign, opening credits). */
export type AccountCreation = Pick<AppContext, "db" | "onAccountCreated">;

export async function createAccount(
  ctx: AccountCreation,
  input: CreateAccountInput,
): Promise<CreatedAccount> {
  if (input.password.length < 8)
    throw new AppError("VALIDATION_ERROR", "password must be at least 8 characters");
  const passwordHash = await argon2Hash(input.password);
  const userId = newId("user");
  const created = await writeAccount(ctx, input, (trx, accountId, email) =>
    repo.insertUser(trx, accountId, {
      id: userId,
      email,
      passwordHash,
      role: "owner",
      name: input.ownerName ?? null,
    }),
  );
  return { ...created, userId };
}

/**
 * An account with no user yet: `owner` runs in the same transaction (an agency's sub-account writes
 * its owner's invite there). No password is hashed and no other account is looked at, so the answer
 * and its timing say nothing about the address elsewhere.
 */
export async function createAccountWithoutOwner(
  ctx: AccountCreation,
  input: Omit<CreateAccountInput, "password">,
  owner: (trx: Transaction<Database>, accountId: string, email: string) => Promise<void>,
): Promise<Omit<CreatedAccount, "userId">> {
  return writeAccount(ctx, input, owner);
}

async function writeAccount(
  ctx: AccountCreation,
  input: Omit<CreateAccountInput, "password">,
  owner: (trx: Transaction<Database>, accountId: string, email: string) => Promise<void>,
): Promise<Omit<CreatedAccount, "userId">> {
  const email = normaliseEmail(input.email);
  if (!isValidEmail(email))
    throw new AppError("INVALID_EMAIL", `"${input.email}" is not a valid e-mail address`);
  const initialCredits = toHundredths(input.credits ?? 0);
  const now = Date.now();
  const accountId = newId("account");
  const apiKey = generateApiKey();
  const webhookSecret = generateWebhookSecret();
  try {
    await ctx.db.write(async (trx) => {
      await repo.insertAccount(trx, {
        id: accountId,
        name: input.name?.trim() || email,
        email,
        kind: input.kind,
        parent_account_id: input.parentAccountId ?? null,
        // The balance starts at 0; the credits module's hook books initial credits through its ledger.
        credits: 0,
        bot_active: 1,
        webhook_url: null,
        webhook_secret: webhookSecret,
        events_webhook_url: null,
        llm_base_url: null,
        llm_api_key: null,
        llm_model: null,
        auto_recharge_threshold: null,
        auto_recharge_amount: null,
        auto_recharge_armed: 1,
        created_at: now,
        updated_at: now,
      });
      await owner(trx, accountId, email);
      await repo.replaceApiKey(trx, accountId, {
        id: newId("apiKey"),
        hash: hashApiKey(apiKey),
        prefix: apiKey.slice(0, API_KEY_PREFIX.length + 4),
      });
      for (const hook of ctx.onAccountCreated) {
        await hook(trx, { accountId, kind: input.kind, initialCredits, at: now });
      }
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError("ACCOUNT_EXISTS", `an account with e-mail ${email} already exists`);
    throw err;
  }
  return { accountId, apiKey, webhookSecret };
}

/** Generating a key replaces the previous one in the same transaction: the old key fails at once. */
export async function rotateApiKey(db: Db, accountId: string): Promise<string> {
  const apiKey = generateApiKey();
  await db.write(async (trx) => {
    await repo.replaceApiKey(trx, accountId, {
      id: newId("apiKey"),
      hash: hashApiKey(apiKey),
      prefix: apiKey.slice(0, API_KEY_PREFIX.length + 4),
    });
  });
  return apiKey;
}

export async function rotateWebhookSecret(db: Db, accountId: string): Promise<string> {
  const secret = generateWebhookSecret();
  await db.write((trx) => repo.updateAccount(trx, accountId, { webhook_secret: secret }));
  return secret;
}

/**
 * The operator's look-up (CLI `--email`). Sub-accounts of different agencies (or a sub-account and a
 * top-level account) may share an address; then the account id (`acc_…`) picks one, given in its place.
 */
export async function requireAccountByEmail(db: Db, emailOrId: string): Promise<AccountRow> {
  const given = emailOrId.trim();
  if (/^acc_[\w-]+$/.test(given)) {
    const account = await repo.findAccountById(db.kysely, given);
    if (!account) throw new AppError("NOT_FOUND", `no account ${given}`);
    return account;
  }
  const found = await repo.findAccountsByEmail(db.kysely, normaliseEmail(given));
  if (found.length === 0) throw new AppError("NOT_FOUND", `no account with e-mail ${given}`);
  if (found.length > 1) {
    throw new AppError(
      "VALIDATION_ERROR",
      `${found.length} accounts use e-mail ${given} (${found.map((a) => `${a.id}, ${a.kind}`).join("; ")}): ` +
        "give the account id instead of the e-mail",
    );
  }
  return found[0] as AccountRow;
}

export interface AccountSettings {
  accountId: string;
  name: string;
  email: string;
  kind: AccountRow["kind"];
  parentAccountId: string | null;
  credits: number;
  botActive: boolean;
  webhookUrl: string | null;
  webhookSecret: string;
  eventsWebhookUrl: string | null;
  llm: { baseUrl: string | null; model: string | null; apiKeySet: boolean };
  autoRecharge: { threshold: number; amount: number } | null;
  createdAt: string;
  updatedAt: string;
}

export function settingsView(a: AccountRow): AccountSettings {
  return {
    accountId: a.id,
    name: a.name,
    email: a.email,
    kind: a.kind,
    parentAccountId: a.parent_account_id,
    credits: fromHundredths(a.credits),
    botActive: a.bot_active === 1,
    webhookUrl: a.webhook_url,
    webhookSecret: a.webhook_secret,
    eventsWebhookUrl: a.events_webhook_url,
    llm: { baseUrl: a.llm_base_url, model: a.llm_model, apiKeySet: a.llm_api_key !== null },
    autoRecharge:
      a.auto_recharge_threshold !== null && a.auto_recharge_amount !== null
        ? {
            threshold: fromHundredths(a.auto_recharge_threshold),
            amount: fromHundredths(a.auto_recharge_amount),
          }
        : null,
    createdAt: new Date(a.created_at).toISOString(),
    updatedAt: new Date(a.updated_at).toISOString(),
  };
}

export async function updateSettings(db: Db, accountId: string, patch: AccountUpdate): Promise<AccountRow> {
  await db.write((trx) => repo.updateAccount(trx, accountId, patch));
  const account = await repo.findAccountById(db.kysely, accountId);
  if (!account) throw new AppError("NOT_FOUND", "account not found");
  return account;
}

/** The CLI's `account set --auto-recharge-*` for a sub-account: the same rules as the agency's API. */
export async function configureAutoRecharge(
  db: Db,
  account: AccountRow,
  setting: { threshold: number; rechargeAmount: number } | null,
): Promise<void> {
  if (account.kind !== "subaccount" || !account.parent_account_id) {
    throw new AppError("VALIDATION_ERROR", "auto-recharge is set on a sub-account of an agency");
  }
  const agencyId = account.parent_account_id;
  if (setting === null) {
    await db.write((trx) => repo.clearAutoRecharge(trx, agencyId, account.id));
    return;
  }
  const threshold = parseAmount(setting.threshold, "--auto-recharge-threshold");
  const rechargeAmount = parseAmount(setting.rechargeAmount, "--auto-recharge-amount");
  await db.write((trx) => repo.setAutoRecharge(trx, agencyId, account.id, threshold, rechargeAmount));
}

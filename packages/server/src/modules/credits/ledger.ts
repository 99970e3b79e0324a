// The credit ledger: every balance change is one conditional UPDATE of the account (through the
// accounts repository) plus one history row, in the caller's transaction, so concurrent grants and debits never lose an update and the balance always
// equals the sum of the history. Amounts are integer hundredths of a credit.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../platform/db/schema.ts";
import { newId } from "../../platform/ids.ts";
import { iso } from "../../platform/text.ts";
import { addCredits, disarmAutoRechargeIfBelow, takeCredits } from "../accounts/repo.ts";
import { enqueueAccountEvent } from "../delivery/outbound.ts";
import { warnIfCreditsLow } from "../notifications/service.ts";

type Q = Kysely<Database> | Transaction<Database>;

export const AUTO_RECHARGE_EVENT = "subaccount.auto_recharge";

export interface LedgerEntry {
  /** Hundredths, > 0. */
  amount: number;
  kind: "grant" | "bot_reply" | "adjustment";
  description?: string | null;
  /** A bot reply is debited once per message (unique index). */
  messageId?: string | null;
}

export interface LedgerResult {
  transactionId: string;
  balanceAfter: number;
}

/** Adds credits. Re-arms auto-recharge once the balance is back at or above the threshold. */
export async function credit(db: Q, accountId: string, entry: LedgerEntry): Promise<LedgerResult> {
  const balanceAfter = await addCredits(db, accountId, entry.amount);
  const transactionId = await insertTransaction(db, accountId, entry.amount, balanceAfter, entry);
  return { transactionId, balanceAfter };
}

/**
 * Takes credits if the balance covers them; null (and nothing written) when it does not.
 * A debit that takes a sub-account below its auto-recharge threshold queues exactly one
 * `subaccount.auto_recharge` event to its agency (until the balance recovers).
 */
export async function debit(db: Q, accountId: string, entry: LedgerEntry): Promise<LedgerResult | null> {
  const balanceAfter = await takeCredits(db, accountId, entry.amount);
  if (balanceAfter === null) return null;
  const transactionId = await insertTransaction(db, accountId, -entry.amount, balanceAfter, entry);
  await maybeFireAutoRecharge(db, accountId);
  await warnIfCreditsLow(db, accountId, balanceAfter + entry.amount, balanceAfter);
  return { transactionId, balanceAfter };
}

async function insertTransaction(
  db: Q,
  accountId: string,
  signedAmount: number,
  balanceAfter: number,
  entry: LedgerEntry,
): Promise<string> {
  const id = newId("creditTransaction");
  await db
    .insertInto("credit_transactions")
    .values({
      id,
      account_id: accountId,
      amount: signedAmount,
      balance_after: balanceAfter,
      description: entry.description ?? null,
      kind: entry.kind,
      message_id: entry.messageId ?? null,
      created_at: Date.now(),
    })
    .execute();
  return id;
}

/** Disarms with a conditional UPDATE, so of two concurrent debits only one fires the event. */
async function maybeFireAutoRecharge(db: Q, accountId: string): Promise<void> {
  const fired = await disarmAutoRechargeIfBelow(db, accountId);
  if (!fired?.parent_account_id) return;
  const now = Date.now();
  const idempotencyKey = `ar_${newId("event").slice(4)}`;
  await enqueueAccountEvent(
    db,
    fired.parent_account_id,
    AUTO_RECHARGE_EVENT,
    {
      idempotency_key: idempotencyKey,
      sub_account_id: fired.id,
      email: fired.email,
      balance: fired.credits / 100,
      threshold: (fired.auto_recharge_threshold ?? 0) / 100,
      recharge_amount: (fired.auto_recharge_amount ?? 0) / 100,
      created_at: iso(now),
    },
    now,
  );
}

// Right to erasure: a contact goes with its conversation, messages, delivery attempts, memberships,
// pending jobs, the team's private notes and stored attachments. One transaction in which each module
// deletes its own rows (its onContactErased hook), then the contact; then the after-commit work (the
// files nothing else uses are removed).
import type { Transaction } from "kysely";
import type { AppContext, ContactErasure } from "../../context.ts";
import type { Database } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { conversationChanged } from "../../platform/live.ts";
import { conversationIdsOfContact, deleteContact } from "./repo.ts";

export interface Erased {
  messages: number;
  conversations: number;
}

export type AfterCommitTasks = Array<(ctx: AppContext) => Promise<void>>;

/**
 * Erases one contact inside the caller's transaction (a bulk delete erases many in one); the caller
 * runs `afterCommit` once it has committed. Throws CONTACT_NOT_FOUND for another account's contact.
 */
export async function eraseContactIn(
  trx: Transaction<Database>,
  ctx: AppContext,
  accountId: string,
  contactId: string,
  afterCommit: AfterCommitTasks,
): Promise<Erased> {
  const conversationIds = await conversationIdsOfContact(trx, accountId, contactId);
  const erasure: ContactErasure = {
    accountId,
    contactId,
    conversationIds,
    counts: { messages: 0 },
    afterCommit: (task) => afterCommit.push(task),
  };
  for (const hook of ctx.onContactErased) await hook(trx, erasure);
  if (!(await deleteContact(trx, accountId, contactId))) {
    throw new AppError("CONTACT_NOT_FOUND", `contact ${contactId} not found`);
  }
  for (const id of conversationIds) conversationChanged(trx, accountId, id);
  return { messages: erasure.counts.messages, conversations: conversationIds.length };
}

export async function eraseContact(ctx: AppContext, accountId: string, contactId: string): Promise<Erased> {
  const afterCommit: AfterCommitTasks = [];
  const erased = await ctx.db.write((trx) => eraseContactIn(trx, ctx, accountId, contactId, afterCommit));
  for (const task of afterCommit) await task(ctx);
  return erased;
}

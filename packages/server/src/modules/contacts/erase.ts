// Right to erasure: a contact goes with its conversation, messages, delivery attempts, memberships,
// pending jobs, the team's private notes and stored attachments. One transaction in which each module
// deletes its own rows (its onContactErased hook), then the contact; then the after-commit work (the
// files nothing else uses are removed).
import type { AppContext, ContactErasure } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { conversationChanged } from "../../platform/live.ts";
import { conversationIdsOfContact, deleteContact } from "./repo.ts";

export interface Erased {
  messages: number;
  conversations: number;
}

export async function eraseContact(ctx: AppContext, accountId: string, contactId: string): Promise<Erased> {
  const afterCommit: Array<(ctx: AppContext) => Promise<void>> = [];
  const erased = await ctx.db.write(async (trx) => {
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
  });
  for (const task of afterCommit) await task(ctx);
  return erased;
}

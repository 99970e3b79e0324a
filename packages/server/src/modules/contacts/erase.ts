// Right to erasure: a contact goes with its conversation, messages, delivery attempts, memberships,
// pending jobs, the team's private notes and stored attachments. One transaction (each table written
// by its owner's repository), then the files nothing else uses are removed.
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { cancelQueuedJobsOfSubjects } from "../../platform/jobs.ts";
import { conversationChanged } from "../../platform/live.ts";
import { deleteBotRecordsOfConversations } from "../bot/repo.ts";
import { deleteVisitorsOfContact } from "../channels/repo.ts";
import { deleteNotesOfConversations } from "../conversations/notes-repo.ts";
import { deleteConversationsOfContact } from "../conversations/repo.ts";
import { deleteAttemptsOfMessages } from "../delivery/repo.ts";
import { removeContactFromAllLists } from "../lists/repo.ts";
import { deleteBlob } from "../messaging/media/store.ts";
import { blobInUse, deleteMessagesOfContact } from "../messaging/repo.ts";
import { deleteContact } from "./repo.ts";

export interface Erased {
  messages: number;
  conversations: number;
}

export async function eraseContact(ctx: AppContext, accountId: string, contactId: string): Promise<Erased> {
  const { erased, blobs } = await ctx.db.write(async (trx) => {
    const { messageIds, blobs } = await deleteMessagesOfContact(trx, accountId, contactId);
    await deleteAttemptsOfMessages(trx, accountId, messageIds);
    await cancelQueuedJobsOfSubjects(trx, accountId, messageIds);
    const conversationIds = await deleteConversationsOfContact(trx, accountId, contactId);
    await deleteBotRecordsOfConversations(trx, accountId, conversationIds);
    await deleteNotesOfConversations(trx, accountId, conversationIds);
    await removeContactFromAllLists(trx, accountId, contactId);
    // A widget visitor's token stops working with its contact.
    await deleteVisitorsOfContact(trx, accountId, contactId);
    if (!(await deleteContact(trx, accountId, contactId))) {
      throw new AppError("CONTACT_NOT_FOUND", `contact ${contactId} not found`);
    }
    for (const id of conversationIds) conversationChanged(trx, accountId, id);
    return { erased: { messages: messageIds.length, conversations: conversationIds.length }, blobs };
  });
  for (const sha256 of blobs) {
    if (await blobInUse(ctx.db.kysely, sha256)) continue;
    await deleteBlob(ctx.storage, sha256);
  }
  return erased;
}

// Bulk actions on conversations: assign, resolve, reopen, label, unlabel many at once. One
// transaction per call; ids that are not this account's are reported as not found, never touched.
// A conversation's labels are its contact's (the inbox filters by them), so labelling goes through
// the contacts module.
import type { Transaction } from "kysely";
import type { Db } from "../../platform/db/index.ts";
import type { Database } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { conversationChanged } from "../../platform/live.ts";
import { type BulkResult, distinctIds, parseOneLabel, relabelContactsIn } from "../contacts/bulk.ts";
import * as inbox from "./inbox-repo.ts";

export type ConversationBulkAction = "assign" | "resolve" | "reopen" | "label" | "unlabel";

export interface ConversationBulkInput {
  ids: string[];
  action: ConversationBulkAction;
  /** assign: a user of the account, or null to unassign. */
  assigneeId?: string | null | undefined;
  label?: string | undefined;
}

export interface ConversationBulkHooks {
  /** Whether the id is a user of the account (checked before anything is written). */
  isUser(userId: string): Promise<boolean>;
  /** Runs in the transaction with the conversations whose assignee changed (to tell the assignee). */
  onAssigned?: (trx: Transaction<Database>, assigned: inbox.BulkConversationRow[]) => Promise<void>;
}

export async function bulkConversations(
  db: Db,
  accountId: string,
  input: ConversationBulkInput,
  hooks: ConversationBulkHooks,
): Promise<BulkResult> {
  const ids = distinctIds(input.ids);
  const label =
    input.action === "label" || input.action === "unlabel" ? parseOneLabel(input.label) : undefined;
  if (input.action === "assign") {
    if (input.assigneeId === undefined) {
      throw new AppError("VALIDATION_ERROR", "assigneeId: required for assign (null unassigns)");
    }
    if (input.assigneeId !== null && !(await hooks.isUser(input.assigneeId))) {
      throw new AppError("VALIDATION_ERROR", `assigneeId: no user ${input.assigneeId} in this account`);
    }
  }
  const found = await db.write(async (trx) => {
    const rows = await inbox.conversationsByIds(trx, accountId, ids);
    const at = Date.now();
    if (label !== undefined) {
      await relabelContactsIn(
        trx,
        accountId,
        rows.map((r) => r.contact_id),
        label,
        input.action === "label",
      );
      for (const r of rows) conversationChanged(trx, accountId, r.id);
    } else if (input.action === "assign") {
      const assigneeId = input.assigneeId ?? null;
      for (const r of rows)
        await inbox.updateInboxState(trx, accountId, r.id, { assignee_id: assigneeId }, at);
      const changed = rows.filter((r) => r.assignee_id !== assigneeId);
      if (assigneeId !== null && changed.length > 0) await hooks.onAssigned?.(trx, changed);
    } else {
      const status = input.action === "resolve" ? "resolved" : "open";
      for (const r of rows) await inbox.updateInboxState(trx, accountId, r.id, { status }, at);
    }
    return new Set(rows.map((r) => r.id));
  });
  return { updated: found.size, notFound: ids.filter((id) => !found.has(id)) };
}

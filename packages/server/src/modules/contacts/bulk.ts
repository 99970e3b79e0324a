// Bulk actions on contacts: label, unlabel or erase many at once. One transaction per call, so a
// failure changes nothing; ids that are not this account's are reported as not found, never touched.
import type { Transaction } from "kysely";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { type AfterCommitTasks, eraseContactIn } from "./erase.ts";
import * as repo from "./repo.ts";
import { labelsOf, MAX_LABELS, parseLabels } from "./service.ts";

export const MAX_BULK_IDS = 500;

export type ContactBulkAction = "label" | "unlabel" | "delete";

export interface BulkResult {
  updated: number;
  notFound: string[];
}

/** One label as given by a client (trimmed, checked as on a single contact), or a 400 naming `field`. */
export function parseOneLabel(raw: string | undefined, field = "label"): string {
  if (raw === undefined || raw.trim() === "") {
    throw new AppError("VALIDATION_ERROR", `${field}: required for this action`);
  }
  const [label] = parseLabels([raw]);
  if (label === undefined) throw new AppError("VALIDATION_ERROR", `${field}: required for this action`);
  return label;
}

/** The distinct ids, in the order given (a repeated id counts once). */
export function distinctIds(ids: string[]): string[] {
  return [...new Set(ids)];
}

/**
 * Adds or removes one label on these contacts of the account, inside the caller's transaction
 * (conversations label their contacts through this). Labels compare ignoring case, as everywhere.
 * Answers the ids of the contacts found; a contact that would exceed the label limit is a 400.
 */
export async function relabelContactsIn(
  trx: Transaction<Database>,
  accountId: string,
  contactIds: string[],
  label: string,
  add: boolean,
): Promise<Set<string>> {
  const contacts = await repo.findContactsByIds(trx, accountId, distinctIds(contactIds));
  const key = label.toLowerCase();
  const now = Date.now();
  for (const c of contacts) {
    const labels = labelsOf(c);
    const has = labels.some((l) => l.toLowerCase() === key);
    if (has === add) continue;
    const next = add ? [...labels, label] : labels.filter((l) => l.toLowerCase() !== key);
    if (next.length > MAX_LABELS) {
      throw new AppError("VALIDATION_ERROR", `label: contact ${c.id} already has ${MAX_LABELS} labels`);
    }
    await repo.updateContact(trx, accountId, c.id, {
      labels: JSON.stringify(next),
      updated_at: Math.max(now, c.updated_at),
    });
  }
  return new Set(contacts.map((c) => c.id));
}

/** Applies one action to many contacts in one transaction; erasure goes through each module's hook. */
export async function bulkContacts(
  ctx: AppContext,
  accountId: string,
  input: { ids: string[]; action: ContactBulkAction; label?: string | undefined },
): Promise<BulkResult> {
  const ids = distinctIds(input.ids);
  const label =
    input.action === "label" || input.action === "unlabel" ? parseOneLabel(input.label) : undefined;
  const afterCommit: AfterCommitTasks = [];
  const found = await ctx.db.write(async (trx) => {
    if (label !== undefined) return relabelContactsIn(trx, accountId, ids, label, input.action === "label");
    const contacts = await repo.findContactsByIds(trx, accountId, ids);
    for (const c of contacts) await eraseContactIn(trx, ctx, accountId, c.id, afterCommit);
    return new Set(contacts.map((c) => c.id));
  });
  for (const task of afterCommit) await task(ctx);
  return { updated: found.size, notFound: ids.filter((id) => !found.has(id)) };
}

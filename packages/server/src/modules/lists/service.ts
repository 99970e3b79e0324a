// List rules: creation, paging, membership (never duplicated: the primary key decides).
import type { Db } from "../../platform/db/index.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { DEFAULT_PAGE_SIZE, decodeCursor, toPage } from "../../platform/pagination.ts";
import { iso } from "../../platform/text.ts";
import { distinctIds } from "../contacts/bulk.ts";
import { findContactsByIds } from "../contacts/repo.ts";
import { contactView, requireContact } from "../contacts/service.ts";
import * as repo from "./repo.ts";

export const MAX_LIST_NAME = 200;

export interface ListView {
  id: string;
  name: string;
  memberCount: number;
  createdAt: string;
  updatedAt: string;
}

export function listView(l: repo.ListWithCount): ListView {
  return {
    id: l.id,
    name: l.name,
    memberCount: l.member_count,
    createdAt: iso(l.created_at),
    updatedAt: iso(l.updated_at),
  };
}

export async function createList(db: Db, accountId: string, rawName: string): Promise<repo.ListWithCount> {
  const name = rawName.trim();
  if (name === "") throw new AppError("VALIDATION_ERROR", "name must not be empty");
  // The HTTP schema already caps it; the CLI reaches here directly.
  if (name.length > MAX_LIST_NAME) {
    throw new AppError("VALIDATION_ERROR", `name must be at most ${MAX_LIST_NAME} characters`);
  }
  const now = Date.now();
  const list = { id: newId("list"), account_id: accountId, name, created_at: now, updated_at: now };
  await repo.insertList(db.kysely, list);
  return { ...list, member_count: 0 };
}

export async function requireList(db: Db, accountId: string, listId: string): Promise<repo.ListWithCount> {
  const list = await repo.findListById(db.kysely, accountId, listId);
  if (!list) throw new AppError("LIST_NOT_FOUND", `list ${listId} not found`);
  return list;
}

async function assertListExists(db: Db, accountId: string, listId: string): Promise<void> {
  if (!(await repo.listExists(db.kysely, accountId, listId))) {
    throw new AppError("LIST_NOT_FOUND", `list ${listId} not found`);
  }
}

export interface PageInput {
  limit?: number;
  cursor?: string;
}

export async function pageLists(db: Db, accountId: string, query: PageInput) {
  const after = decodeCursor(query.cursor);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await repo.listLists(db.kysely, accountId, after, limit + 1);
  return toPage(rows, limit, (r) => r.id, listView);
}

export async function addContactToList(
  db: Db,
  accountId: string,
  listId: string,
  contactId: string,
): Promise<boolean> {
  await assertListExists(db, accountId, listId);
  await requireContact(db, accountId, contactId);
  return repo.addMember(db.kysely, accountId, listId, contactId);
}

/**
 * Adds many contacts to a list in one transaction. Ids that are not this account's contacts are
 * reported as not found and change nothing; members already there stay as they are.
 */
export async function addContactsToList(
  db: Db,
  accountId: string,
  listId: string,
  rawContactIds: string[],
): Promise<{ added: number; alreadyMembers: number; notFound: string[] }> {
  const ids = distinctIds(rawContactIds);
  return db.write(async (trx) => {
    if (!(await repo.listExists(trx, accountId, listId))) {
      throw new AppError("LIST_NOT_FOUND", `list ${listId} not found`);
    }
    const found = new Set((await findContactsByIds(trx, accountId, ids)).map((c) => c.id));
    const contactIds = ids.filter((id) => found.has(id));
    const already = await repo.membersAmong(trx, accountId, listId, contactIds);
    await repo.addMembers(
      trx,
      accountId,
      listId,
      contactIds.filter((id) => !already.has(id)),
    );
    return {
      added: contactIds.length - already.size,
      alreadyMembers: already.size,
      notFound: ids.filter((id) => !found.has(id)),
    };
  });
}

export async function removeContactFromList(
  db: Db,
  accountId: string,
  listId: string,
  contactId: string,
): Promise<boolean> {
  await assertListExists(db, accountId, listId);
  await requireContact(db, accountId, contactId);
  return repo.removeMember(db.kysely, accountId, listId, contactId);
}

/** Members in contact id order. The page is one query; only an empty page checks that the list exists. */
export async function pageMembers(db: Db, accountId: string, listId: string, query: PageInput) {
  const after = decodeCursor(query.cursor);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await repo.listMembers(db.kysely, accountId, listId, after, limit + 1);
  if (rows.length === 0) await assertListExists(db, accountId, listId);
  return toPage(rows, limit, (r) => r.id, contactView);
}

export async function renameList(
  db: Db,
  accountId: string,
  listId: string,
  rawName: string,
): Promise<repo.ListWithCount> {
  const name = rawName.trim();
  if (name === "") throw new AppError("VALIDATION_ERROR", "name must not be empty");
  if (name.length > MAX_LIST_NAME) {
    throw new AppError("VALIDATION_ERROR", `name must be at most ${MAX_LIST_NAME} characters`);
  }
  if (!(await repo.renameList(db.kysely, accountId, listId, name, Date.now()))) {
    throw new AppError("LIST_NOT_FOUND", `list ${listId} not found`);
  }
  return requireList(db, accountId, listId);
}

/** Deletes a list and its memberships in one transaction; the contacts stay. */
export async function deleteList(db: Db, accountId: string, listId: string): Promise<void> {
  const deleted = await db.write((trx) => repo.deleteList(trx, accountId, listId));
  if (!deleted) throw new AppError("LIST_NOT_FOUND", `list ${listId} not found`);
}

export function listsOfContact(db: Db, accountId: string, contactId: string) {
  return repo.listsOfContact(db.kysely, accountId, contactId);
}

// Canned replies (issue 33): account-wide snippets a teammate inserts in the reply box by typing
// "/shortcut". The server only keeps them: placeholders ({{firstName}}…) are filled by the web app
// when one is inserted, so the stored body is what was written. Shortcuts are stored in lower case and
// unique per account (the unique index decides a race).
import type { Db } from "../../platform/db/index.ts";
import { isUniqueViolation } from "../../platform/db/index.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { DEFAULT_PAGE_SIZE, decodeCursor, toPage } from "../../platform/pagination.ts";
import { iso } from "../../platform/text.ts";
import * as repo from "./repo.ts";
import { BODY_MAX_LENGTH, SHORTCUT_MAX_LENGTH, TITLE_MAX_LENGTH } from "./schemas.ts";

/** The reply box lists them all; an account with more sees the first ones by shortcut. */
export const LISTED_AT_MOST = 1000;

const SHORTCUT = /^[a-z0-9_-]+$/;

export interface CannedReplyInput {
  shortcut?: string;
  title?: string;
  body?: string;
}

export function cannedReplyView(r: repo.CannedReplyRow) {
  return {
    id: r.id,
    shortcut: r.shortcut,
    title: r.title,
    body: r.body,
    createdAt: iso(Number(r.created_at)),
    updatedAt: iso(Number(r.updated_at)),
  };
}

function notFound(id: string): AppError {
  return new AppError("NOT_FOUND", `canned reply ${id} not found`);
}

function taken(shortcut: string): AppError {
  return new AppError("CANNED_REPLY_EXISTS", `another canned reply already uses the shortcut "${shortcut}"`);
}

/** Checks and normalises the fields given (the HTTP schema checks too; these messages name the field). */
function clean(input: CannedReplyInput): CannedReplyInput {
  const out: CannedReplyInput = {};
  if (input.shortcut !== undefined) {
    const shortcut = input.shortcut.trim().toLowerCase();
    if (!SHORTCUT.test(shortcut) || shortcut.length > SHORTCUT_MAX_LENGTH) {
      throw new AppError(
        "VALIDATION_ERROR",
        `shortcut must be 1 to ${SHORTCUT_MAX_LENGTH} letters, digits, "-" or "_"`,
      );
    }
    out.shortcut = shortcut;
  }
  if (input.title !== undefined) {
    const title = input.title.trim();
    if (title === "" || title.length > TITLE_MAX_LENGTH) {
      throw new AppError("VALIDATION_ERROR", `title must be 1 to ${TITLE_MAX_LENGTH} characters`);
    }
    out.title = title;
  }
  if (input.body !== undefined) {
    // Only the ends are trimmed: line breaks inside the snippet are kept.
    const body = input.body.trim();
    if (body === "" || body.length > BODY_MAX_LENGTH) {
      throw new AppError("VALIDATION_ERROR", `body must be 1 to ${BODY_MAX_LENGTH} characters`);
    }
    out.body = body;
  }
  return out;
}

/** Runs a write whose shortcut may collide; a lost race on the unique index is the same 409. */
async function writeShortcut<T>(shortcut: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (shortcut !== undefined && isUniqueViolation(err)) throw taken(shortcut);
    throw err;
  }
}

export async function createCannedReply(
  db: Db,
  accountId: string,
  input: Required<CannedReplyInput>,
): Promise<repo.CannedReplyRow> {
  const { shortcut, title, body } = clean(input) as Required<CannedReplyInput>;
  const now = Date.now();
  const row: repo.CannedReplyRow = {
    id: newId("cannedReply"),
    account_id: accountId,
    shortcut,
    title,
    body,
    created_at: now,
    updated_at: now,
  };
  return writeShortcut(shortcut, () =>
    db.write(async (trx) => {
      if (await repo.findByShortcut(trx, accountId, shortcut)) throw taken(shortcut);
      await repo.insertCannedReply(trx, row);
      return row;
    }),
  );
}

/** Changes the fields given; another account's reply is not found. */
export async function updateCannedReply(
  db: Db,
  accountId: string,
  id: string,
  input: CannedReplyInput,
): Promise<repo.CannedReplyRow> {
  const changes = clean(input);
  return writeShortcut(changes.shortcut, () =>
    db.write(async (trx) => {
      const current = await repo.findCannedReply(trx, accountId, id);
      if (!current) throw notFound(id);
      if (changes.shortcut !== undefined && changes.shortcut !== current.shortcut) {
        if (await repo.findByShortcut(trx, accountId, changes.shortcut)) throw taken(changes.shortcut);
      }
      const updated = { ...changes, updated_at: Date.now() };
      await repo.updateCannedReply(trx, accountId, id, updated);
      return { ...current, ...updated };
    }),
  );
}

export async function deleteCannedReply(db: Db, accountId: string, id: string): Promise<void> {
  const deleted = await db.write((trx) => repo.deleteCannedReply(trx, accountId, id));
  if (!deleted) throw notFound(id);
}

export async function pageCannedReplies(
  db: Db,
  accountId: string,
  query: { limit?: number; cursor?: string },
) {
  const after = decodeCursor(query.cursor);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await repo.pageCannedReplies(db.kysely, accountId, after, limit + 1);
  return toPage(rows, limit, (r) => r.id, cannedReplyView);
}

/** All of the account's replies (up to LISTED_AT_MOST) in shortcut order: the reply box's list. */
export async function allCannedReplies(db: Db, accountId: string) {
  const rows = await repo.cannedRepliesByShortcut(db.kysely, accountId, LISTED_AT_MOST);
  return rows.map(cannedReplyView);
}

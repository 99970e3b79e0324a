// Private notes (issues 33 and 35): the team writes them in a conversation; they are never messages, so
// nothing here reaches the bot, delivery, webhooks, credits or /v1. "@Name" or "@e-mail" mentions a
// teammate, resolved against the account's users when the note is written; each mentioned teammate
// (not the author) is notified (note.mentioned) in the note's own transaction.
import type { Db } from "../../platform/db/index.ts";
import type { UserRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { conversationChanged } from "../../platform/live.ts";
import { iso } from "../../platform/text.ts";
import { findUsersByIds, listUsers } from "../accounts/users-repo.ts";
import { findConversationById } from "../conversations/repo.ts";
import { notify } from "../notifications/service.ts";
import * as notesRepo from "./repo.ts";
import { NOTE_MAX_LENGTH } from "./schemas.ts";

/** A conversation has few notes: the thread shows its last 500. */
export const NOTES_SHOWN = 500;

/** How much of the note the notification carries. */
const NOTIFICATION_BODY_LENGTH = 200;

type Person = Pick<UserRow, "id" | "name" | "email">;

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/**
 * The ids of the teammates a text mentions, in order of first mention: "@" (at the start or after a
 * character that is not part of a word, so an e-mail address in the text is not a mention) followed
 * by a teammate's name or e-mail address, in any case, and then the end or a non-word character. The
 * longest match wins ("@Sam Lee" is Sam Lee, not Sam). Anything else after "@" is just text.
 */
export function findMentions(text: string, team: readonly Person[]): string[] {
  const labels = team
    .flatMap((u) =>
      [u.name?.trim() ?? "", u.email].filter((l) => l.length > 0).map((label) => ({ label, id: u.id })),
    )
    .sort((a, b) => b.label.length - a.label.length);
  const found: string[] = [];
  for (let at = text.indexOf("@"); at >= 0; at = text.indexOf("@", at + 1)) {
    const before = text[at - 1];
    if (before !== undefined && (WORD_CHAR.test(before) || before === "." || before === "@")) continue;
    const rest = text.slice(at + 1);
    const hit = labels.find(({ label }) => {
      if (rest.slice(0, label.length).toLowerCase() !== label.toLowerCase()) return false;
      const after = rest[label.length];
      return after === undefined || !WORD_CHAR.test(after);
    });
    if (hit && !found.includes(hit.id)) found.push(hit.id);
  }
  return found;
}

function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

function personJson(id: string, user: Person | undefined) {
  return { id, name: user?.name ?? null, email: user?.email ?? null };
}

function parseMentions(json: string): string[] {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

export function noteJson(row: notesRepo.NoteRow, users: Map<string, Person>) {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    body: row.body,
    author: personJson(row.author_user_id, users.get(row.author_user_id)),
    // A teammate removed since is no longer listed (the text still says who it was).
    mentions: parseMentions(row.mentions).flatMap((id) => {
      const user = users.get(id);
      return user ? [personJson(id, user)] : [];
    }),
    createdAt: iso(Number(row.created_at)),
  };
}

/**
 * Writes a note by `author` and tells the teammates it mentions, in one transaction; the open inboxes
 * hear of it after the commit. A bad body or another account's conversation changes nothing.
 */
export async function addNote(
  db: Db,
  accountId: string,
  conversationId: string,
  author: Person,
  rawBody: string,
): Promise<ReturnType<typeof noteJson>> {
  const body = rawBody.trim();
  if (body.length === 0) throw new AppError("VALIDATION_ERROR", "body must not be empty or whitespace-only");
  if (body.length > NOTE_MAX_LENGTH) {
    throw new AppError("VALIDATION_ERROR", `body must be at most ${NOTE_MAX_LENGTH} characters`);
  }
  return db.write(async (trx) => {
    if (!(await findConversationById(trx, accountId, conversationId))) {
      throw new AppError("CONVERSATION_NOT_FOUND", `conversation ${conversationId} not found`);
    }
    const team = await listUsers(trx, accountId);
    const mentions = findMentions(body, team);
    const at = Date.now();
    const row: notesRepo.NoteRow = {
      id: newId("note"),
      account_id: accountId,
      conversation_id: conversationId,
      author_user_id: author.id,
      body,
      mentions: JSON.stringify(mentions),
      created_at: at,
    };
    await notesRepo.insertNote(trx, row);
    const told = mentions.filter((id) => id !== author.id);
    // Never with an empty list: notify would fall back to its default audience.
    if (told.length > 0) {
      await notify(trx, {
        accountId,
        kind: "note.mentioned",
        title: `${author.name?.trim() || author.email} mentioned you in a note`,
        body: shorten(body, NOTIFICATION_BODY_LENGTH),
        link: `/inbox/${conversationId}`,
        userIds: told,
        webhook: {
          conversation_id: conversationId,
          note_id: row.id,
          author_id: author.id,
          mentioned_user_ids: told,
          created_at: iso(at),
        },
        at,
      });
    }
    conversationChanged(trx, accountId, conversationId);
    return noteJson(row, new Map(team.map((u) => [u.id, u])));
  });
}

/** The conversation's notes, oldest first (the last NOTES_SHOWN); another account's: not found. */
export async function notesOf(db: Db, accountId: string, conversationId: string) {
  if (!(await findConversationById(db.kysely, accountId, conversationId))) {
    throw new AppError("CONVERSATION_NOT_FOUND", `conversation ${conversationId} not found`);
  }
  const rows = await notesRepo.lastNotesOf(db.kysely, accountId, conversationId, NOTES_SHOWN);
  const users = await findUsersByIds(
    db.kysely,
    accountId,
    rows.flatMap((r) => [r.author_user_id, ...parseMentions(r.mentions)]),
  );
  return rows.map((r) => noteJson(r, users));
}

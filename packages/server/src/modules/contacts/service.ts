// Contact rules: phone and e-mail normalisation, dedupe by phone (a unique index decides), lookup,
// updates. Every function is scoped to one account.
import type { Db } from "../../platform/db/index.ts";
import { isUniqueViolation } from "../../platform/db/index.ts";
import type { ContactRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { DEFAULT_PAGE_SIZE, decodeCursor, toPage } from "../../platform/pagination.ts";
import { iso, isValidEmail, normaliseEmail } from "../../platform/text.ts";
import { toE164 } from "./phone.ts";
import * as repo from "./repo.ts";

export interface ContactView {
  id: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  email: string | null;
  createdAt: string;
  updatedAt: string;
  botActive: boolean;
  labels: string[];
  smsOptedOutAt: string | null;
}

/** THE contact JSON, used by every endpoint that returns a contact. */
export function contactView(c: ContactRow): ContactView {
  return {
    id: c.id,
    firstName: c.first_name,
    lastName: c.last_name,
    phone: c.phone,
    email: c.email,
    createdAt: iso(c.created_at),
    updatedAt: iso(c.updated_at),
    botActive: c.bot_active === 1,
    labels: labelsOf(c),
    smsOptedOutAt: c.sms_opted_out_at == null ? null : iso(Number(c.sms_opted_out_at)),
  };
}

export const MAX_LABELS = 20;
export const MAX_LABEL_LENGTH = 50;

/** The labels stored on a contact row (a JSON array; anything else reads as none). */
export function labelsOf(c: Pick<ContactRow, "labels">): string[] {
  try {
    const parsed: unknown = JSON.parse(c.labels);
    return Array.isArray(parsed) ? parsed.filter((l): l is string => typeof l === "string") : [];
  } catch {
    return [];
  }
}

/**
 * Labels as given by a client: trimmed, duplicates (ignoring case) dropped, each 1..50 characters
 * without quotes, backslashes, commas or control characters (they are matched as text), at most 20.
 */
export function parseLabels(raw: string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const item of raw) {
    const label = item.trim();
    if (label === "") continue;
    if (label.length > MAX_LABEL_LENGTH) {
      throw new AppError(
        "VALIDATION_ERROR",
        `labels: "${label.slice(0, 20)}…" is longer than ${MAX_LABEL_LENGTH} characters`,
      );
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (/["\\,\u0000-\u001f]/.test(label)) {
      throw new AppError(
        "VALIDATION_ERROR",
        `labels: "${label}" may not contain quotes, backslashes or commas`,
      );
    }
    const key = label.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(label);
  }
  if (out.length > MAX_LABELS)
    throw new AppError("VALIDATION_ERROR", `labels: at most ${MAX_LABELS} per contact`);
  return out;
}

/** E.164 of a client-supplied number, or 400 INVALID_PHONE. */
export function parsePhone(raw: string): string {
  const e164 = toE164(raw);
  if (!e164) {
    throw new AppError(
      "INVALID_PHONE",
      `"${raw}" is not a valid phone number: a valid country code is required (e.g. +14155550100)`,
    );
  }
  return e164;
}

/** Lower-cased e-mail, or 400 INVALID_EMAIL. */
export function parseEmail(raw: string): string {
  const email = normaliseEmail(raw);
  if (!isValidEmail(email)) throw new AppError("INVALID_EMAIL", `"${raw}" is not a valid e-mail address`);
  return email;
}

/** Blank and null both mean "not given" (forms send empty fields). */
function given(v: string | null | undefined): string | null {
  if (v === undefined || v === null) return null;
  return v.trim() === "" ? null : v;
}

function cleanName(v: string | null | undefined): string | null {
  const g = given(v);
  return g === null ? null : g.trim();
}

/** `phone` and its alias `phoneNumber`: one number, or a 400 when they name two different ones. */
function phoneOf(input: { phone?: string | null; phoneNumber?: string | null }): string | null {
  const a = given(input.phone);
  const b = given(input.phoneNumber);
  const pa = a === null ? null : parsePhone(a);
  const pb = b === null ? null : parsePhone(b);
  if (pa !== null && pb !== null && pa !== pb) {
    throw new AppError("VALIDATION_ERROR", "phone and phoneNumber name different numbers; send one of them");
  }
  return pa ?? pb;
}

export interface CreateContactInput {
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  phoneNumber?: string | null;
  email?: string | null;
  labels?: string[];
}

/**
 * A new contact, or the existing one with the same phone (unchanged). The insert does nothing when
 * the phone is taken and the winner is read back, so concurrent creates of one number agree.
 */
export async function createContact(
  db: Db,
  accountId: string,
  input: CreateContactInput,
): Promise<{ contact: ContactRow; created: boolean }> {
  const phone = phoneOf(input);
  const rawEmail = given(input.email);
  const email = rawEmail === null ? null : parseEmail(rawEmail);
  if (phone === null && email === null) {
    throw new AppError("MISSING_IDENTIFIER", "a contact needs a phone or an email");
  }
  const labels = input.labels === undefined ? [] : parseLabels(input.labels);
  const now = Date.now();
  const row: ContactRow = {
    id: newId("contact"),
    account_id: accountId,
    first_name: cleanName(input.firstName),
    last_name: cleanName(input.lastName),
    phone,
    email,
    external_id: null,
    bot_active: 1,
    labels: JSON.stringify(labels),
    sms_opted_out_at: null,
    created_at: now,
    updated_at: now,
  };
  const inserted = await repo.insertContactIfAbsent(db.kysely, accountId, row);
  if (inserted) return { contact: row, created: true };
  // Only the phone can conflict (ids are fresh): the existing contact with that number answers.
  const existing = phone === null ? undefined : await repo.findContactByPhone(db.kysely, accountId, phone);
  if (!existing) throw new Error("contact insert conflicted but no contact holds the phone");
  return { contact: existing, created: false };
}

/** A query-string phone: an unencoded "+" arrives as a space, so a leading space before digits is a "+". */
export function queryPhone(raw: string): string {
  return parsePhone(/^\s+\d/.test(raw) ? `+${raw.trimStart()}` : raw);
}

export async function lookupContact(
  db: Db,
  accountId: string,
  query: { phoneNumber?: string; email?: string },
): Promise<ContactRow> {
  const phoneRaw = given(query.phoneNumber);
  const emailRaw = given(query.email);
  let found: ContactRow | undefined;
  if (phoneRaw !== null) {
    found = await repo.findContactByPhone(db.kysely, accountId, queryPhone(phoneRaw));
  } else if (emailRaw !== null) {
    found = await repo.findContactByEmail(db.kysely, accountId, parseEmail(emailRaw));
  } else {
    throw new AppError("VALIDATION_ERROR", "phoneNumber or email is required");
  }
  if (!found) throw new AppError("CONTACT_NOT_FOUND", "no contact matches");
  return found;
}

export async function requireContact(db: Db, accountId: string, contactId: string): Promise<ContactRow> {
  const contact = await repo.findContactById(db.kysely, accountId, contactId);
  if (!contact) throw new AppError("CONTACT_NOT_FOUND", `contact ${contactId} not found`);
  return contact;
}

export interface UpdateContactInput extends CreateContactInput {
  botActive?: boolean;
}

/** Partial update (PATCH and PUT): absent fields stay, null or "" clears an optional field. */
export async function updateContact(
  db: Db,
  accountId: string,
  contactId: string,
  input: UpdateContactInput,
): Promise<ContactRow> {
  const current = await requireContact(db, accountId, contactId);
  const patch: repo.ContactPatch = {};
  if (input.firstName !== undefined) patch.first_name = cleanName(input.firstName);
  if (input.lastName !== undefined) patch.last_name = cleanName(input.lastName);
  if (input.phone !== undefined || input.phoneNumber !== undefined) patch.phone = phoneOf(input);
  if (input.email !== undefined) {
    const raw = given(input.email);
    patch.email = raw === null ? null : parseEmail(raw);
  }
  if (input.botActive !== undefined) patch.bot_active = input.botActive ? 1 : 0;
  if (input.labels !== undefined) patch.labels = JSON.stringify(parseLabels(input.labels));
  if (Object.keys(patch).length === 0) return current;

  const phone = patch.phone !== undefined ? patch.phone : current.phone;
  const email = patch.email !== undefined ? patch.email : current.email;
  // A custom-channel contact is identified by its sender id; any other needs a phone or an e-mail.
  if (phone === null && email === null && current.external_id === null) {
    throw new AppError("MISSING_IDENTIFIER", "a contact needs a phone or an email; both cannot be removed");
  }
  patch.updated_at = Math.max(Date.now(), current.updated_at);
  try {
    // One autocommit statement: the unique index on (account, phone) decides a collision.
    await repo.updateContact(db.kysely, accountId, contactId, patch);
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError("CONTACT_EXISTS", `another contact already has the phone number ${phone}`);
    }
    throw err;
  }
  return requireContact(db, accountId, contactId);
}

export interface ContactSearch {
  q?: string;
  label?: string;
  cursor?: string;
  limit?: number;
}

/** Contacts newest first, optionally matching a text (name, phone, e-mail, fromId) and a label. */
export async function searchContacts(db: Db, accountId: string, query: ContactSearch) {
  const before = decodeCursor(query.cursor);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const q = given(query.q)?.trim() ?? null;
  const label = given(query.label)?.trim() ?? null;
  const rows = await repo.searchContacts(db.kysely, accountId, {
    q,
    label,
    beforeId: before,
    limit: limit + 1,
  });
  return toPage(rows, limit, (r) => r.id, contactView);
}

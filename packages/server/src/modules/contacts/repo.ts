// Contacts SQL. Every function takes the account id first; another account's row is never seen.
import { type Insertable, type Kysely, sql, type Transaction, type Updateable } from "kysely";
import { chunks } from "../../platform/db/chunks.ts";
import { param, prepared } from "../../platform/db/prepared.ts";
import type { ContactRow, ContactsTable, Database } from "../../platform/db/schema.ts";
import { newId } from "../../platform/ids.ts";

type Q = Kysely<Database> | Transaction<Database>;

export async function findContactById(
  db: Q,
  accountId: string,
  contactId: string,
): Promise<ContactRow | undefined> {
  return db
    .selectFrom("contacts")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", contactId)
    .executeTakeFirst();
}

const byExternalId = prepared<{ accountId: string; externalId: string }, ContactRow>((db) =>
  db
    .selectFrom("contacts")
    .selectAll()
    .where("account_id", "=", param<string>("accountId"))
    .where("external_id", "=", param<string>("externalId")),
);

export async function findContactByExternalId(
  db: Q,
  accountId: string,
  externalId: string,
): Promise<ContactRow | undefined> {
  return byExternalId.first(db, { accountId, externalId });
}

const byPhone = prepared<{ accountId: string; phone: string }, ContactRow>((db) =>
  db
    .selectFrom("contacts")
    .selectAll()
    .where("account_id", "=", param<string>("accountId"))
    .where("phone", "=", param<string>("phone")),
);

export async function findContactByPhone(
  db: Q,
  accountId: string,
  phoneE164: string,
): Promise<ContactRow | undefined> {
  return byPhone.first(db, { accountId, phone: phoneE164 });
}

export interface ExternalContactInput {
  externalId: string;
  /** E.164 when the external id is a phone number. */
  phone: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
}

/**
 * The contact of a custom-channel sender: found by (account, fromId), else adopted by phone (a contact
 * created through POST /contacts with that number), else created. Unique indexes decide under
 * concurrency: the insert does nothing on conflict and the winner's row is read back.
 */
export async function findOrCreateContactByExternalId(
  db: Q,
  accountId: string,
  input: ExternalContactInput,
): Promise<{ contact: ContactRow; created: boolean }> {
  const existing = await findContactByExternalId(db, accountId, input.externalId);
  if (existing) return { contact: existing, created: false };
  const now = Date.now();
  if (input.phone) {
    const byPhone = await findContactByPhone(db, accountId, input.phone);
    if (byPhone && byPhone.external_id === null) {
      await db
        .updateTable("contacts")
        .set({ external_id: input.externalId, updated_at: now })
        .where("account_id", "=", accountId)
        .where("id", "=", byPhone.id)
        .where("external_id", "is", null)
        .execute();
      const adopted = await findContactByExternalId(db, accountId, input.externalId);
      if (adopted) return { contact: adopted, created: false };
    }
  }
  const id = newId("contact");
  const insert = (phone: string | null) =>
    db
      .insertInto("contacts")
      .values({
        id,
        account_id: accountId,
        first_name: input.firstName,
        last_name: input.lastName,
        phone,
        email: input.email,
        external_id: input.externalId,
        bot_active: 1,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  await insert(input.phone);
  let row = await findContactByExternalId(db, accountId, input.externalId);
  if (!row && input.phone) {
    // The phone belongs to another contact (e.g. one with another fromId): keep it there.
    await insert(null);
    row = await findContactByExternalId(db, accountId, input.externalId);
  }
  if (!row) throw new Error("contact upsert found no row after insert");
  return { contact: row, created: row.id === id };
}

/**
 * The contact of a provider channel that knows its customers by phone (WhatsApp's wa_id, an SMS
 * sender): the contact with that number (the same one the contacts API created), else a new one with
 * the provider's profile name. A contact found without a first name takes the profile's.
 */
export async function findOrCreateContactByPhone(
  db: Q,
  accountId: string,
  input: { phone: string; firstName: string | null; lastName: string | null },
): Promise<ContactRow> {
  const existing = await findContactByPhone(db, accountId, input.phone);
  if (existing) {
    if (existing.first_name === null && input.firstName) {
      await db
        .updateTable("contacts")
        .set({ first_name: input.firstName, last_name: input.lastName, updated_at: Date.now() })
        .where("account_id", "=", accountId)
        .where("id", "=", existing.id)
        .execute();
      return { ...existing, first_name: input.firstName, last_name: input.lastName };
    }
    return existing;
  }
  const now = Date.now();
  await db
    .insertInto("contacts")
    .values({
      id: newId("contact"),
      account_id: accountId,
      first_name: input.firstName,
      last_name: input.lastName,
      phone: input.phone,
      email: null,
      external_id: null,
      bot_active: 1,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  // A concurrent insert of the same number won: its row answers.
  const row = await findContactByPhone(db, accountId, input.phone);
  if (!row) throw new Error("contact upsert by phone found no row after insert");
  return row;
}

/** STOP (at = when) or START (null) from an SMS sender: the contact with that number, if any. */
export async function setSmsOptOut(
  db: Q,
  accountId: string,
  phone: string,
  at: number | null,
): Promise<void> {
  await db
    .updateTable("contacts")
    .set({ sms_opted_out_at: at, updated_at: Date.now() })
    .where("account_id", "=", accountId)
    .where("phone", "=", phone)
    .execute();
}

/** Several contacts may share one e-mail (only phones are unique): the earliest created wins. */
export async function findContactByEmail(
  db: Q,
  accountId: string,
  email: string,
): Promise<ContactRow | undefined> {
  return db
    .selectFrom("contacts")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("email", "=", email)
    .orderBy("created_at", "asc")
    .orderBy("id", "asc")
    .limit(1)
    .executeTakeFirst();
}

export type NewContact = Omit<Insertable<ContactsTable>, "account_id">;

/**
 * Inserts unless the phone (or another unique key) is taken; true when this row was written.
 * ON CONFLICT DO NOTHING rather than catching the violation, so it is safe inside a PostgreSQL
 * transaction too (a raw unique violation would abort it).
 */
export async function insertContactIfAbsent(db: Q, accountId: string, contact: NewContact): Promise<boolean> {
  const result = await db
    .insertInto("contacts")
    .values({ ...contact, account_id: accountId })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Statements stay well under both databases' limits on bound values (SQLite 32,766, PostgreSQL 65,535). */
const BATCH_VALUES = 1000;
const BATCH_ROWS = 500;

/** The contacts holding any of these phones, external ids or e-mails, each once, for a bulk look-up. */
export async function findContactsByKeys(
  db: Q,
  accountId: string,
  keys: { phones: string[]; externalIds: string[]; emails: string[] },
): Promise<ContactRow[]> {
  // A contact can hold several of the keys: one row (one object) per contact.
  const rows = new Map<string, ContactRow>();
  const columns = [
    ["phone", keys.phones],
    ["external_id", keys.externalIds],
    ["email", keys.emails],
  ] as const;
  for (const [column, values] of columns) {
    for (const part of chunks([...new Set(values)], BATCH_VALUES)) {
      const found = await db
        .selectFrom("contacts")
        .selectAll()
        .where("account_id", "=", accountId)
        .where(column, "in", part)
        .execute();
      for (const c of found) rows.set(c.id, c);
    }
  }
  return [...rows.values()];
}

/**
 * Inserts many contacts, each unless its phone or external id is taken (as insertContactIfAbsent);
 * answers the ids written.
 */
export async function insertContactsIfAbsent(
  db: Q,
  accountId: string,
  contacts: NewContact[],
): Promise<Set<string>> {
  const written = new Set<string>();
  for (const part of chunks(contacts, BATCH_ROWS)) {
    const rows = await db
      .insertInto("contacts")
      .values(part.map((c) => ({ ...c, account_id: accountId })))
      .onConflict((oc) => oc.doNothing())
      .returning("id")
      .execute();
    for (const r of rows) written.add(r.id);
  }
  return written;
}

export type ContactPatch = Omit<Updateable<ContactsTable>, "id" | "account_id" | "created_at">;

/** Number of rows changed (0 when the contact is not this account's). Throws on a phone collision. */
export async function updateContact(
  db: Q,
  accountId: string,
  contactId: string,
  patch: ContactPatch,
): Promise<number> {
  const result = await db
    .updateTable("contacts")
    .set(patch)
    .where("account_id", "=", accountId)
    .where("id", "=", contactId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Names and e-mail given with a send update an existing contact (only the fields given). */
export async function updateContactDetails(
  db: Q,
  accountId: string,
  contactId: string,
  patch: { first_name?: string; last_name?: string; email?: string },
  at: number,
): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  await db
    .updateTable("contacts")
    .set({ ...patch, updated_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", contactId)
    .execute();
}

/** A LIKE pattern that matches `text` literally anywhere (the escape character is `\`). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Contacts newest first (ids sort by creation), `limit` rows before `beforeId`. `q` matches a
 * substring of the name, phone, e-mail or fromId; `label` one of the labels (both ignore case). The
 * text match scans the account's contacts, which is fine for a person typing into a search box.
 */
export async function searchContacts(
  db: Q,
  accountId: string,
  query: { q: string | null; label: string | null; beforeId: string | null; limit: number },
): Promise<ContactRow[]> {
  let s = db.selectFrom("contacts").selectAll().where("account_id", "=", accountId);
  if (query.beforeId !== null) s = s.where("id", "<", query.beforeId);
  if (query.q) {
    const pattern = containsPattern(query.q);
    s = s.where((eb) =>
      eb.or([
        sql<boolean>`lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '')) like ${pattern} escape '\\'`,
        sql<boolean>`lower(coalesce(phone, '')) like ${pattern} escape '\\'`,
        sql<boolean>`lower(coalesce(email, '')) like ${pattern} escape '\\'`,
        sql<boolean>`lower(coalesce(external_id, '')) like ${pattern} escape '\\'`,
      ]),
    );
  }
  if (query.label) {
    // Labels are stored as a JSON array of strings without quotes inside: `"label"` is one element.
    s = s.where(sql<boolean>`lower(labels) like ${containsPattern(`"${query.label}"`)} escape '\\'`);
  }
  return s.orderBy("id", "desc").limit(query.limit).execute();
}

/** Erasure: the contact's conversations, found before their owner deletes them. */
export async function conversationIdsOfContact(
  db: Q,
  accountId: string,
  contactId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom("conversations")
    .select("id")
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    .execute();
  return rows.map((r) => r.id);
}

/** Erasure: the contact row itself (its conversation, messages and memberships go first, by their owners). */
/** The sender ids (`fromId`, e.g. "web:vis_…") of these contacts that have one, by contact id. */
export async function externalIdsOfContacts(
  db: Q,
  accountId: string,
  contactIds: string[],
): Promise<Map<string, string>> {
  if (contactIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("contacts")
    .select(["id", "external_id"])
    .where("account_id", "=", accountId)
    .where("id", "in", contactIds)
    .where("external_id", "is not", null)
    .execute();
  return new Map(rows.map((r) => [r.id, r.external_id as string]));
}

export async function deleteContact(db: Q, accountId: string, contactId: string): Promise<boolean> {
  const result = await db
    .deleteFrom("contacts")
    .where("account_id", "=", accountId)
    .where("id", "=", contactId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Bulk actions: this account's contacts among `ids` (another account's ids are simply not found). */
export async function findContactsByIds(db: Q, accountId: string, ids: string[]): Promise<ContactRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom("contacts")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "in", ids)
    .execute();
}

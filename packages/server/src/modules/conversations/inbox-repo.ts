// The inbox's reads and writes on conversations: pages by last activity (newest first) with filters
// and search, status, assignee and the read mark. Account id first in every function.
import { type Kysely, type SqlBool, sql, type Transaction } from "kysely";
import { PLAN_EACH_CALL } from "../../platform/db/named-statements.ts";
import type { ConversationRow, Database, MessageRow } from "../../platform/db/schema.ts";
import { conversationChanged } from "../../platform/live.ts";

type Q = Kysely<Database> | Transaction<Database>;

export interface InboxFilter {
  status?: "open" | "resolved" | undefined;
  humanAlert?: boolean | undefined;
  /** A user id, or null for unassigned. */
  assigneeId?: string | null | undefined;
  channel?: string | undefined;
  /** A built-in channel's id, or '' for the custom channel. */
  channelId?: string | undefined;
  campaignId?: string | undefined;
  /** One contact's conversations (the contact page and the inbox's contact panel). */
  contactId?: string | undefined;
  /** A search: only these conversations (found by contactMatches and search.ts). */
  qConversationIds?: string[] | undefined;
  /** Conversations whose contact carries this label (labels are a JSON array on the contact). */
  label?: string | undefined;
  /** Start after this (last_message_at, id). */
  after?: { at: number; id: string } | null;
  limit: number;
  /** Only this conversation (the detail view reads the same row). */
  conversationId?: string;
  /** Unread as this teammate sees it (their own read mark); without it, the account-wide mark. */
  readerId?: string | undefined;
}

export type InboxRow = ConversationRow & {
  contact_first_name: string | null;
  contact_last_name: string | null;
  contact_phone: string | null;
  contact_email: string | null;
  contact_sms_opted_out_at: number | null;
  contact_external_id: string | null;
  contact_bot_active: number;
  assignee_name: string | null;
  assignee_email: string | null;
  last_message_id: string | null;
  unread_count: number;
  /** The built-in channel's type; null on the custom channel. */
  channel_type: string | null;
};

function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The contact's fields a search looks in, each as text, lower-cased (pattern: likePattern). */
function contactHolds(p: string) {
  return sql<SqlBool>`(
    lower(coalesce(ct.first_name, '') || ' ' || coalesce(ct.last_name, '')) like ${p} escape '\\'
    or lower(coalesce(ct.phone, '')) like ${p} escape '\\'
    or lower(coalesce(ct.email, '')) like ${p} escape '\\'
    or lower(coalesce(ct.external_id, '')) like ${p} escape '\\'
  )`;
}

/** Trigram indexes (044_search_trigram) need three characters to narrow anything. */
const TRIGRAM = 3;

/**
 * The conversations of the account's newest `limit` contacts whose name, phone, e-mail or channel
 * id holds `q` (a substring, case aside). From three characters a trigram index finds the few
 * contacts that can hold it (044_search_trigram) and the substring test runs on those only; shorter,
 * a scan of the contacts newest first, which such a short text matches early.
 */
export async function contactMatches(
  db: Q,
  accountId: string,
  q: string,
  limit: number,
  dialect: "sqlite" | "postgres",
): Promise<string[]> {
  const text = q.trim();
  const p = likePattern(text);
  const indexed = [...text].length >= TRIGRAM;
  if (dialect === "sqlite" && indexed) {
    // The FTS5 trigram table, newest contact (rowid) first: stops once `limit` contacts matched.
    const phrase = `"${text.replace(/"/g, '""')}"`;
    const { rows } = await sql<{ id: string }>`
      select c.id from contact_search s
      join contacts ct on ct.rowid = s.rowid
      join conversations c on c.account_id = ct.account_id and c.contact_id = ct.id
      where contact_search match ${phrase} and ct.account_id = ${accountId} and ${contactHolds(p)}
      order by s.rowid desc limit ${limit}`.execute(db);
    return rows.map((r) => r.id);
  }
  let query = db
    .selectFrom("contacts as ct")
    .innerJoin("conversations as c", (j) =>
      j.onRef("c.contact_id", "=", "ct.id").onRef("c.account_id", "=", "ct.account_id"),
    )
    .select("c.id")
    .where("ct.account_id", "=", accountId)
    .where(contactHolds(p));
  if (dialect === "postgres" && indexed) {
    // The expression of contacts_search_trgm_idx (pg_trgm), which the planner uses when it exists.
    query = query.where(
      sql<SqlBool>`lower(coalesce(ct.first_name, '') || ' ' || coalesce(ct.last_name, '') || ' ' || coalesce(ct.phone, '') || ' ' || coalesce(ct.email, '') || ' ' || coalesce(ct.external_id, '')) like ${p} escape '\\'`,
    );
  }
  const rows = await query.orderBy("ct.id", "desc").limit(limit).modifyEnd(sql.raw(PLAN_EACH_CALL)).execute();
  return rows.map((r) => r.id);
}

/**
 * When the reader last read conversation `c`: their own mark, or (never opened by them) the
 * conversation's account-wide last_read_at, so existing data reads as before.
 */
function readMark(readerId: string | undefined) {
  if (readerId === undefined) return sql`c.last_read_at`;
  return sql`coalesce((select r.last_read_at from conversation_reads r where r.conversation_id = c.id and r.user_id = ${readerId} and r.account_id = c.account_id), c.last_read_at)`;
}

export async function pageInbox(db: Q, accountId: string, f: InboxFilter): Promise<InboxRow[]> {
  let query = db
    .selectFrom("conversations as c")
    .innerJoin("contacts as ct", "ct.id", "c.contact_id")
    .leftJoin("users as u", (j) =>
      j.onRef("u.id", "=", "c.assignee_id").onRef("u.account_id", "=", "c.account_id"),
    )
    .leftJoin("channels as ch", (j) =>
      j.onRef("ch.id", "=", "c.channel_id").onRef("ch.account_id", "=", "c.account_id"),
    )
    .selectAll("c")
    .select([
      "ct.first_name as contact_first_name",
      "ct.last_name as contact_last_name",
      "ct.phone as contact_phone",
      "ct.email as contact_email",
      "ct.sms_opted_out_at as contact_sms_opted_out_at",
      "ct.external_id as contact_external_id",
      "ct.bot_active as contact_bot_active",
      "u.name as assignee_name",
      "u.email as assignee_email",
      "ch.type as channel_type",
    ])
    .where("c.account_id", "=", accountId);
  if (f.conversationId !== undefined) query = query.where("c.id", "=", f.conversationId);
  if (f.status) query = query.where("c.status", "=", f.status);
  if (f.humanAlert !== undefined) query = query.where("c.human_alert", "=", f.humanAlert ? 1 : 0);
  if (f.assigneeId === null) query = query.where("c.assignee_id", "is", null);
  else if (f.assigneeId !== undefined) query = query.where("c.assignee_id", "=", f.assigneeId);
  if (f.channel) query = query.where("c.channel", "=", f.channel);
  if (f.channelId !== undefined) query = query.where("c.channel_id", "=", f.channelId);
  if (f.campaignId) query = query.where("c.campaign_id", "=", f.campaignId);
  if (f.contactId) query = query.where("c.contact_id", "=", f.contactId);
  if (f.label?.trim()) {
    const p = likePattern(`"${f.label.trim()}"`);
    query = query.where(sql<boolean>`lower(ct.labels) like ${p} escape '\\'`);
  }
  if (f.qConversationIds) {
    const ids = f.qConversationIds;
    query = query.where(ids.length > 0 ? sql<SqlBool>`c.id in (${sql.join(ids)})` : sql<SqlBool>`1 = 0`);
  }
  if (f.after) {
    const { at, id } = f.after;
    query = query.where((eb) =>
      eb.or([
        eb("c.last_message_at", "<", at),
        eb.and([eb("c.last_message_at", "=", at), eb("c.id", "<", id)]),
      ]),
    );
  }
  // The page first, then each row's last message and unread count: computed before the sort, they
  // cost ~50 messages read per candidate, 60-100 ms for a search's 1,000 candidate conversations.
  const page = query
    .orderBy("c.last_message_at", "desc")
    .orderBy("c.id", "desc")
    .limit(f.limit + 1)
    .as("c");
  const rows = await db
    .selectFrom(page)
    .selectAll("c")
    .select([
      sql<
        string | null
      >`(select m.id from messages m where m.account_id = c.account_id and m.contact_id = c.contact_id and m.conversation_id = c.id order by m.id desc limit 1)`.as(
        "last_message_id",
      ),
      sql<number>`(select count(*) from messages m where m.account_id = c.account_id and m.contact_id = c.contact_id and m.conversation_id = c.id and m.direction = 'inbound' and m.created_at > ${readMark(f.readerId)})`.as(
        "unread_count",
      ),
    ])
    .orderBy("c.last_message_at", "desc")
    .orderBy("c.id", "desc")
    .execute();
  return rows.map((r) => ({ ...r, unread_count: Number(r.unread_count) }));
}

/** Messages by id (the last message of each conversation of a page). */
export async function messagesByIds(db: Q, accountId: string, ids: string[]): Promise<MessageRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "in", ids)
    .execute();
}

/**
 * The conversation's last `limit` messages, oldest first: read through the contact's index
 * (messages_contact_idx) and kept to this conversation (a contact has one per channel).
 */
export async function lastMessagesOf(
  db: Q,
  accountId: string,
  contactId: string,
  limit: number,
  conversationId: string,
): Promise<MessageRow[]> {
  const rows = await db
    .selectFrom("messages")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    .where("conversation_id", "=", conversationId)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.reverse();
}

export interface InboxPatch {
  status?: "open" | "resolved";
  assignee_id?: string | null;
  bot_paused?: 0 | 1;
  human_alert?: 0;
  human_alert_reason?: null;
  last_read_at?: number;
}

export async function updateInboxState(
  db: Q,
  accountId: string,
  conversationId: string,
  patch: InboxPatch,
  at: number,
): Promise<boolean> {
  const res = await db
    .updateTable("conversations")
    .set({ ...patch, updated_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", conversationId)
    .executeTakeFirst();
  const found = Number(res.numUpdatedRows) > 0;
  if (found) conversationChanged(db, accountId, conversationId);
  return found;
}

/** Marks a conversation read now for one teammate only (the app's unread per person). */
export async function markReadFor(
  db: Q,
  accountId: string,
  conversationId: string,
  userId: string,
  at: number,
): Promise<void> {
  await db
    .insertInto("conversation_reads")
    .values({ account_id: accountId, conversation_id: conversationId, user_id: userId, last_read_at: at })
    .onConflict((oc) => oc.columns(["conversation_id", "user_id"]).doUpdateSet({ last_read_at: at }))
    .execute();
}

/**
 * How many conversations hold inbound messages the teammate has not read (the tab title), counted up
 * to `cap` (the title says "99+" beyond).
 */
export async function unreadConversationCount(
  db: Q,
  accountId: string,
  userId: string,
  cap: number,
): Promise<number> {
  const unread = db
    .selectFrom("conversations as c")
    .select("c.id")
    .where("c.account_id", "=", accountId)
    // Nothing since the mark: no need to look at the messages.
    .where(sql<SqlBool>`c.last_message_at > ${readMark(userId)}`)
    .where(
      sql<SqlBool>`exists (select 1 from messages m where m.account_id = c.account_id and m.contact_id = c.contact_id and m.conversation_id = c.id and m.direction = 'inbound' and m.created_at > ${readMark(userId)})`,
    )
    .limit(cap);
  const row = await db.selectFrom(unread.as("u")).select(sql<number>`count(*)`.as("n")).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A removed teammate's conversations become unassigned, and their read marks go. */
export async function unassignUser(db: Q, accountId: string, userId: string): Promise<void> {
  await db
    .deleteFrom("conversation_reads")
    .where("account_id", "=", accountId)
    .where("user_id", "=", userId)
    .execute();
  await db
    .updateTable("conversations")
    .set({ assignee_id: null })
    .where("account_id", "=", accountId)
    .where("assignee_id", "=", userId)
    .execute();
}

export type BulkConversationRow = Pick<ConversationRow, "id" | "contact_id" | "assignee_id"> & {
  contact_first_name: string | null;
  contact_last_name: string | null;
  contact_phone: string | null;
  contact_email: string | null;
};

/** Bulk actions: this account's conversations among `ids`, with what names their contact. */
export async function conversationsByIds(
  db: Q,
  accountId: string,
  ids: string[],
): Promise<BulkConversationRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom("conversations as c")
    .innerJoin("contacts as ct", "ct.id", "c.contact_id")
    .select([
      "c.id",
      "c.contact_id",
      "c.assignee_id",
      "ct.first_name as contact_first_name",
      "ct.last_name as contact_last_name",
      "ct.phone as contact_phone",
      "ct.email as contact_email",
    ])
    .where("c.account_id", "=", accountId)
    .where("c.id", "in", ids)
    .execute();
}

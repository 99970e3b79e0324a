// Conversations: one per contact, with the inbox state (bot pause, human alert, routed campaign).
// This module owns the conversations table; others change it only through these functions.
// Account id first in every function.
import { type Kysely, sql, type Transaction } from "kysely";
import { param, prepared } from "../../platform/db/prepared.ts";
import type { Bool, ConversationEventRow, ConversationRow, Database } from "../../platform/db/schema.ts";
import { newId } from "../../platform/ids.ts";
import { conversationChanged } from "../../platform/live.ts";

type Q = Kysely<Database> | Transaction<Database>;

/**
 * One conversation per contact and channel: the same fromId always lands in the same conversation.
 * `channelId` is '' for the custom channel (the default) or a built-in channel's id.
 */
export async function findOrCreateConversation(
  db: Q,
  accountId: string,
  contactId: string,
  channel: string | null,
  at: number = Date.now(),
  channelId = "",
): Promise<{ conversation: ConversationRow; created: boolean }> {
  const find = () =>
    db
      .selectFrom("conversations")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("contact_id", "=", contactId)
      .where("channel_id", "=", channelId)
      .executeTakeFirst();
  const existing = await find();
  if (existing) return { conversation: existing, created: false };
  const id = newId("conversation");
  await db
    .insertInto("conversations")
    .values({
      id,
      account_id: accountId,
      contact_id: contactId,
      channel,
      channel_id: channelId,
      campaign_id: null,
      bot_paused: 0,
      human_alert: 0,
      human_alert_reason: null,
      last_message_at: at,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const row = await find();
  if (!row) throw new Error("conversation upsert found no row after insert");
  return { conversation: row, created: row.id === id };
}

/** The contact's conversation on a built-in channel, if it has one (it wrote there, or was written to). */
export async function findConversationOnChannel(
  db: Q,
  accountId: string,
  contactId: string,
  channelId: string,
): Promise<Pick<ConversationRow, "id"> | undefined> {
  return db
    .selectFrom("conversations")
    .select("id")
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    .where("channel_id", "=", channelId)
    .executeTakeFirst();
}

/**
 * The contact's conversation on a channel ('' = the custom channel), created if needed and marked as
 * having a message now, in one statement (the unique (account_id, contact_id, channel_id) index decides
 * under concurrency). Used on the incoming hot path, which needs only the id: no other column is read
 * back. A new conversation of a built-in channel starts routed to the channel's campaign, if any.
 */
const conversationUpsert = prepared<
  {
    id: string;
    accountId: string;
    contactId: string;
    channel: string | null;
    channelId: string;
    campaignId: string | null;
    at: number;
  },
  Pick<ConversationRow, "id">
>((db) =>
  db
    .insertInto("conversations")
    .values({
      id: param("id"),
      account_id: param("accountId"),
      contact_id: param("contactId"),
      channel: param("channel"),
      channel_id: param("channelId"),
      campaign_id: param("campaignId"),
      bot_paused: 0,
      human_alert: 0,
      human_alert_reason: null,
      last_message_at: param("at"),
      created_at: param("at"),
      updated_at: param("at"),
    })
    .onConflict((oc) =>
      oc.columns(["account_id", "contact_id", "channel_id"]).doUpdateSet((eb) => ({
        last_message_at: eb.ref("excluded.last_message_at"),
        updated_at: eb.ref("excluded.updated_at"),
        // A new inbound message reopens a resolved conversation (same statement: the hot path).
        status: "open",
      })),
    )
    .returning("id"),
);

/**
 * The id of the contact's conversation, created or touched for a message at `at`; on the custom
 * channel unless `builtIn` names a built-in channel (and the campaign its new conversations go to).
 */
export async function upsertConversationForMessage(
  db: Q,
  accountId: string,
  contactId: string,
  channel: string | null,
  at: number,
  builtIn?: { channelId: string; campaignId: string | null },
): Promise<string> {
  const row = await conversationUpsert.first(db, {
    id: newId("conversation"),
    accountId,
    contactId,
    channel,
    channelId: builtIn?.channelId ?? "",
    campaignId: builtIn?.campaignId ?? null,
    at,
  });
  if (!row) throw new Error("conversation upsert returned no row");
  conversationChanged(db, accountId, row.id);
  return row.id;
}

/** The conversation's channel: '' for the custom channel, else a built-in channel's id (`ch_…`). */
const channelIdOf = prepared<{ accountId: string; id: string }, { channel_id: string }>((db) =>
  db
    .selectFrom("conversations")
    .select("channel_id")
    .where("account_id", "=", param<string>("accountId"))
    .where("id", "=", param<string>("id")),
);

export async function channelIdOfConversation(
  db: Q,
  accountId: string,
  conversationId: string,
): Promise<string> {
  return (await channelIdOf.first(db, { accountId, id: conversationId }))?.channel_id ?? "";
}

export async function findConversationById(
  db: Q,
  accountId: string,
  conversationId: string,
): Promise<ConversationRow | undefined> {
  return db
    .selectFrom("conversations")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", conversationId)
    .executeTakeFirst();
}

export async function touchConversation(
  db: Q,
  accountId: string,
  conversationId: string,
  at: number,
): Promise<void> {
  await touchConversations(db, accountId, [conversationId], at);
}

/** Several of one account's conversations had a message at `at` (replies written together). */
export async function touchConversations(
  db: Q,
  accountId: string,
  conversationIds: string[],
  at: number,
): Promise<void> {
  if (conversationIds.length === 0) return;
  await db
    .updateTable("conversations")
    .set({ last_message_at: at, updated_at: at })
    .where("account_id", "=", accountId)
    .where((eb) =>
      conversationIds.length === 1
        ? eb("id", "=", conversationIds[0] as string)
        : eb("id", "in", conversationIds),
    )
    .execute();
  for (const id of conversationIds) conversationChanged(db, accountId, id);
}

/** Conversations routed to a deleted campaign forget it (routing falls through next time). */
export async function forgetCampaign(db: Q, accountId: string, campaignId: string): Promise<void> {
  await db
    .updateTable("conversations")
    .set({ campaign_id: null })
    .where("account_id", "=", accountId)
    .where("campaign_id", "=", campaignId)
    .execute();
}

/** The switches that decide whether the bot may answer, in one read. */
export interface BotSwitches {
  accountActive: boolean;
  contactActive: boolean;
  conversationPaused: boolean;
}

export async function readSwitches(
  db: Q,
  accountId: string,
  conversationId: string,
): Promise<BotSwitches | undefined> {
  return (await findConversationWithSwitches(db, accountId, conversationId))?.switches;
}

/** The conversation and its bot switches (its account's, its contact's, its own) in one read. */
export async function findConversationWithSwitches(
  db: Q,
  accountId: string,
  conversationId: string,
): Promise<ConversationWithSwitches | undefined> {
  return (await findConversationsWithSwitches(db, accountId, [conversationId])).get(conversationId);
}

export interface ConversationWithSwitches {
  conversation: ConversationRow;
  switches: BotSwitches;
}

/** Several of one account's conversations with their switches, in one read (by conversation id). */
export async function findConversationsWithSwitches(
  db: Q,
  accountId: string,
  conversationIds: string[],
): Promise<Map<string, ConversationWithSwitches>> {
  const found = new Map<string, ConversationWithSwitches>();
  if (conversationIds.length === 0) return found;
  // Scalar sub-queries by primary key, not joins: SQLite runs this form 5-7x faster (measured on the
  // reply path, where it is read twice per reply).
  const rows = await db
    .selectFrom("conversations as c")
    .selectAll("c")
    .select((eb) => [
      // A suspended sub-account's bot is off (replies, away messages, follow-ups) until it is resumed.
      eb
        .selectFrom("accounts as a")
        .select(sql<number>`case when a.suspended_at is null then a.bot_active else 0 end`.as("on"))
        .whereRef("a.id", "=", "c.account_id")
        .as("switch_account_active"),
      eb
        .selectFrom("contacts as ct")
        .select("ct.bot_active")
        .whereRef("ct.id", "=", "c.contact_id")
        .as("switch_contact_active"),
    ])
    .where("c.account_id", "=", accountId)
    .where("c.id", "in", conversationIds)
    .execute();
  for (const row of rows) {
    // The contact always exists while its conversation does (erasure removes both).
    if (row.switch_account_active == null || row.switch_contact_active == null) continue;
    const { switch_account_active, switch_contact_active, ...conversation } = row;
    found.set(conversation.id, {
      conversation,
      switches: {
        accountActive: Number(switch_account_active) === 1,
        contactActive: Number(switch_contact_active) === 1,
        conversationPaused: Number(conversation.bot_paused) === 1,
      },
    });
  }
  return found;
}

export async function setConversationCampaign(
  db: Q,
  accountId: string,
  conversationId: string,
  campaignId: string,
): Promise<void> {
  await db
    .updateTable("conversations")
    .set({ campaign_id: campaignId })
    .where("account_id", "=", accountId)
    .where("id", "=", conversationId)
    .where((eb) => eb.or([eb("campaign_id", "is", null), eb("campaign_id", "!=", campaignId)]))
    .execute();
}

/**
 * Raises the human alert. True only when this call raised it (it was off, or had another reason), so
 * a job that runs twice, or a conversation that keeps failing, notifies once per alert.
 */
export async function raiseHumanAlert(
  db: Q,
  accountId: string,
  conversationId: string,
  reason: string,
  at: number,
): Promise<boolean> {
  const res = await db
    .updateTable("conversations")
    .set({ human_alert: 1, human_alert_reason: reason, updated_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", conversationId)
    .where((eb) =>
      eb.or([
        eb("human_alert", "=", 0),
        eb("human_alert_reason", "is", null),
        eb("human_alert_reason", "!=", reason),
      ]),
    )
    .executeTakeFirst();
  const raised = Number(res.numUpdatedRows) > 0;
  if (raised) conversationChanged(db, accountId, conversationId);
  return raised;
}

/**
 * A person replied: "needs a human" is answered. Clears the alert and records the hand-back (shown
 * as a line in the thread); true when the alert was on.
 */
export async function handBackToPerson(
  db: Q,
  accountId: string,
  conversationId: string,
  userId: string | null,
  at: number,
): Promise<boolean> {
  const res = await db
    .updateTable("conversations")
    .set({ human_alert: 0, human_alert_reason: null, updated_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", conversationId)
    .where("human_alert", "=", 1)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return false;
  await db
    .insertInto("conversation_events")
    .values({
      id: newId("conversationEvent"),
      account_id: accountId,
      conversation_id: conversationId,
      kind: "handed_back",
      user_id: userId,
      created_at: at,
    })
    .execute();
  conversationChanged(db, accountId, conversationId);
  return true;
}

/** A conversation's events (hand-backs), oldest first. */
export async function eventsOfConversation(
  db: Q,
  accountId: string,
  conversationId: string,
  limit = 200,
): Promise<ConversationEventRow[]> {
  const rows = await db
    .selectFrom("conversation_events")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("conversation_id", "=", conversationId)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.reverse();
}

/**
 * The contact saw the conversation at `at` (its channel says so): kept only when later than what is
 * stored, so a late or repeated report never moves it back. True when it moved.
 */
export async function markContactSeen(
  db: Q,
  accountId: string,
  conversationId: string,
  at: number,
): Promise<boolean> {
  const res = await db
    .updateTable("conversations")
    .set({ contact_seen_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", conversationId)
    .where((eb) => eb.or([eb("contact_seen_at", "is", null), eb("contact_seen_at", "<", at)]))
    .executeTakeFirst();
  const moved = Number(res.numUpdatedRows) > 0;
  if (moved) conversationChanged(db, accountId, conversationId);
  return moved;
}

export async function setBotState(
  db: Q,
  accountId: string,
  conversationId: string,
  active: boolean,
): Promise<boolean> {
  const now = Date.now();
  const res = await db
    .updateTable("conversations")
    .set(
      active
        ? { bot_paused: 0, human_alert: 0, human_alert_reason: null, updated_at: now }
        : { bot_paused: 1, updated_at: now },
    )
    .where("account_id", "=", accountId)
    .where("id", "=", conversationId)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export type ConversationWithContact = ConversationRow & { contact_bot_active: number };

function conversationsQuery(db: Q, accountId: string) {
  return db
    .selectFrom("conversations")
    .innerJoin("contacts", "contacts.id", "conversations.contact_id")
    .selectAll("conversations")
    .select("contacts.bot_active as contact_bot_active")
    .where("conversations.account_id", "=", accountId);
}

export async function findConversation(
  db: Q,
  accountId: string,
  conversationId: string,
): Promise<ConversationWithContact | undefined> {
  return conversationsQuery(db, accountId).where("conversations.id", "=", conversationId).executeTakeFirst();
}

export interface ConversationFilter {
  after: string | null;
  limit: number;
  humanAlert?: boolean | undefined;
  botPaused?: boolean | undefined;
  contactId?: string | undefined;
  campaignId?: string | undefined;
}

export async function pageConversations(
  db: Q,
  accountId: string,
  f: ConversationFilter,
): Promise<ConversationWithContact[]> {
  let q = conversationsQuery(db, accountId);
  if (f.after) q = q.where("conversations.id", ">", f.after);
  if (f.humanAlert !== undefined) q = q.where("conversations.human_alert", "=", f.humanAlert ? 1 : 0);
  if (f.botPaused !== undefined) q = q.where("conversations.bot_paused", "=", f.botPaused ? 1 : 0);
  if (f.contactId) q = q.where("conversations.contact_id", "=", f.contactId);
  if (f.campaignId) q = q.where("conversations.campaign_id", "=", f.campaignId);
  return q
    .orderBy("conversations.id")
    .limit(f.limit + 1)
    .execute();
}

/** A person replied: the bot stays quiet on this conversation until someone resumes it. */
export async function pauseBot(db: Q, accountId: string, conversationId: string, at: number): Promise<void> {
  await db
    .updateTable("conversations")
    .set({ bot_paused: 1 as Bool, updated_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", conversationId)
    .execute();
  conversationChanged(db, accountId, conversationId);
}

/**
 * PostgreSQL SQL that moves each conversation's last activity to its newest message among the rows
 * of `source` (columns conversation_id, account_id, at), one update per conversation however many
 * messages a batch holds for it, and reopens it when resolved (as the one-message upsert does). For
 * the batched incoming statement (messaging/pg-ingest.ts).
 */
export function pgTouchConversationsFrom(source: string): string {
  return `update conversations cv
    set last_message_at = greatest(cv.last_message_at, x.at), updated_at = greatest(cv.updated_at, x.at),
      status = 'open'
    from (select conversation_id, account_id, max(at) as at from ${source} group by conversation_id, account_id) x
    where cv.id = x.conversation_id and cv.account_id = x.account_id`;
}

/** Erasure: a contact's conversations; answers their ids (the open inboxes are told). */
export async function deleteConversationsOfContact(
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
  if (rows.length > 0) {
    await db
      .deleteFrom("conversation_events")
      .where("account_id", "=", accountId)
      .where(
        "conversation_id",
        "in",
        rows.map((r) => r.id),
      )
      .execute();
    await db
      .deleteFrom("conversation_reads")
      .where("account_id", "=", accountId)
      .where(
        "conversation_id",
        "in",
        rows.map((r) => r.id),
      )
      .execute();
  }
  await db
    .deleteFrom("conversations")
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Each of these contacts' most recently active conversation (a contact has one per channel it wrote
 * on), by contact id.
 */
export async function conversationIdsOfContacts(
  db: Q,
  accountId: string,
  contactIds: string[],
): Promise<Map<string, string>> {
  if (contactIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("conversations")
    .select(["id", "contact_id"])
    .where("account_id", "=", accountId)
    .where("contact_id", "in", contactIds)
    // The newest last: the map keeps each contact's most recent one.
    .orderBy("last_message_at")
    .orderBy("id")
    .execute();
  return new Map(rows.map((r) => [r.contact_id, r.id]));
}

/**
 * Each of these contacts' most recently active conversation with its channel's type ("custom" for the
 * custom channel, null when the built-in channel was deleted since): an unnamed contact is shown by
 * its channel id and channel.
 */
export async function latestConversationsOfContacts(
  db: Q,
  accountId: string,
  contactIds: string[],
): Promise<Map<string, { id: string; channelType: string | null }>> {
  if (contactIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("conversations as c")
    .leftJoin("channels as ch", (j) =>
      j.onRef("ch.id", "=", "c.channel_id").onRef("ch.account_id", "=", "c.account_id"),
    )
    .select(["c.id", "c.contact_id", "c.channel_id", "ch.type"])
    .where("c.account_id", "=", accountId)
    .where("c.contact_id", "in", contactIds)
    // The newest last: the map keeps each contact's most recent one.
    .orderBy("c.last_message_at")
    .orderBy("c.id")
    .execute();
  return new Map(
    rows.map((r) => [r.contact_id, { id: r.id, channelType: r.channel_id === "" ? "custom" : r.type }]),
  );
}

/** The accounts with a message since `since` (any conversation's last message then or later). */
export async function accountsActiveSince(db: Q, since: number): Promise<string[]> {
  const rows = await db
    .selectFrom("conversations")
    .select("account_id")
    .distinct()
    .where("last_message_at", ">=", since)
    .execute();
  return rows.map((r) => r.account_id);
}

/** Open conversations whose human alert is up: people are waiting for a person. */
export async function countWaitingForPerson(db: Q, accountId: string): Promise<number> {
  const row = await db
    .selectFrom("conversations")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .where("status", "=", "open")
    .where("human_alert", "=", 1)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

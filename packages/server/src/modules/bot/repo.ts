// Campaigns, the bot state of conversations and the bot job's reads. Account id first everywhere.
import type { Kysely, Transaction } from "kysely";
import type {
  Bool,
  CampaignRow,
  CampaignsTable,
  ConversationRow,
  Database,
  MessageRow,
} from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export async function insertCampaign(db: Q, row: CampaignRow): Promise<void> {
  await db.insertInto("campaigns").values(row).execute();
}

export async function findCampaign(
  db: Q,
  accountId: string,
  campaignId: string,
): Promise<CampaignRow | undefined> {
  return db
    .selectFrom("campaigns")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", campaignId)
    .executeTakeFirst();
}

export type CampaignPatch = Partial<Omit<CampaignsTable, "id" | "account_id" | "created_at" | "is_default">>;

export async function updateCampaign(
  db: Q,
  accountId: string,
  campaignId: string,
  patch: CampaignPatch,
): Promise<void> {
  await db
    .updateTable("campaigns")
    .set({ ...patch, updated_at: Date.now() })
    .where("account_id", "=", accountId)
    .where("id", "=", campaignId)
    .execute();
}

/** One statement flips the flag on every campaign of the account, so exactly one ends up the default. */
export async function setDefaultCampaign(db: Q, accountId: string, campaignId: string): Promise<void> {
  await db
    .updateTable("campaigns")
    .set((eb) => ({
      is_default: eb
        .case()
        .when("id", "=", campaignId)
        .then(1 as Bool)
        .else(0 as Bool)
        .end(),
      updated_at: Date.now(),
    }))
    .where("account_id", "=", accountId)
    .where((eb) =>
      eb.or([
        eb.and([eb("id", "=", campaignId), eb("is_default", "=", 0)]),
        eb.and([eb("id", "!=", campaignId), eb("is_default", "=", 1)]),
      ]),
    )
    .execute();
}

export async function deleteCampaign(db: Q, accountId: string, campaignId: string): Promise<boolean> {
  const res = await db
    .deleteFrom("campaigns")
    .where("account_id", "=", accountId)
    .where("id", "=", campaignId)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
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

/** Campaigns, oldest first (the order keyword routing uses). */
export async function pageCampaigns(
  db: Q,
  accountId: string,
  opts: { after: string | null; limit: number; status?: CampaignRow["status"] | undefined },
): Promise<CampaignRow[]> {
  let q = db.selectFrom("campaigns").selectAll().where("account_id", "=", accountId);
  if (opts.after) q = q.where("id", ">", opts.after);
  if (opts.status) q = q.where("status", "=", opts.status);
  return q
    .orderBy("id")
    .limit(opts.limit + 1)
    .execute();
}

/** What routing needs of every campaign: no knowledge, no instructions. */
export interface RoutingCandidate {
  id: string;
  status: CampaignRow["status"];
  keywords: string;
  is_default: number;
  created_at: number;
}

export async function routingCandidates(db: Q, accountId: string): Promise<RoutingCandidate[]> {
  return db
    .selectFrom("campaigns")
    .select(["id", "status", "keywords", "is_default", "created_at"])
    .where("account_id", "=", accountId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

/** Any message by id (the job payload carries no account id of its own). */
export async function findMessageForJob(db: Q, messageId: string): Promise<MessageRow | undefined> {
  return db.selectFrom("messages").selectAll().where("id", "=", messageId).executeTakeFirst();
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
  const row = await db
    .selectFrom("conversations")
    .innerJoin("contacts", "contacts.id", "conversations.contact_id")
    .innerJoin("accounts", "accounts.id", "conversations.account_id")
    .select([
      "accounts.bot_active as account_active",
      "contacts.bot_active as contact_active",
      "conversations.bot_paused as paused",
    ])
    .where("conversations.account_id", "=", accountId)
    .where("conversations.id", "=", conversationId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    accountActive: Number(row.account_active) === 1,
    contactActive: Number(row.contact_active) === 1,
    conversationPaused: Number(row.paused) === 1,
  };
}

/**
 * The last `limit` text messages of a contact's conversation up to and including `uptoId`, oldest
 * first. A contact has one conversation, so its messages are that conversation's (messages_contact_idx).
 */
export async function recentHistory(
  db: Q,
  accountId: string,
  contactId: string,
  uptoId: string,
  limit: number,
): Promise<Pick<MessageRow, "id" | "direction" | "body">[]> {
  const rows = await db
    .selectFrom("messages")
    .select(["id", "direction", "body"])
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    .where("id", "<=", uptoId)
    .where("type", "=", "text")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.reverse();
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
  return Number(res.numUpdatedRows) > 0;
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

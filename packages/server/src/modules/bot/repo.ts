// Campaigns, the bot state of conversations and the bot job's reads. Account id first everywhere.
import type { Kysely, Transaction } from "kysely";
import type { Dialect } from "../../platform/db/index.ts";
import type { Bool, CampaignRow, CampaignsTable, Database, MessageRow } from "../../platform/db/schema.ts";

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

/**
 * True while a conversation's fallback still waits for an answer: its last outbound message is a bot
 * fallback and its human alert is up (a person clearing the alert, replying, or the bot answering ends
 * the run). Called inside the reply's transaction before a fallback is written. On PostgreSQL the
 * conversation row is locked first, so concurrent replies in one conversation (several jobs, several
 * workers) decide one after the other, and each statement after the lock sees what the one before
 * committed (READ COMMITTED); SQLite has one writer at a time.
 */
export async function fallbackAwaitsAnswer(
  trx: Transaction<Database>,
  dialect: Dialect,
  accountId: string,
  conversationId: string,
): Promise<boolean> {
  const q = trx
    .selectFrom("conversations")
    .select(["contact_id", "human_alert"])
    .where("account_id", "=", accountId)
    .where("id", "=", conversationId);
  const conversation = await (dialect === "postgres" ? q.forUpdate() : q).executeTakeFirst();
  if (!conversation || Number(conversation.human_alert) !== 1) return false;
  // A conversation's messages are its contact's (messages_contact_idx orders them by id).
  const last = await trx
    .selectFrom("messages")
    .select(["sender", "bot_outcome"])
    .where("account_id", "=", accountId)
    .where("contact_id", "=", conversation.contact_id)
    .where("conversation_id", "=", conversationId)
    .where("direction", "=", "outbound")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return last?.sender === "bot" && last.bot_outcome === "fallback";
}

/**
 * The last `limit` text messages of a conversation up to and including `uptoId`, oldest first, read
 * through its contact's index (messages_contact_idx).
 */
export async function recentHistory(
  db: Q,
  accountId: string,
  contactId: string,
  uptoId: string,
  limit: number,
  conversationId: string,
): Promise<Pick<MessageRow, "id" | "direction" | "body">[]> {
  const rows = await db
    .selectFrom("messages")
    .select(["id", "direction", "body"])
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    // A contact has a conversation per channel: only this one's messages are its history.
    .where("conversation_id", "=", conversationId)
    .where("id", "<=", uptoId)
    .where("type", "=", "text")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.reverse();
}

/**
 * The outgoing side's state (start, pause, done). With `onlyFrom`, only when it is that state now (a
 * compare-and-set: a tick finishing as "done" must not overwrite a pause that committed meanwhile).
 */
export async function setOutgoingState(
  db: Q,
  accountId: string,
  campaignId: string,
  state: "running" | "paused" | "done",
  reason: string | null,
  onlyFrom?: "running",
): Promise<void> {
  let q = db
    .updateTable("campaigns")
    .set({ outgoing_state: state, outgoing_reason: reason, updated_at: Date.now() })
    .where("account_id", "=", accountId)
    .where("id", "=", campaignId);
  if (onlyFrom) q = q.where("outgoing_state", "=", onlyFrom);
  await q.execute();
}

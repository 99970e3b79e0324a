// The channels module's tables: channels and widget_visitors. Account id first in every function,
// except the widget's public look-ups, which know only a channel id (and then check the account
// through the row they find).
import type { Insertable, Kysely, Transaction, Updateable } from "kysely";
import type {
  ChannelRow,
  ChannelStatus,
  ChannelsTable,
  Database,
  WidgetVisitorRow,
} from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export async function findChannel(
  db: Q,
  accountId: string,
  channelId: string,
): Promise<ChannelRow | undefined> {
  return db
    .selectFrom("channels")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", channelId)
    .executeTakeFirst();
}

/** The widget's look-up by id alone (public endpoints: the id is all the page knows). */
export async function findChannelPublic(db: Q, channelId: string): Promise<ChannelRow | undefined> {
  return db.selectFrom("channels").selectAll().where("id", "=", channelId).executeTakeFirst();
}

/** An account's channels in id (creation) order, starting after `afterId`. */
export async function listChannels(
  db: Q,
  accountId: string,
  afterId: string | null,
  limit: number,
): Promise<ChannelRow[]> {
  let q = db.selectFrom("channels").selectAll().where("account_id", "=", accountId);
  if (afterId !== null) q = q.where("id", ">", afterId);
  return q.orderBy("id").limit(limit).execute();
}

/** Every channel of an account (a handful), for labels: id, type and name. */
export async function listAllChannels(
  db: Q,
  accountId: string,
): Promise<Pick<ChannelRow, "id" | "type" | "name">[]> {
  return db
    .selectFrom("channels")
    .select(["id", "type", "name"])
    .where("account_id", "=", accountId)
    .orderBy("id")
    .execute();
}

export async function insertChannel(db: Q, row: Insertable<ChannelsTable>): Promise<void> {
  await db.insertInto("channels").values(row).execute();
}

export async function updateChannel(
  db: Q,
  accountId: string,
  channelId: string,
  patch: Updateable<ChannelsTable>,
): Promise<boolean> {
  const res = await db
    .updateTable("channels")
    .set(patch)
    .where("account_id", "=", accountId)
    .where("id", "=", channelId)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** The channel and its widget visitors go (conversations and messages stay, as history). */
export async function deleteChannel(db: Q, accountId: string, channelId: string): Promise<boolean> {
  await db
    .deleteFrom("widget_visitors")
    .where("account_id", "=", accountId)
    .where("channel_id", "=", channelId)
    .execute();
  const res = await db
    .deleteFrom("channels")
    .where("account_id", "=", accountId)
    .where("id", "=", channelId)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function setChannelStatus(
  db: Q,
  accountId: string,
  channelId: string,
  status: ChannelStatus,
  lastError: string | null,
): Promise<boolean> {
  return updateChannel(db, accountId, channelId, {
    status,
    last_error: lastError,
    updated_at: Date.now(),
  });
}

/** Channels routed to a deleted campaign forget it. */
export async function forgetChannelCampaign(db: Q, accountId: string, campaignId: string): Promise<void> {
  await db
    .updateTable("channels")
    .set({ campaign_id: null })
    .where("account_id", "=", accountId)
    .where("campaign_id", "=", campaignId)
    .execute();
}

// ---- widget visitors ----------------------------------------------------------------------------

export async function insertVisitor(db: Q, row: WidgetVisitorRow): Promise<void> {
  await db.insertInto("widget_visitors").values(row).execute();
}

export async function findVisitorByTokenHash(
  db: Q,
  channelId: string,
  tokenHash: string,
): Promise<WidgetVisitorRow | undefined> {
  return db
    .selectFrom("widget_visitors")
    .selectAll()
    .where("channel_id", "=", channelId)
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst();
}

export async function touchVisitor(db: Q, accountId: string, visitorId: string, at: number): Promise<void> {
  await db
    .updateTable("widget_visitors")
    .set({ last_seen_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", visitorId)
    .execute();
}

/** Erasure of a contact: its widget visitors go (their tokens stop working). */
export async function deleteVisitorsOfContact(db: Q, accountId: string, contactId: string): Promise<void> {
  await db
    .deleteFrom("widget_visitors")
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    .execute();
}

// Outgoing sends: one row per campaign and contact (its primary key makes a first message unique).
// Every function takes the account id first.
import { type Kysely, sql, type Transaction } from "kysely";
import type { ContactRow, Database, OutgoingSendsTable } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

/** True when this contact's row was written now (false: the campaign already reached it). */
export async function claimSend(
  db: Q,
  accountId: string,
  campaignId: string,
  contactId: string,
  outcome: "sent" | "skipped",
  at: number,
  reason: OutgoingSendsTable["reason"] = null,
): Promise<boolean> {
  const r = await db
    .insertInto("outgoing_sends")
    .values({
      campaign_id: campaignId,
      account_id: accountId,
      contact_id: contactId,
      message_id: null,
      outcome,
      reason,
      created_at: at,
    })
    .onConflict((oc) => oc.columns(["campaign_id", "contact_id"]).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function setSendMessage(
  db: Q,
  accountId: string,
  campaignId: string,
  contactId: string,
  messageId: string,
): Promise<void> {
  await db
    .updateTable("outgoing_sends")
    .set({ message_id: messageId })
    .where("account_id", "=", accountId)
    .where("campaign_id", "=", campaignId)
    .where("contact_id", "=", contactId)
    .execute();
}

/**
 * The next members of the list the campaign has not reached, in contact id order, each with the custom
 * channel label it is known on (the one its latest labelled message used, null when none has a label)
 * and, when its latest message is in a built-in channel's conversation, that conversation
 * (`built_in_conversation_id`, else null); both read through messages_contact_idx.
 */
export async function membersNotReached(
  db: Q,
  accountId: string,
  listId: string,
  campaignId: string,
  limit: number,
): Promise<(ContactRow & { known_channel: string | null; built_in_conversation_id: string | null })[]> {
  return db
    .selectFrom("list_members as m")
    .innerJoin("contacts as c", (j) =>
      j.onRef("c.id", "=", "m.contact_id").onRef("c.account_id", "=", "m.account_id"),
    )
    .leftJoin("outgoing_sends as s", (j) =>
      j.onRef("s.contact_id", "=", "m.contact_id").on("s.campaign_id", "=", campaignId),
    )
    .selectAll("c")
    .select((eb) =>
      eb
        .selectFrom("messages as msg")
        .select("msg.channel")
        .whereRef("msg.account_id", "=", "c.account_id")
        .whereRef("msg.contact_id", "=", "c.id")
        .where("msg.channel", "is not", null)
        .orderBy("msg.id", "desc")
        .limit(1)
        .as("known_channel"),
    )
    .select((eb) =>
      eb
        .selectFrom("messages as lm")
        .innerJoin("conversations as lcv", (j) =>
          j.onRef("lcv.id", "=", "lm.conversation_id").onRef("lcv.account_id", "=", "lm.account_id"),
        )
        .select(sql<string | null>`case when lcv.channel_id <> '' then lcv.id end`.as("id"))
        .whereRef("lm.account_id", "=", "c.account_id")
        .whereRef("lm.contact_id", "=", "c.id")
        .orderBy("lm.id", "desc")
        .limit(1)
        .as("built_in_conversation_id"),
    )
    .where("m.account_id", "=", accountId)
    .where("m.list_id", "=", listId)
    .where("s.contact_id", "is", null)
    .orderBy("c.id")
    .limit(limit)
    .execute();
}

export async function sendFigures(db: Q, accountId: string, campaignId: string, listId: string) {
  const [sends, members] = await Promise.all([
    db
      .selectFrom("outgoing_sends as s")
      .leftJoin("messages as msg", (j) =>
        j.onRef("msg.id", "=", "s.message_id").onRef("msg.account_id", "=", "s.account_id"),
      )
      .select([
        sql<number>`sum(case when s.outcome = 'skipped' then 1 else 0 end)`.as("skipped"),
        sql<number>`sum(case when s.outcome = 'skipped' and s.reason = 'no_known_channel' then 1 else 0 end)`.as(
          "noKnownChannel",
        ),
        sql<number>`sum(case when s.outcome = 'skipped' and s.reason = 'no_phone' then 1 else 0 end)`.as(
          "noPhone",
        ),
        sql<number>`sum(case when s.outcome = 'skipped' and s.reason = 'opted_out' then 1 else 0 end)`.as(
          "optedOut",
        ),
        // A provider's delivered and read are sent too.
        sql<number>`sum(case when msg.status in ('sent', 'delivered', 'read') then 1 else 0 end)`.as("sent"),
        sql<number>`sum(case when msg.status = 'failed' then 1 else 0 end)`.as("failed"),
        sql<number>`sum(case when s.outcome = 'sent' and (msg.status is null or msg.status = 'pending') then 1 else 0 end)`.as(
          "pending",
        ),
        sql<number>`sum(case when s.outcome = 'sent' and exists (
            select 1 from messages r where r.account_id = s.account_id and r.contact_id = s.contact_id
              and r.direction = 'inbound' and r.created_at > s.created_at) then 1 else 0 end)`.as("replied"),
        sql<number>`count(*)`.as("reached"),
      ])
      .where("s.account_id", "=", accountId)
      .where("s.campaign_id", "=", campaignId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("list_members")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", accountId)
      .where("list_id", "=", listId)
      .executeTakeFirstOrThrow(),
  ]);
  const n = (v: unknown) => Number(v ?? 0);
  return {
    members: n(members.n),
    reached: n(sends.reached),
    skipped: n(sends.skipped),
    noKnownChannel: n(sends.noKnownChannel),
    noPhone: n(sends.noPhone),
    optedOut: n(sends.optedOut),
    sent: n(sends.sent),
    failed: n(sends.failed),
    pending: n(sends.pending),
    replied: n(sends.replied),
  };
}

/** A page of the campaign's skipped members with the reason, in contact id order (after `afterId`). */
export async function skippedMembers(
  db: Q,
  accountId: string,
  campaignId: string,
  afterId: string | null,
  limit: number,
) {
  let q = db
    .selectFrom("outgoing_sends as s")
    .innerJoin("contacts as c", (j) =>
      j.onRef("c.id", "=", "s.contact_id").onRef("c.account_id", "=", "s.account_id"),
    )
    .select(["c.id", "c.first_name", "c.last_name", "c.phone", "c.email", "s.reason", "s.created_at"])
    .where("s.account_id", "=", accountId)
    .where("s.campaign_id", "=", campaignId)
    .where("s.outcome", "=", "skipped");
  if (afterId) q = q.where("c.id", ">", afterId);
  return q.orderBy("c.id").limit(limit).execute();
}

// Campaigns SQL: the campaigns table, which this module owns. The bot answers with a campaign and the
// outgoing module sends one; both (and the channels, whose default campaign it checks) read and write
// it here, so neither imports the other. Every function takes the account id first.
import type { Kysely, Transaction } from "kysely";
import type { Bool, CampaignRow, CampaignsTable, Database } from "../../platform/db/schema.ts";

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
): Promise<boolean> {
  let q = db
    .updateTable("campaigns")
    .set({ outgoing_state: state, outgoing_reason: reason, updated_at: Date.now() })
    .where("account_id", "=", accountId)
    .where("id", "=", campaignId);
  if (onlyFrom) q = q.where("outgoing_state", "=", onlyFrom);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A campaign's follow-up steps as stored (JSON), or undefined when there is no such campaign. */
export async function followUpsOfCampaign(
  db: Q,
  accountId: string,
  campaignId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("campaigns")
    .select("follow_ups")
    .where("account_id", "=", accountId)
    .where("id", "=", campaignId)
    .executeTakeFirst();
  return row?.follow_ups;
}

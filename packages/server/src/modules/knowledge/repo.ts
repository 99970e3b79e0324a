// Knowledge sources' rows (knowledge_sources, knowledge_passages). Account id first in every function;
// another account's row is never seen.
import type { Kysely, Transaction, Updateable } from "kysely";
import type { Database, KnowledgeSourceRow, KnowledgeSourcesTable } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export interface PassageInput {
  heading: string | null;
  text: string;
}

/** Rows per insert statement (SQLite allows 32,766 bound values; 6 per row). */
const INSERT_BATCH = 500;

export async function insertSource(db: Q, row: KnowledgeSourceRow): Promise<void> {
  await db.insertInto("knowledge_sources").values(row).execute();
}

export async function findSource(
  db: Q,
  accountId: string,
  campaignId: string,
  sourceId: string,
): Promise<KnowledgeSourceRow | undefined> {
  return db
    .selectFrom("knowledge_sources")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("campaign_id", "=", campaignId)
    .where("id", "=", sourceId)
    .executeTakeFirst();
}

/** A source by its id alone within the account (the sync job knows no campaign). */
export async function findSourceById(
  db: Q,
  accountId: string,
  sourceId: string,
): Promise<KnowledgeSourceRow | undefined> {
  return db
    .selectFrom("knowledge_sources")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", sourceId)
    .executeTakeFirst();
}

/** `limit` sources of the campaign before `beforeId`, newest first; the caller asks for one more. */
export async function pageSources(
  db: Q,
  accountId: string,
  campaignId: string,
  beforeId: string | null,
  limit: number,
): Promise<KnowledgeSourceRow[]> {
  let q = db
    .selectFrom("knowledge_sources")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("campaign_id", "=", campaignId);
  if (beforeId !== null) q = q.where("id", "<", beforeId);
  return q.orderBy("id", "desc").limit(limit).execute();
}

/** True when a row of this account was changed. */
export async function updateSource(
  db: Q,
  accountId: string,
  sourceId: string,
  changes: Updateable<KnowledgeSourcesTable>,
): Promise<boolean> {
  const result = await db
    .updateTable("knowledge_sources")
    .set(changes)
    .where("account_id", "=", accountId)
    .where("id", "=", sourceId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes the source and its passages; true when the source was there. */
export async function deleteSource(db: Q, accountId: string, sourceId: string): Promise<boolean> {
  await deletePassages(db, accountId, sourceId);
  const result = await db
    .deleteFrom("knowledge_sources")
    .where("account_id", "=", accountId)
    .where("id", "=", sourceId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes a campaign's sources and passages (the campaign is being deleted); their file keys. */
export async function deleteCampaignSources(db: Q, accountId: string, campaignId: string): Promise<string[]> {
  const files = await db
    .selectFrom("knowledge_sources")
    .select("file_key")
    .where("account_id", "=", accountId)
    .where("campaign_id", "=", campaignId)
    .where("file_key", "is not", null)
    .execute();
  await db
    .deleteFrom("knowledge_passages")
    .where("account_id", "=", accountId)
    .where("campaign_id", "=", campaignId)
    .execute();
  await db
    .deleteFrom("knowledge_sources")
    .where("account_id", "=", accountId)
    .where("campaign_id", "=", campaignId)
    .execute();
  return files.map((f) => f.file_key!);
}

export async function deletePassages(db: Q, accountId: string, sourceId: string): Promise<void> {
  await db
    .deleteFrom("knowledge_passages")
    .where("account_id", "=", accountId)
    .where("source_id", "=", sourceId)
    .execute();
}

/** Replaces the source's passages with these, in order. */
export async function replacePassages(
  db: Q,
  accountId: string,
  source: { id: string; campaign_id: string },
  passages: PassageInput[],
): Promise<void> {
  await deletePassages(db, accountId, source.id);
  for (let i = 0; i < passages.length; i += INSERT_BATCH) {
    await db
      .insertInto("knowledge_passages")
      .values(
        passages.slice(i, i + INSERT_BATCH).map((p, j) => ({
          account_id: accountId,
          campaign_id: source.campaign_id,
          source_id: source.id,
          position: i + j,
          heading: p.heading,
          text: p.text,
        })),
      )
      .execute();
  }
}

/**
 * What the bot's engine cache compares: the campaign's sources that have passages, each with the time
 * it last changed. A change (a sync, a delete) gives another signature.
 */
export async function passagesSignature(db: Q, accountId: string, campaignId: string): Promise<string> {
  const rows = await db
    .selectFrom("knowledge_sources")
    .select(["id", "updated_at"])
    .where("account_id", "=", accountId)
    .where("campaign_id", "=", campaignId)
    .where("passages", ">", 0)
    .orderBy("id", "asc")
    .execute();
  return rows.map((r) => `${r.id}:${Number(r.updated_at)}`).join(",");
}

export interface CampaignPassage {
  sourceId: string;
  sourceName: string;
  heading: string | null;
  text: string;
}

/** Every passage of the campaign's sources, oldest source first, in each source's order. */
export async function campaignPassages(
  db: Q,
  accountId: string,
  campaignId: string,
): Promise<CampaignPassage[]> {
  const rows = await db
    .selectFrom("knowledge_passages as p")
    .innerJoin("knowledge_sources as s", (j) =>
      j.onRef("s.id", "=", "p.source_id").onRef("s.account_id", "=", "p.account_id"),
    )
    .select(["p.source_id", "s.name", "p.heading", "p.text"])
    .where("p.account_id", "=", accountId)
    .where("p.campaign_id", "=", campaignId)
    .orderBy("p.source_id", "asc")
    .orderBy("p.position", "asc")
    .execute();
  return rows.map((r) => ({ sourceId: r.source_id, sourceName: r.name, heading: r.heading, text: r.text }));
}

/** Url and sitemap sources whose daily re-sync is due (of every account: the daily job's work). */
export async function dueForResync(db: Q, now: number, limit: number): Promise<KnowledgeSourceRow[]> {
  return db
    .selectFrom("knowledge_sources")
    .selectAll()
    .where("next_sync_at", "<=", now)
    .where("daily_resync", "=", 1)
    .where("status", "!=", "processing")
    .orderBy("next_sync_at", "asc")
    .limit(limit)
    .execute();
}

/** Which of these file keys some source still names (the orphan sweep). */
export async function existingSourceIds(db: Q, sourceIds: string[]): Promise<Set<string>> {
  if (sourceIds.length === 0) return new Set();
  const rows = await db.selectFrom("knowledge_sources").select("id").where("id", "in", sourceIds).execute();
  return new Set(rows.map((r) => r.id));
}

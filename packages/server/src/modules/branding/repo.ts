// Agency brands' rows (agency_brands). Account id (the agency's) first; another agency's row is never seen.
import type { Kysely, Selectable, Transaction } from "kysely";
import type { AgencyBrandsTable, Database } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export type BrandRow = Selectable<AgencyBrandsTable>;

export async function findBrand(db: Q, accountId: string): Promise<BrandRow | undefined> {
  return db.selectFrom("agency_brands").selectAll().where("account_id", "=", accountId).executeTakeFirst();
}

/** Inserts or replaces the agency's brand row. */
export async function saveBrand(db: Q, accountId: string, row: Omit<BrandRow, "account_id">): Promise<void> {
  await db
    .insertInto("agency_brands")
    .values({ account_id: accountId, ...row })
    .onConflict((oc) => oc.column("account_id").doUpdateSet(row))
    .execute();
}

export async function deleteBrand(db: Q, accountId: string): Promise<void> {
  await db.deleteFrom("agency_brands").where("account_id", "=", accountId).execute();
}

// ---- public lookups (no account to scope by: the host or the logo's key is what is asked) --------

/** The brand an agency serves on its own host (the sign-in page reached through it). */
export async function findBrandByHostPublic(db: Q, host: string): Promise<BrandRow | undefined> {
  return db.selectFrom("agency_brands").selectAll().where("public_host", "=", host).executeTakeFirst();
}

/** The brand whose current logo is stored under `key` (an old key answers nothing). */
export async function findBrandByLogoPublic(db: Q, key: string): Promise<BrandRow | undefined> {
  return db.selectFrom("agency_brands").selectAll().where("logo_key", "=", key).executeTakeFirst();
}

/** Which of these logo keys some brand still names (the orphan sweep asks). */
export async function namedLogoKeys(db: Q, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db
    .selectFrom("agency_brands")
    .select("logo_key")
    .where("logo_key", "in", keys)
    .execute();
  return new Set(rows.flatMap((r) => (r.logo_key ? [r.logo_key] : [])));
}

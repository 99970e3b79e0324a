// Imports SQL. Every function takes the account id first; another account's import is never seen.
import type { Kysely, Transaction } from "kysely";
import type { Database, ImportRow } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export async function insertImport(db: Q, row: ImportRow): Promise<void> {
  await db.insertInto("imports").values(row).execute();
}

/** Which of these imports exist (of any account): the orphan sweep keeps their uploaded files. */
export async function existingImports(db: Q, importIds: string[]): Promise<Set<string>> {
  if (importIds.length === 0) return new Set();
  const rows = await db.selectFrom("imports").select("id").where("id", "in", importIds).execute();
  return new Set(rows.map((r) => r.id));
}

export async function findImport(db: Q, accountId: string, importId: string): Promise<ImportRow | undefined> {
  return db
    .selectFrom("imports")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", importId)
    .executeTakeFirst();
}

/** The import row, locked until the transaction ends on PostgreSQL (SQLite has one writer anyway). */
export async function findImportLocked(
  db: Transaction<Database>,
  dialect: "sqlite" | "postgres",
  accountId: string,
  importId: string,
): Promise<ImportRow | undefined> {
  const q = db
    .selectFrom("imports")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("id", "=", importId);
  return (dialect === "postgres" ? q.forUpdate() : q).executeTakeFirst();
}

export async function saveProgress(
  db: Q,
  accountId: string,
  importId: string,
  progress: Pick<
    ImportRow,
    "done" | "created" | "updated" | "unchanged" | "rejected" | "byte_offset" | "status" | "error"
  >,
  at: number,
): Promise<void> {
  await db
    .updateTable("imports")
    .set({ ...progress, updated_at: at })
    .where("account_id", "=", accountId)
    .where("id", "=", importId)
    .execute();
}

export async function insertRejections(
  db: Q,
  accountId: string,
  importId: string,
  rows: Array<{ rowNumber: number; reason: string; record: string[] }>,
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto("import_rejections")
    .values(
      rows.map((r) => ({
        import_id: importId,
        account_id: accountId,
        row_number: r.rowNumber,
        reason: r.reason,
        record: JSON.stringify(r.record),
      })),
    )
    // A slice that runs again after a crash writes the same rows: keep the first.
    .onConflict((oc) => oc.columns(["import_id", "row_number"]).doNothing())
    .execute();
}

export async function rejectionsOf(
  db: Q,
  accountId: string,
  importId: string,
): Promise<Array<{ row_number: number; reason: string; record: string }>> {
  return db
    .selectFrom("import_rejections")
    .select(["row_number", "reason", "record"])
    .where("account_id", "=", accountId)
    .where("import_id", "=", importId)
    .orderBy("row_number")
    .execute();
}

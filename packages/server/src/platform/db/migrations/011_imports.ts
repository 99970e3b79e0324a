// CSV contact imports (bulk work): one row per import with its progress, and the rejected rows with
// the reason for each (downloadable as CSV). The uploaded file is kept under DATA_DIR/imports.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving app schema
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("imports")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("file_name", "text")
    .addColumn("list_id", "text")
    .addColumn("header", "text", (c) => c.notNull())
    .addColumn("mapping", "text", (c) => c.notNull())
    .addColumn("total", "integer", (c) => c.notNull())
    .addColumn("done", "integer", (c) => c.notNull())
    .addColumn("created", "integer", (c) => c.notNull())
    .addColumn("updated", "integer", (c) => c.notNull())
    .addColumn("rejected", "integer", (c) => c.notNull())
    .addColumn("byte_offset", "bigint", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("imports_account_idx").on("imports").columns(["account_id", "id"]).execute();
  await db.schema
    .createTable("import_rejections")
    .addColumn("import_id", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("row_number", "integer", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("record", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("import_rejections_pk", ["import_id", "row_number"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("import_rejections").execute();
  await db.schema.dropTable("imports").execute();
}

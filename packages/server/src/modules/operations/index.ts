// Operations: commands an operator runs next to `parley serve` (no routes, no jobs).
import type { Module } from "../../context.ts";
import { backupSqlite, restoreSqlite } from "../../platform/db/backup.ts";
import { AppError } from "../../platform/errors.ts";

function sqliteOnly(databaseUrl: string | null, tool: string): void {
  if (databaseUrl)
    throw new AppError(
      "VALIDATION_ERROR",
      `DATABASE_URL is set: on PostgreSQL use ${tool} (see docs/reliability.md, "Backups")`,
    );
}

export const operationsModule: Module = {
  name: "operations",
  commands: {
    backup: {
      summary: "--out FILE   consistent copy of the live SQLite database (PostgreSQL: pg_dump)",
      options: { out: { type: "string" } },
      withoutDatabase: true,
      async run(values, ctx) {
        sqliteOnly(ctx.config.databaseUrl, "pg_dump -Fc");
        if (typeof values.out !== "string" || !values.out)
          throw new AppError("VALIDATION_ERROR", "--out FILE is required");
        return backupSqlite(ctx.config.dataDir, values.out);
      },
    },
    restore: {
      summary: "--from FILE  put a backup in place, server stopped (PostgreSQL: pg_restore)",
      options: { from: { type: "string" } },
      withoutDatabase: true,
      async run(values, ctx) {
        sqliteOnly(ctx.config.databaseUrl, "pg_restore");
        if (typeof values.from !== "string" || !values.from)
          throw new AppError("VALIDATION_ERROR", "--from FILE is required");
        return restoreSqlite(ctx.config.dataDir, values.from);
      },
    },
  },
};

// Operations: commands an operator runs next to `parley serve` (no routes, no jobs): backups, and the
// move of DATA_DIR's files (attachments, imports, agency logos, knowledge files) into a bucket.
import type { Module } from "../../context.ts";
import { backupSqlite, restoreSqlite } from "../../platform/db/backup.ts";
import { AppError } from "../../platform/errors.ts";
import { localStorage, s3Storage } from "../../platform/storage.ts";
import { type MigrateSummary, migrateStorage } from "../../platform/storage-migrate.ts";
import { isLogoKey, LOGO_PREFIX } from "../branding/service.ts";
import { IMPORTS_PREFIX, importIdOfKey } from "../imports/service.ts";
import { KNOWLEDGE_PREFIX, sourceIdOfKey } from "../knowledge/service.ts";
import { MEDIA_PREFIX, shaOfKey } from "../messaging/media/store.ts";

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
    "storage migrate": {
      summary: "copy DATA_DIR's files into the STORAGE_URL bucket (resumable, verified; progress on stderr)",
      options: {},
      withoutDatabase: true,
      async run(_values, ctx) {
        const { config } = ctx;
        if (!config.storage) {
          throw new AppError(
            "VALIDATION_ERROR",
            "STORAGE_URL is not set: set it to the bucket to copy DATA_DIR's files into " +
              "(s3://BUCKET?region=REGION[&endpoint=URL][&forcePathStyle=true], see docs/operations.md)",
          );
        }
        const bucket = await s3Storage(config.storage);
        const tty = process.stderr.isTTY;
        const progress = (s: MigrateSummary) => {
          const line = `checked ${s.copied + s.skipped} files (copied ${s.copied}, already there ${s.skipped})`;
          process.stderr.write(tty ? `\r${line}` : `${line}\n`);
        };
        try {
          const s = await migrateStorage(
            localStorage(config.dataDir),
            bucket,
            [
              // An attachment's key is the SHA-256 of its bytes.
              {
                prefix: MEDIA_PREFIX,
                check: (key) => ({ ours: shaOfKey(key) !== null, sha256: shaOfKey(key) }),
              },
              {
                prefix: IMPORTS_PREFIX,
                check: (key) => ({ ours: importIdOfKey(key) !== null, sha256: null }),
                contentType: "text/csv",
              },
              // An agency's logo (its type is kept on the brand's row, which serves it).
              { prefix: LOGO_PREFIX, check: (key) => ({ ours: isLogoKey(key), sha256: null }) },
              // A knowledge source's file (its type is kept on the source's row).
              {
                prefix: KNOWLEDGE_PREFIX,
                check: (key) => ({ ours: sourceIdOfKey(key) !== null, sha256: null }),
              },
            ],
            progress,
          );
          if (tty) process.stderr.write("\n");
          const counts = { copied: s.copied, skipped: s.skipped, verified: s.verified };
          for (const key of s.ignored) process.stderr.write(`not Parley's, not copied: ${key}\n`);
          if (s.damaged.length > 0) {
            throw new AppError(
              "VALIDATION_ERROR",
              `${s.damaged.length} attachment(s) in DATA_DIR do not hash to their names and were not ` +
                `copied (${s.damaged.slice(0, 5).join(", ")}${s.damaged.length > 5 ? ", …" : ""}); ` +
                `the others are: ${JSON.stringify(counts)}`,
            );
          }
          return { ...counts, ...(s.ignored.length > 0 ? { ignored: s.ignored.length } : {}) };
        } finally {
          await bucket.close();
        }
      },
    },
  },
};

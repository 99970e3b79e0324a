// CSV contact imports: the upload routes, the background job that works through a file in slices,
// `parley contacts import`, and the sweep of uploaded files no import names.
import fs from "node:fs/promises";
import type { Module } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { type OrphanSweep, registerSweep } from "../../platform/storage-sweep.ts";
import { requireAccountByEmail } from "../accounts/service.ts";
import { existingImports } from "./repo.ts";
import { importRoutes } from "./routes.ts";
import {
  createImport,
  IMPORTS_PREFIX,
  importHandler,
  importIdOfKey,
  importJob,
  importView,
  requireImport,
} from "./service.ts";

/** Uploaded files whose import row never committed (a crash between the two) are removed. */
export const importsSweep: OrphanSweep = {
  type: "imports.sweep",
  prefixes: [IMPORTS_PREFIX],
  nameOf: importIdOfKey,
  named: existingImports,
};

export const importsModule: Module = {
  name: "imports",
  routes: importRoutes,
  jobs(worker, ctx) {
    worker.register(importJob, importHandler(ctx));
    registerSweep(worker, ctx, importsSweep);
  },
  commands: {
    "contacts import": {
      summary:
        "--email E FILE.csv [--list LIST_ID] [--map column=field,…] [--mode fill|overwrite] [--default-country CA]   (progress on stderr)",
      options: {
        email: { type: "string" },
        list: { type: "string" },
        map: { type: "string" },
        mode: { type: "string" },
        "default-country": { type: "string" },
      },
      positional: "file",
      async run(values, ctx) {
        const email = values.email;
        const file = values.file;
        if (typeof email !== "string" || !email)
          throw new AppError("VALIDATION_ERROR", "--email is required");
        if (typeof file !== "string" || !file)
          throw new AppError("VALIDATION_ERROR", "give the CSV file to import");
        const account = await requireAccountByEmail(ctx.db, email);
        const bytes = await fs.readFile(file).catch(() => {
          throw new AppError("VALIDATION_ERROR", `cannot read ${file}`);
        });
        const created = await createImport(ctx, account.id, {
          bytes,
          fileName: file.split("/").at(-1) ?? file,
          listId: typeof values.list === "string" ? values.list : null,
          map: typeof values.map === "string" ? values.map : null,
          mode: typeof values.mode === "string" ? values.mode : null,
          defaultCountry: typeof values["default-country"] === "string" ? values["default-country"] : null,
        });
        // This process works through the slices itself (a running server's worker may take some: the
        // job lease decides), and shows the progress on stderr.
        ctx.worker.register(importJob, importHandler(ctx));
        const tty = process.stderr.isTTY;
        for (;;) {
          await ctx.worker.drain(1);
          const row = await requireImport(ctx, account.id, created.importId);
          const v = importView(row);
          const line = `imported ${v.done} of ${v.total} rows (created ${v.created}, updated ${v.updated}, unchanged ${v.unchanged}, rejected ${v.rejected})`;
          process.stderr.write(tty ? `\r${line}` : `${line}\n`);
          if (v.status !== "running") {
            if (tty) process.stderr.write("\n");
            if (v.status === "failed")
              throw new AppError("VALIDATION_ERROR", `the import failed: ${v.error}`);
            return {
              importId: v.importId,
              total: v.total,
              created: v.created,
              updated: v.updated,
              unchanged: v.unchanged,
              rejected: v.rejected,
            };
          }
          if (row.done === 0) await new Promise((r) => setTimeout(r, 100));
        }
      },
    },
  },
};

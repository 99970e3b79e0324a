// /app/api for CSV imports (bulk work): preview a file's columns and first rows with the guessed
// mapping, start an import, follow its progress, download its rejected rows (the same handlers as
// /v1/contacts/imports, imports/routes.ts). Every role.

import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { guessMapping, MAX_IMPORT_BYTES, scanCsv } from "../imports/csv.ts";
import {
  acceptCsv,
  ImportJson,
  ImportParams,
  ImportQuery,
  sendRejectedCsv,
  startImport,
} from "../imports/routes.ts";
import { csvBytes, importView, requireImport } from "../imports/service.ts";
import { CsvText, ImportPreviewJson } from "./responses.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

export function importRoutes(app: App, ctx: AppContext): void {
  app.register(async (plain) => {
    const scope = plain as unknown as App;
    acceptCsv(scope);
    scope.post(
      "/imports/preview",
      {
        bodyLimit: MAX_IMPORT_BYTES,
        schema: { operationId: "appPreviewImport", response: { 200: ImportPreviewJson }, tags: TAGS },
      },
      async (request) => {
        const scanned = await scanCsv(csvBytes(request.body));
        return {
          header: scanned.header,
          mapping: guessMapping(scanned.header),
          sample: scanned.sample,
          total: scanned.total,
        };
      },
    );
    scope.post(
      "/imports",
      {
        bodyLimit: MAX_IMPORT_BYTES,
        schema: {
          operationId: "appCreateImport",
          response: { 202: ImportJson },
          tags: TAGS,
          querystring: ImportQuery,
        },
      },
      async (request, reply) => startImport(ctx, sessionOf(request).account.id, request, reply),
    );
  });

  app.get(
    "/imports/:importId",
    {
      schema: {
        operationId: "appGetImport",
        response: { 200: ImportJson },
        tags: TAGS,
        params: ImportParams,
      },
    },
    async (request) =>
      importView(await requireImport(ctx, sessionOf(request).account.id, request.params.importId)),
  );

  app.get(
    "/imports/:importId/rejected",
    {
      schema: {
        operationId: "appImportRejected",
        response: { 200: CsvText },
        tags: TAGS,
        params: ImportParams,
      },
    },
    async (request, reply) => sendRejectedCsv(ctx, sessionOf(request).account.id, request, reply),
  );
}

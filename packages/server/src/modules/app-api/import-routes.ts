// /app/api for CSV imports (bulk work): preview a file's columns and first rows with the guessed
// mapping, start an import, follow its progress, download its rejected rows. Every role.

import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { guessMapping, MAX_IMPORT_BYTES, scanCsv } from "../imports/csv.ts";
import { acceptCsv, ImportParams, ImportQuery } from "../imports/routes.ts";
import { createImport, csvBytes, importView, rejectedCsv, requireImport } from "../imports/service.ts";
import type { SessionRoute } from "./session.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

export function importRoutes(app: App, ctx: AppContext, session: SessionRoute): void {
  app.register(async (plain) => {
    const scope = plain as unknown as App;
    acceptCsv(scope);
    scope.post(
      "/app/api/imports/preview",
      { ...session, bodyLimit: MAX_IMPORT_BYTES, schema: { operationId: "appPreviewImport", tags: TAGS } },
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
      "/app/api/imports",
      {
        ...session,
        bodyLimit: MAX_IMPORT_BYTES,
        schema: { operationId: "appCreateImport", tags: TAGS, querystring: ImportQuery },
      },
      async (request, reply) => {
        const { preview: _sample, ...created } = await createImport(ctx, sessionOf(request).account.id, {
          bytes: request.body,
          listId: request.query.listId ?? null,
          map: request.query.map ?? null,
          fileName: request.query.fileName ?? null,
          mode: request.query.mode ?? null,
          defaultCountry: request.query.defaultCountry ?? null,
        });
        return reply.code(202).send(created);
      },
    );
  });

  app.get(
    "/app/api/imports/:importId",
    { ...session, schema: { operationId: "appGetImport", tags: TAGS, params: ImportParams } },
    async (request) =>
      importView(await requireImport(ctx, sessionOf(request).account.id, request.params.importId)),
  );

  app.get(
    "/app/api/imports/:importId/rejected",
    { ...session, schema: { operationId: "appImportRejected", tags: TAGS, params: ImportParams } },
    async (request, reply) => {
      const csv = await rejectedCsv(ctx, sessionOf(request).account.id, request.params.importId);
      return reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="rejected-${request.params.importId}.csv"`)
        .send(csv);
    },
  );
}

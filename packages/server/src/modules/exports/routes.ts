// GET /v1/exports/contacts and /v1/exports/conversations (extension, issue 38): the account's data as
// a download. The web app's twin is app-api/export-routes.ts (owners and admins).
import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { ExportFile, ExportQuery } from "./schemas.ts";
import { sendExport } from "./service.ts";

const DESCRIPTION =
  "Streamed as it is read, so an account of any size exports in flat memory. CSV cells that start " +
  "with =, +, -, @, a tab or a carriage return get a leading apostrophe (a spreadsheet shows them as " +
  'text instead of running a formula); labels and list names are joined with "; ". Rows written ' +
  "while the export runs may or may not be in it.";

export function exportRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/v1/exports/contacts",
    {
      schema: {
        operationId: "exportContacts",
        summary: "Every contact with its labels and lists, as CSV or JSON Lines (extension)",
        description: DESCRIPTION,
        tags: ["contacts"],
        querystring: ExportQuery,
        produces: ["text/csv", "application/x-ndjson"],
        response: { 200: ExportFile, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) =>
      sendExport(reply, ctx.db, accountOf(request).id, "contacts", request.query.format ?? "csv"),
  );

  app.get(
    "/v1/exports/conversations",
    {
      schema: {
        operationId: "exportConversations",
        summary: "Every conversation with its messages, as CSV (a row a message) or JSON Lines (extension)",
        description: DESCRIPTION,
        tags: ["conversations"],
        querystring: ExportQuery,
        produces: ["text/csv", "application/x-ndjson"],
        response: { 200: ExportFile, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) =>
      sendExport(reply, ctx.db, accountOf(request).id, "conversations", request.query.format ?? "csv"),
  );
}

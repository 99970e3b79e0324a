// /app/api/exports/{contacts|conversations}: the account's data as a download from Settings, for
// owners and admins (the same stream as /v1/exports, exports/service.ts).
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { requireManager } from "../accounts/team.ts";
import { ExportFile, ExportQuery } from "../exports/schemas.ts";
import { sendExport } from "../exports/service.ts";
import { sessionOf } from "./session.ts";

const ExportParams = Type.Object({
  kind: Type.Union([Type.Literal("contacts"), Type.Literal("conversations")]),
});

export function exportAppRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/exports/:kind",
    {
      schema: {
        operationId: "appExport",
        tags: ["app"],
        params: ExportParams,
        querystring: ExportQuery,
        response: { 200: ExportFile },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      requireManager(session);
      return sendExport(
        reply,
        ctx.db,
        session.account.id,
        request.params.kind,
        request.query.format ?? "csv",
      );
    },
  );
}

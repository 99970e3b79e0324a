// Import endpoints (extension): upload a CSV (text/csv body) to import contacts in the background,
// follow its progress, download the rejected rows. The web app's door has the same routes under
// /app/api/imports (app-api/import-routes.ts).
import type { FastifyReply } from "fastify";
import { type Static, Type } from "typebox";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { CsvWidthGuard, MAX_CSV_COLUMNS, MAX_CSV_HEADER_BYTES, MAX_IMPORT_BYTES } from "./csv.ts";
import { createImport, importView, rejectedCsv, requireImport } from "./service.ts";

export const ImportQuery = Type.Object({
  listId: Type.Optional(
    Type.String({ maxLength: 64, description: "Add every imported contact to this list" }),
  ),
  map: Type.Optional(
    Type.String({
      maxLength: 2000,
      description:
        "column=field pairs over the guess from the header, comma-separated; fields: firstName, lastName, " +
        "phone, email, externalId (the custom channel id, a contact's fromId), labels (split on , ; or |)",
    }),
  ),
  fileName: Type.Optional(Type.String({ maxLength: 255 })),
  mode: Type.Optional(
    Type.Union([Type.Literal("fill"), Type.Literal("overwrite")], {
      description:
        "What a row does to an existing contact: `fill` (the default) only fills its empty fields; " +
        "`overwrite` replaces its names and e-mail with the file's. Labels are added either way.",
    }),
  ),
  defaultCountry: Type.Optional(
    Type.String({
      pattern: "^[A-Za-z]{2}$",
      description:
        "Two-letter country (CA) for phone numbers written without a country code; without it such a " +
        "row is rejected",
    }),
  ),
});

export const ImportJson = Type.Object({
  importId: Type.String(),
  status: Type.Union([Type.Literal("running"), Type.Literal("done"), Type.Literal("failed")]),
  fileName: Type.Union([Type.String(), Type.Null()]),
  listId: Type.Union([Type.String(), Type.Null()]),
  mapping: Type.Record(Type.String(), Type.String()),
  total: Type.Integer({ description: "Data rows in the file" }),
  done: Type.Integer(),
  created: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer({
    description:
      "Rows that matched a contact and changed nothing: created + updated + unchanged + rejected = done",
  }),
  rejected: Type.Integer(),
  mode: Type.Union([Type.Literal("fill"), Type.Literal("overwrite")]),
  defaultCountry: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const ImportParams = Type.Object({ importId: Type.String({ maxLength: 64 }) });

const tooLarge = () =>
  new AppError("PAYLOAD_TOO_LARGE", `the file is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB`);

/**
 * The routes of `scope` take text/csv bodies only, as bytes (checked for UTF-8 and CSV by the service):
 * JSON or anything else is 415 UNSUPPORTED_MEDIA_TYPE. The bytes are checked for width as they arrive
 * (CsvWidthGuard): a too-wide file is answered 400 CSV_TOO_WIDE at once, without reading it to its
 * end or parsing it, and the rest of the upload is discarded.
 */
export function acceptCsv(scope: App): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser("text/csv", (request, payload, done) => {
    if (Number(request.headers["content-length"]) > MAX_IMPORT_BYTES) {
      done(tooLarge(), undefined);
      return;
    }
    const guard = new CsvWidthGuard();
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (err: Error | null) => {
      if (settled) return;
      settled = true;
      payload.removeListener("data", onData);
      if (err) done(err, undefined);
      else done(null, Buffer.concat(chunks, received));
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > MAX_IMPORT_BYTES) return finish(tooLarge());
      try {
        guard.feed(chunk);
      } catch (err) {
        return finish(err as Error);
      }
      chunks.push(chunk);
    };
    payload.on("data", onData);
    payload.on("end", () => finish(null));
    payload.on("error", (err) => finish(err));
  });
}

export function importRoutes(app: App, ctx: AppContext): void {
  // A scope of its own: text/csv is accepted by these routes only (everything else stays JSON-only).
  app.register(async (plain) => {
    const scope = plain as unknown as App;
    acceptCsv(scope);
    scope.post(
      "/v1/contacts/imports",
      {
        bodyLimit: MAX_IMPORT_BYTES,
        schema: {
          operationId: "createContactImport",
          summary: "Import contacts from a CSV file (extension)",
          description:
            "Body: the CSV file (Content-Type: text/csv, UTF-8, a header row, at most 50 MB). Columns are " +
            "mapped to contact fields by their names (First name, Last name, Phone, Email, From id / custom " +
            "channel id, Labels) or by `map`. Each row is checked like POST /v1/contacts (a phone needs its " +
            "country code) and creates or updates a contact (dedupe by phone, then custom channel id, then " +
            "e-mail); running the same file again creates nothing new. An existing contact's empty " +
            "fields are filled (`mode=overwrite` replaces its names and e-mail). The work runs in the " +
            "background: 202 with the import, then GET it for progress. Errors: VALIDATION_ERROR (400: " +
            "not UTF-8, binary, no header row, a row longer than the header, no identifying column, an " +
            `unknown defaultCountry), CSV_TOO_WIDE (400: a row of more than ${MAX_CSV_COLUMNS} columns or ` +
            `a header line over ${MAX_CSV_HEADER_BYTES / 1024} KB, refused as the bytes arrive), ` +
            "LIST_NOT_FOUND (404), 413, 415.",
          tags: ["contacts"],
          querystring: ImportQuery,
          response: { 202: ImportJson, ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request, reply) => startImport(ctx, accountOf(request).id, request, reply),
    );
  });

  app.get(
    "/v1/contacts/imports/:importId",
    {
      schema: {
        operationId: "getContactImport",
        summary: "An import's progress (extension)",
        description: "Errors: NOT_FOUND (404), also for another account's import.",
        tags: ["contacts"],
        params: ImportParams,
        response: { 200: ImportJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => importView(await requireImport(ctx, accountOf(request).id, request.params.importId)),
  );

  app.get(
    "/v1/contacts/imports/:importId/rejected",
    {
      schema: {
        operationId: "getContactImportRejected",
        summary: "An import's rejected rows, as CSV (extension)",
        description:
          "The file's columns, then `row` (1 = the first data row) and `reason`. A cell that starts with " +
          "=, +, -, @, a tab or a carriage return is prefixed with an apostrophe, so a spreadsheet shows " +
          "it as text instead of running it as a formula. Errors: NOT_FOUND (404).",
        tags: ["contacts"],
        params: ImportParams,
        produces: ["text/csv"],
        response: { 200: { type: "string", description: "text/csv" }, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request, reply) => sendRejectedCsv(ctx, accountOf(request).id, request, reply),
  );
}

// The handlers' work, shared with the web app's /app/api/imports routes (app-api/import-routes.ts).

/** Starts an import of the request's CSV body for the account: 202 with the import. */
export async function startImport(
  ctx: AppContext,
  accountId: string,
  request: { body: unknown; query: Static<typeof ImportQuery> },
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { preview: _sample, ...created } = await createImport(ctx, accountId, {
    bytes: request.body,
    listId: request.query.listId ?? null,
    map: request.query.map ?? null,
    fileName: request.query.fileName ?? null,
    mode: request.query.mode ?? null,
    defaultCountry: request.query.defaultCountry ?? null,
  });
  return reply.code(202).send(created);
}

/** Answers with an import's rejected rows as a CSV download. */
export async function sendRejectedCsv(
  ctx: AppContext,
  accountId: string,
  request: { params: Static<typeof ImportParams> },
  reply: FastifyReply,
): Promise<FastifyReply> {
  const csv = await rejectedCsv(ctx, accountId, request.params.importId);
  return reply
    .type("text/csv; charset=utf-8")
    .header("content-disposition", `attachment; filename="rejected-${request.params.importId}.csv"`)
    .send(csv);
}

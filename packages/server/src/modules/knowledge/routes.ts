// /v1/campaigns/{campaignId}/sources: thin handlers (auth → validated input → service → response).
import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { pageOf } from "../../platform/pagination.ts";
import {
  CreateSourceBody,
  DeleteSourceResponse,
  SOURCE_BODY_LIMIT_BYTES,
  SourceJson,
  SourceListQuery,
  SourceParams,
  SourcesParams,
  UpdateSourceBody,
} from "./schemas.ts";
import {
  createSource,
  deleteSource,
  pageSources,
  requireSource,
  resyncSource,
  sourceView,
  updateSource,
} from "./service.ts";

const TAGS = ["campaigns"];

export const CREATE_SOURCE_DESCRIPTION =
  "A file (PDF, DOCX, Markdown, HTML or plain text, base64 in `data`, at most 20 MB), a web page " +
  "(`url`) or a sitemap (`url` of a sitemap.xml or sitemap index, `maxPages` 1 to 200, default 50) the " +
  "campaign's bot answers from. Answers at once with status processing; the text is read in the " +
  "background (GET the source to follow it), split into passages on headings and paragraphs. A page " +
  "that cannot be read makes the source's status error, with the reason. url and sitemap sources may " +
  "be fetched again every 24 hours (`dailyResync`). Addresses go through the outbound guard: private " +
  "and local ones are refused unless OUTBOUND_ALLOW_CIDRS allows them. Errors: VALIDATION_ERROR (400, " +
  "naming the field), CAMPAIGN_NOT_FOUND (404), PAYLOAD_TOO_LARGE (413, a file over 20 MB), " +
  "UNSUPPORTED_MEDIA_TYPE (415, the file is not of its contentType: not a PDF, a binary text file).";

export function knowledgeRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  app.post(
    "/v1/campaigns/:campaignId/sources",
    {
      bodyLimit: SOURCE_BODY_LIMIT_BYTES,
      schema: {
        operationId: "createSource",
        summary: "Add a knowledge source to a campaign (extension)",
        description: CREATE_SOURCE_DESCRIPTION,
        tags: TAGS,
        params: SourcesParams,
        body: CreateSourceBody,
        response: { 201: SourceJson, ...errorResponses(400, 401, 404, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const row = await createSource(ctx, accountOf(request).id, request.params.campaignId, request.body);
      return reply.code(201).send(sourceView(row));
    },
  );

  app.get(
    "/v1/campaigns/:campaignId/sources",
    {
      schema: {
        operationId: "listSources",
        summary: "A campaign's knowledge sources (extension)",
        description:
          "Newest first, cursor pagination: pass the nextCursor of a page as cursor to get the next. " +
          "Errors: VALIDATION_ERROR, INVALID_CURSOR (400), CAMPAIGN_NOT_FOUND (404).",
        tags: TAGS,
        params: SourcesParams,
        querystring: SourceListQuery,
        response: { 200: pageOf(SourceJson), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => pageSources(db, accountOf(request).id, request.params.campaignId, request.query),
  );

  app.get(
    "/v1/campaigns/:campaignId/sources/:sourceId",
    {
      schema: {
        operationId: "getSource",
        summary: "A knowledge source (extension)",
        description: "Errors: CAMPAIGN_NOT_FOUND, SOURCE_NOT_FOUND (404, also for another account's).",
        tags: TAGS,
        params: SourceParams,
        response: { 200: SourceJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { campaignId, sourceId } = request.params;
      return sourceView(await requireSource(db, accountOf(request).id, campaignId, sourceId));
    },
  );

  app.patch(
    "/v1/campaigns/:campaignId/sources/:sourceId",
    {
      schema: {
        operationId: "updateSource",
        summary: "Turn a knowledge source's daily re-sync on or off (extension)",
        description:
          "Errors: VALIDATION_ERROR (400, dailyResync on a file), CAMPAIGN_NOT_FOUND, SOURCE_NOT_FOUND (404).",
        tags: TAGS,
        params: SourceParams,
        body: UpdateSourceBody,
        response: { 200: SourceJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { campaignId, sourceId } = request.params;
      return sourceView(await updateSource(db, accountOf(request).id, campaignId, sourceId, request.body));
    },
  );

  app.post(
    "/v1/campaigns/:campaignId/sources/:sourceId/resync",
    {
      schema: {
        operationId: "resyncSource",
        summary: "Read a knowledge source again (extension)",
        description:
          "A file is read again from the stored upload; a page or sitemap is fetched again. 202 with the " +
          "source, status processing; the bot keeps answering from its current passages until the new " +
          "ones replace them. Errors: CAMPAIGN_NOT_FOUND, SOURCE_NOT_FOUND (404).",
        tags: TAGS,
        params: SourceParams,
        response: { 202: SourceJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const { campaignId, sourceId } = request.params;
      const row = await resyncSource(db, accountOf(request).id, campaignId, sourceId);
      return reply.code(202).send(sourceView(row));
    },
  );

  app.delete(
    "/v1/campaigns/:campaignId/sources/:sourceId",
    {
      schema: {
        operationId: "deleteSource",
        summary: "Delete a knowledge source (extension)",
        description:
          "Its passages go in the same transaction: the bot stops answering from them at once. Errors: " +
          "CAMPAIGN_NOT_FOUND, SOURCE_NOT_FOUND (404).",
        tags: TAGS,
        params: SourceParams,
        response: { 200: DeleteSourceResponse, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { campaignId, sourceId } = request.params;
      await deleteSource(ctx, accountOf(request).id, campaignId, sourceId);
      return { success: true as const, sourceId };
    },
  );
}

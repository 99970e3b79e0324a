// /app/api/campaigns/:campaignId/sources: a campaign's knowledge sources (files, web pages, sitemaps),
// over the same service as /v1/campaigns/{campaignId}/sources. Every role may read them; owners and
// admins add, change, re-sync and delete them, as they edit the campaign.
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { pageOf } from "../../platform/pagination.ts";
import { requireManager } from "../accounts/team.ts";
import { CREATE_SOURCE_DESCRIPTION } from "../knowledge/routes.ts";
import {
  CreateSourceBody,
  DeleteSourceResponse,
  SOURCE_BODY_LIMIT_BYTES,
  SourceJson,
  SourceListQuery,
  SourceParams,
  SourcesParams,
  UpdateSourceBody,
} from "../knowledge/schemas.ts";
import {
  createSource,
  deleteSource,
  pageSources,
  requireSource,
  resyncSource,
  sourceView,
  updateSource,
} from "../knowledge/service.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

export function knowledgeAppRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  app.get(
    "/campaigns/:campaignId/sources",
    {
      schema: {
        operationId: "appListSources",
        summary: "A campaign's knowledge sources, newest first",
        tags: TAGS,
        params: SourcesParams,
        querystring: SourceListQuery,
        response: { 200: pageOf(SourceJson) },
      },
    },
    async (request) =>
      pageSources(db, sessionOf(request).account.id, request.params.campaignId, request.query),
  );

  app.post(
    "/campaigns/:campaignId/sources",
    {
      bodyLimit: SOURCE_BODY_LIMIT_BYTES,
      schema: {
        operationId: "appCreateSource",
        summary: "Add a knowledge source (owners and admins)",
        description: CREATE_SOURCE_DESCRIPTION,
        tags: TAGS,
        params: SourcesParams,
        body: CreateSourceBody,
        response: { 201: SourceJson },
      },
    },
    async (request, reply) => {
      const info = sessionOf(request);
      requireManager(info);
      const row = await createSource(ctx, info.account.id, request.params.campaignId, request.body);
      return reply.code(201).send(sourceView(row));
    },
  );

  app.get(
    "/campaigns/:campaignId/sources/:sourceId",
    {
      schema: {
        operationId: "appGetSource",
        summary: "A knowledge source",
        tags: TAGS,
        params: SourceParams,
        response: { 200: SourceJson },
      },
    },
    async (request) => {
      const { campaignId, sourceId } = request.params;
      return sourceView(await requireSource(db, sessionOf(request).account.id, campaignId, sourceId));
    },
  );

  app.patch(
    "/campaigns/:campaignId/sources/:sourceId",
    {
      schema: {
        operationId: "appUpdateSource",
        summary: "Turn a source's daily re-sync on or off (owners and admins)",
        tags: TAGS,
        params: SourceParams,
        body: UpdateSourceBody,
        response: { 200: SourceJson },
      },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      const { campaignId, sourceId } = request.params;
      return sourceView(await updateSource(db, info.account.id, campaignId, sourceId, request.body));
    },
  );

  app.post(
    "/campaigns/:campaignId/sources/:sourceId/resync",
    {
      schema: {
        operationId: "appResyncSource",
        summary: "Read a source again (owners and admins)",
        tags: TAGS,
        params: SourceParams,
        response: { 202: SourceJson },
      },
    },
    async (request, reply) => {
      const info = sessionOf(request);
      requireManager(info);
      const { campaignId, sourceId } = request.params;
      return reply.code(202).send(sourceView(await resyncSource(db, info.account.id, campaignId, sourceId)));
    },
  );

  app.delete(
    "/campaigns/:campaignId/sources/:sourceId",
    {
      schema: {
        operationId: "appDeleteSource",
        summary: "Delete a source and its passages (owners and admins)",
        tags: TAGS,
        params: SourceParams,
        response: { 200: DeleteSourceResponse },
      },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      const { campaignId, sourceId } = request.params;
      await deleteSource(ctx, info.account.id, campaignId, sourceId);
      return { success: true as const, sourceId };
    },
  );
}

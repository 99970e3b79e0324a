// /app/api for campaigns (web app part 2): the bot's configurations and the "Try it" box (every role
// may read and try; owners and admins change them), and the dashboard of what the bot and the inbox did.

import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { pageOf } from "../../platform/pagination.ts";
import { requireManager } from "../accounts/team.ts";
import { testFunction } from "../bot/function-service.ts";
import { suggestPhrasings } from "../bot/phrasings.ts";
import { previewReply } from "../bot/preview.ts";
import {
  CAMPAIGN_BODY_LIMIT_BYTES,
  CampaignJson,
  CampaignListQuery,
  CampaignParams,
  CampaignSummaryJson,
  CreateCampaignBody,
  FunctionTestBody,
  FunctionTestJson,
  FunctionTestParams,
  OutgoingStats,
  PhrasingsJson,
  PhrasingsParams,
  PreviewBody,
  PreviewJson,
  SaveKnowledgeBody,
  SaveKnowledgeJson,
  SkippedMemberJson,
  SkippedQuery,
  SummaryJson,
  UpdateCampaignBody,
} from "../bot/schemas.ts";
import {
  campaignView,
  createCampaign,
  pageCampaigns,
  requireCampaign,
  saveKnowledgeView,
  updateCampaign,
} from "../bot/service.ts";
import { summaryFor } from "../bot/summary.ts";
import { ConversationParams } from "../conversations/schemas.ts";
import { outgoingStats, pauseOutgoing, skippedMembers, startOutgoing } from "../outgoing/service.ts";
import { dashboard, MAX_DAYS } from "../reports/service.ts";
import { DashboardJson } from "./responses.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

const DashboardQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DAYS, default: 30 })),
});

export function campaignRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;
  const outgoingLimits = {
    maxPerMinute: ctx.config.outgoingMaxPerMinute,
    outboundAllowCidrs: ctx.config.outboundAllowCidrs,
  };

  // The dashboard: the figures of the last days, every role.
  app.get(
    "/dashboard",
    {
      schema: {
        operationId: "appDashboard",
        response: { 200: DashboardJson },
        tags: TAGS,
        querystring: DashboardQuery,
      },
    },
    async (request) => dashboard(ctx, sessionOf(request).account.id, request.query.days ?? 30),
  );

  app.get(
    "/campaigns",
    {
      schema: {
        operationId: "appListCampaigns",
        response: { 200: pageOf(CampaignSummaryJson) },
        tags: TAGS,
        querystring: CampaignListQuery,
      },
    },
    async (request) => pageCampaigns(db, sessionOf(request).account.id, request.query),
  );

  app.post(
    "/campaigns",
    {
      bodyLimit: CAMPAIGN_BODY_LIMIT_BYTES,
      schema: {
        operationId: "appCreateCampaign",
        response: { 201: CampaignJson },
        tags: TAGS,
        body: CreateCampaignBody,
      },
    },
    async (request, reply) => {
      const info = sessionOf(request);
      requireManager(info);
      return reply
        .code(201)
        .send(campaignView(await createCampaign(db, info.account.id, request.body, outgoingLimits)));
    },
  );

  app.get(
    "/campaigns/:campaignId",
    {
      schema: {
        operationId: "appGetCampaign",
        response: { 200: CampaignJson },
        tags: TAGS,
        params: CampaignParams,
      },
    },
    async (request) =>
      campaignView(await requireCampaign(db, sessionOf(request).account.id, request.params.campaignId)),
  );

  app.patch(
    "/campaigns/:campaignId",
    {
      bodyLimit: CAMPAIGN_BODY_LIMIT_BYTES,
      schema: {
        operationId: "appUpdateCampaign",
        response: { 200: CampaignJson },
        tags: TAGS,
        params: CampaignParams,
        body: UpdateCampaignBody,
      },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      return campaignView(
        await updateCampaign(db, info.account.id, request.params.campaignId, request.body, outgoingLimits),
      );
    },
  );

  // The Test button sends a signed request from the account: owners and admins, like editing it.
  app.post(
    "/campaigns/:campaignId/functions/:name/test",
    {
      schema: {
        operationId: "appTestCampaignFunction",
        response: { 200: FunctionTestJson },
        tags: TAGS,
        params: FunctionTestParams,
        body: FunctionTestBody,
      },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      const { campaignId, name } = request.params;
      return testFunction(ctx, info.account.id, campaignId, name, request.body.arguments);
    },
  );

  app.get(
    "/conversations/:conversationId/summary",
    {
      schema: {
        operationId: "appConversationSummary",
        response: { 200: SummaryJson },
        tags: TAGS,
        params: ConversationParams,
      },
    },
    async (request) => summaryFor(ctx, sessionOf(request).account.id, request.params.conversationId),
  );

  app.post(
    "/campaigns/:campaignId/preview",
    {
      schema: {
        operationId: "appPreviewCampaign",
        response: { 200: PreviewJson },
        tags: TAGS,
        params: CampaignParams,
        body: PreviewBody,
      },
    },
    async (request) =>
      previewReply(ctx, sessionOf(request).account.id, request.params.campaignId, request.body.message),
  );

  // "Save as knowledge" from a conversation: it changes what the bot tells customers, so owners and
  // admins, like editing the campaign.
  app.post(
    "/campaigns/:campaignId/knowledge",
    {
      schema: {
        operationId: "appSaveKnowledge",
        response: { 200: SaveKnowledgeJson },
        tags: TAGS,
        params: CampaignParams,
        body: SaveKnowledgeBody,
      },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      return saveKnowledgeView(db, info.account.id, request.params.campaignId, request.body);
    },
  );

  // "Suggest other ways to ask": proposals for the campaign editor, which only owners and admins save
  // (and each one spends the account's LLM), so owners and admins, like Save as knowledge.
  app.post(
    "/campaigns/:campaignId/knowledge/:index/phrasings",
    {
      schema: {
        operationId: "appSuggestPhrasings",
        response: { 200: PhrasingsJson },
        tags: TAGS,
        params: PhrasingsParams,
      },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      const { campaignId, index } = request.params;
      return suggestPhrasings(ctx, info.account.id, campaignId, index);
    },
  );

  // The outgoing side: owners and admins start and pause it; everyone sees its progress.
  for (const action of ["start", "pause"] as const) {
    app.post(
      `/campaigns/:campaignId/${action}`,
      {
        schema: {
          operationId: action === "start" ? "appStartCampaign" : "appPauseCampaign",
          response: { 200: OutgoingStats },
          tags: TAGS,
          params: CampaignParams,
        },
      },
      async (request) => {
        const info = sessionOf(request);
        requireManager(info);
        const run = action === "start" ? startOutgoing : pauseOutgoing;
        return run(ctx, info.account.id, request.params.campaignId);
      },
    );
  }
  app.get(
    "/campaigns/:campaignId/stats",
    {
      schema: {
        operationId: "appCampaignStats",
        response: { 200: OutgoingStats },
        tags: TAGS,
        params: CampaignParams,
      },
    },
    async (request) => outgoingStats(ctx, sessionOf(request).account.id, request.params.campaignId),
  );
  app.get(
    "/campaigns/:campaignId/skipped",
    {
      schema: {
        operationId: "appCampaignSkipped",
        response: { 200: pageOf(SkippedMemberJson) },
        tags: TAGS,
        params: CampaignParams,
        querystring: SkippedQuery,
      },
    },
    async (request) =>
      skippedMembers(ctx, sessionOf(request).account.id, request.params.campaignId, request.query),
  );
}

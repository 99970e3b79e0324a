// Outgoing campaign endpoints (extension): start, pause, stats. The outgoing side itself is the
// campaign JSON's `outgoing` object (POST/PATCH /v1/campaigns).
import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { pageOf } from "../../platform/pagination.ts";
import { CampaignParams, OutgoingStats, SkippedMemberJson, SkippedQuery } from "../bot/schemas.ts";
import { outgoingStats, pauseOutgoing, skippedMembers, startOutgoing } from "./service.ts";

export function outgoingRoutes(app: App, ctx: AppContext): void {
  app.post(
    "/v1/campaigns/:campaignId/start",
    {
      schema: {
        operationId: "startCampaign",
        summary: "Start (or resume) a campaign's outgoing messages (extension)",
        description:
          "Sends the campaign's `outgoing.message` to every member of `outgoing.listId` that has a custom " +
          "channel identity (a fromId), at `ratePerMinute`, through the normal delivery path (signed, " +
          "retried, Sent/Failed), each on the channel label it is known on (its latest labelled message; " +
          "`outgoing.channel` only for members without one); a member whose latest message is in a built-in " +
          "channel's conversation (the website chat) gets it there, through that channel. Members without a " +
          "fromId, or without any " +
          "label, are skipped with the reason (stats, GET .../skipped). Nobody gets the first " +
          "message twice, also after a pause, a resume or a restart. Each costs 1 credit where metering " +
          "applies; out of credits, the campaign pauses itself (pausedReason out_of_credits). Replies from " +
          "those contacts go to this campaign's bot. Errors: VALIDATION_ERROR (400: no outgoing side), " +
          "CAMPAIGN_NOT_FOUND (404).",
        tags: ["campaigns"],
        params: CampaignParams,
        response: { 200: OutgoingStats, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => startOutgoing(ctx, accountOf(request).id, request.params.campaignId),
  );

  app.post(
    "/v1/campaigns/:campaignId/pause",
    {
      schema: {
        operationId: "pauseCampaign",
        summary: "Pause a campaign's outgoing messages (extension)",
        description: "No further first message is sent; start resumes. Errors: CAMPAIGN_NOT_FOUND (404).",
        tags: ["campaigns"],
        params: CampaignParams,
        response: { 200: OutgoingStats, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => pauseOutgoing(ctx, accountOf(request).id, request.params.campaignId),
  );

  app.get(
    "/v1/campaigns/:campaignId/stats",
    {
      schema: {
        operationId: "getCampaignStats",
        summary: "A campaign's outgoing progress and follow-ups (extension)",
        description:
          "queued (members not reached yet), sent, pending, failed, skipped, replied; followUps: the " +
          "campaign's follow-ups sent and answered. Errors: CAMPAIGN_NOT_FOUND (404).",
        tags: ["campaigns"],
        params: CampaignParams,
        response: { 200: OutgoingStats, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => outgoingStats(ctx, accountOf(request).id, request.params.campaignId),
  );

  app.get(
    "/v1/campaigns/:campaignId/skipped",
    {
      schema: {
        operationId: "listCampaignSkipped",
        summary: "The members a campaign's outgoing side skipped, with why (extension)",
        description:
          "Contact id order, cursor pagination. reason: no_custom_channel_id (no fromId) or " +
          "no_known_channel (no channel label of its own and none on the campaign). Errors: " +
          "VALIDATION_ERROR, INVALID_CURSOR (400), CAMPAIGN_NOT_FOUND (404).",
        tags: ["campaigns"],
        params: CampaignParams,
        querystring: SkippedQuery,
        response: { 200: pageOf(SkippedMemberJson), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => skippedMembers(ctx, accountOf(request).id, request.params.campaignId, request.query),
  );
}

// /v1/channels: thin handlers (key auth → validated input → service → response).
import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { PageQuery, pageOf } from "../../platform/pagination.ts";
import {
  ChannelJson,
  ChannelParams,
  CreateChannelBody,
  DeleteChannelResponse,
  UpdateChannelBody,
} from "./schemas.ts";
import { createChannel, deleteChannel, getChannel, pageChannels, updateChannel } from "./service.ts";

const TAGS = ["channels"];

export function channelRoutes(app: App, ctx: AppContext): void {
  app.post(
    "/v1/channels",
    {
      schema: {
        operationId: "createChannel",
        summary: "Create a built-in channel",
        description:
          "The website chat (web) or a provider: whatsapp, twilio_sms, telegram, messenger, instagram " +
          "(docs/channels.md). A provider that refuses the credentials on creation leaves the channel " +
          "with status error and its reason. Errors: VALIDATION_ERROR, INVALID_CHANNEL_CONFIG (400), " +
          "CAMPAIGN_NOT_FOUND (404).",
        tags: TAGS,
        body: CreateChannelBody,
        response: { 201: ChannelJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createChannel(ctx, accountOf(request).id, request.body)),
  );

  app.get(
    "/v1/channels",
    {
      schema: {
        operationId: "listChannels",
        summary: "List the account's channels",
        description: "Oldest first, cursor pagination. Errors: VALIDATION_ERROR, INVALID_CURSOR (400).",
        tags: TAGS,
        querystring: PageQuery,
        response: { 200: pageOf(ChannelJson), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => pageChannels(ctx, accountOf(request).id, request.query),
  );

  app.get(
    "/v1/channels/:channelId",
    {
      schema: {
        operationId: "getChannel",
        summary: "Get a channel",
        description: "Errors: CHANNEL_NOT_FOUND (404), also for another account's channel.",
        tags: TAGS,
        params: ChannelParams,
        response: { 200: ChannelJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => getChannel(ctx, accountOf(request).id, request.params.channelId),
  );

  app.patch(
    "/v1/channels/:channelId",
    {
      schema: {
        operationId: "updateChannel",
        summary: "Change a channel's name, settings, campaign or status",
        description:
          "Settings are merged over the current ones. Errors: VALIDATION_ERROR, INVALID_CHANNEL_CONFIG " +
          "(400), CHANNEL_NOT_FOUND, CAMPAIGN_NOT_FOUND (404).",
        tags: TAGS,
        params: ChannelParams,
        body: UpdateChannelBody,
        response: { 200: ChannelJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => updateChannel(ctx, accountOf(request).id, request.params.channelId, request.body),
  );

  app.delete(
    "/v1/channels/:channelId",
    {
      schema: {
        operationId: "deleteChannel",
        summary: "Delete a channel",
        description:
          "Its conversations and messages stay as history; its widget stops answering. Errors: " +
          "CHANNEL_NOT_FOUND (404).",
        tags: TAGS,
        params: ChannelParams,
        response: { 200: DeleteChannelResponse, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      await deleteChannel(ctx, accountOf(request).id, request.params.channelId);
      return { success: true as const, channelId: request.params.channelId };
    },
  );
}

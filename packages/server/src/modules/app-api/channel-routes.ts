// /app/api for channels (Settings → Channels): the same JSON as /v1/channels, behind a session. Every
// role may read (agents see which channel a conversation came from); owners and admins change them.
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { PageQuery, pageOf } from "../../platform/pagination.ts";
import { requireManager } from "../accounts/team.ts";
import {
  ChannelJson,
  ChannelParams,
  CreateChannelBody,
  DeleteChannelResponse,
  UpdateChannelBody,
} from "../channels/schemas.ts";
import {
  createChannel,
  deleteChannel,
  getChannel,
  pageChannels,
  updateChannel,
} from "../channels/service.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

export function appChannelRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/channels",
    {
      schema: {
        operationId: "appListChannels",
        response: { 200: pageOf(ChannelJson) },
        tags: TAGS,
        querystring: PageQuery,
      },
    },
    async (request) => pageChannels(ctx, sessionOf(request).account.id, request.query),
  );

  app.post(
    "/channels",
    {
      schema: {
        operationId: "appCreateChannel",
        response: { 201: ChannelJson },
        tags: TAGS,
        body: CreateChannelBody,
      },
    },
    async (request, reply) => {
      const info = sessionOf(request);
      requireManager(info);
      return reply.code(201).send(await createChannel(ctx, info.account.id, request.body));
    },
  );

  app.get(
    "/channels/:channelId",
    {
      schema: {
        operationId: "appGetChannel",
        response: { 200: ChannelJson },
        tags: TAGS,
        params: ChannelParams,
      },
    },
    async (request) => getChannel(ctx, sessionOf(request).account.id, request.params.channelId),
  );

  app.patch(
    "/channels/:channelId",
    {
      schema: {
        operationId: "appUpdateChannel",
        response: { 200: ChannelJson },
        tags: TAGS,
        params: ChannelParams,
        body: UpdateChannelBody,
      },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      return updateChannel(ctx, info.account.id, request.params.channelId, request.body);
    },
  );

  app.delete(
    "/channels/:channelId",
    {
      schema: {
        operationId: "appDeleteChannel",
        response: { 200: DeleteChannelResponse },
        tags: TAGS,
        params: ChannelParams,
      },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      await deleteChannel(ctx, info.account.id, request.params.channelId);
      return { success: true as const, channelId: request.params.channelId };
    },
  );
}

// /app/api for channels (Settings → Channels): the same JSON as /v1/channels, behind a session. Every
// role may read (agents see which channel a conversation came from); owners and admins change them.
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { PageQuery } from "../../platform/pagination.ts";
import { requireManager } from "../accounts/team.ts";
import { ChannelParams, CreateChannelBody, UpdateChannelBody } from "../channels/schemas.ts";
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
    { schema: { operationId: "appListChannels", tags: TAGS, querystring: PageQuery } },
    async (request) => pageChannels(ctx, sessionOf(request).account.id, request.query),
  );

  app.post(
    "/channels",
    { schema: { operationId: "appCreateChannel", tags: TAGS, body: CreateChannelBody } },
    async (request, reply) => {
      const info = sessionOf(request);
      requireManager(info);
      return reply.code(201).send(await createChannel(ctx, info.account.id, request.body));
    },
  );

  app.get(
    "/channels/:channelId",
    { schema: { operationId: "appGetChannel", tags: TAGS, params: ChannelParams } },
    async (request) => getChannel(ctx, sessionOf(request).account.id, request.params.channelId),
  );

  app.patch(
    "/channels/:channelId",
    {
      schema: { operationId: "appUpdateChannel", tags: TAGS, params: ChannelParams, body: UpdateChannelBody },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      return updateChannel(ctx, info.account.id, request.params.channelId, request.body);
    },
  );

  app.delete(
    "/channels/:channelId",
    { schema: { operationId: "appDeleteChannel", tags: TAGS, params: ChannelParams } },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      await deleteChannel(ctx, info.account.id, request.params.channelId);
      return { success: true as const, channelId: request.params.channelId };
    },
  );
}

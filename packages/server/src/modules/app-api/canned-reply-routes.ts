// /app/api/canned-replies: Settings → Canned replies and the reply box's "/" list, over the same
// service as /v1/canned-replies. Any signed-in teammate reads and edits them: they are the team's
// shared snippets, as in the tools support teams use.
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import {
  CannedReplyJson,
  CannedReplyList,
  CannedReplyParams,
  CreateCannedReplyBody,
  DeleteCannedReplyResponse,
  UpdateCannedReplyBody,
} from "../canned-replies/schemas.ts";
import {
  allCannedReplies,
  cannedReplyView,
  createCannedReply,
  deleteCannedReply,
  updateCannedReply,
} from "../canned-replies/service.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

export function cannedReplyAppRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/canned-replies",
    {
      schema: {
        operationId: "appListCannedReplies",
        summary: "The account's canned replies in shortcut order (at most 1,000)",
        tags: TAGS,
        response: { 200: CannedReplyList },
      },
    },
    async (request) => ({ data: await allCannedReplies(ctx.db, sessionOf(request).account.id) }),
  );

  app.post(
    "/canned-replies",
    {
      schema: {
        operationId: "appCreateCannedReply",
        summary: "Create a canned reply",
        description: "Errors: VALIDATION_ERROR (400), CANNED_REPLY_EXISTS (409).",
        tags: TAGS,
        body: CreateCannedReplyBody,
        response: { 201: CannedReplyJson },
      },
    },
    async (request, reply) => {
      const row = await createCannedReply(ctx.db, sessionOf(request).account.id, request.body);
      return reply.code(201).send(cannedReplyView(row));
    },
  );

  app.patch(
    "/canned-replies/:cannedReplyId",
    {
      schema: {
        operationId: "appUpdateCannedReply",
        summary: "Change a canned reply",
        description: "Errors: VALIDATION_ERROR (400), NOT_FOUND (404), CANNED_REPLY_EXISTS (409).",
        tags: TAGS,
        params: CannedReplyParams,
        body: UpdateCannedReplyBody,
        response: { 200: CannedReplyJson },
      },
    },
    async (request) =>
      cannedReplyView(
        await updateCannedReply(
          ctx.db,
          sessionOf(request).account.id,
          request.params.cannedReplyId,
          request.body,
        ),
      ),
  );

  app.delete(
    "/canned-replies/:cannedReplyId",
    {
      schema: {
        operationId: "appDeleteCannedReply",
        summary: "Delete a canned reply",
        description: "Errors: NOT_FOUND (404).",
        tags: TAGS,
        params: CannedReplyParams,
        response: { 200: DeleteCannedReplyResponse },
      },
    },
    async (request) => {
      await deleteCannedReply(ctx.db, sessionOf(request).account.id, request.params.cannedReplyId);
      return { success: true as const, cannedReplyId: request.params.cannedReplyId };
    },
  );
}

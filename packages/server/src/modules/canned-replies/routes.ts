// /v1/canned-replies: thin handlers (auth → validated input → service → response).
import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { PageQuery, pageOf } from "../../platform/pagination.ts";
import {
  CannedReplyJson,
  CannedReplyParams,
  CreateCannedReplyBody,
  DeleteCannedReplyResponse,
  UpdateCannedReplyBody,
} from "./schemas.ts";
import {
  cannedReplyView,
  createCannedReply,
  deleteCannedReply,
  pageCannedReplies,
  updateCannedReply,
} from "./service.ts";

const TAGS = ["canned-replies"];

export function cannedReplyRoutes(app: App, { db }: AppContext): void {
  app.post(
    "/v1/canned-replies",
    {
      schema: {
        operationId: "createCannedReply",
        summary: "Create a canned reply (extension)",
        description:
          "An account-wide snippet the web app's reply box inserts when a teammate types /shortcut. " +
          "Errors: VALIDATION_ERROR (400, naming the field), CANNED_REPLY_EXISTS (409, the shortcut is " +
          "taken in this account).",
        tags: TAGS,
        body: CreateCannedReplyBody,
        response: { 201: CannedReplyJson, ...errorResponses(400, 401, 409, 429) },
      },
    },
    async (request, reply) => {
      const row = await createCannedReply(db, accountOf(request).id, request.body);
      return reply.code(201).send(cannedReplyView(row));
    },
  );

  app.get(
    "/v1/canned-replies",
    {
      schema: {
        operationId: "listCannedReplies",
        summary: "List canned replies (extension)",
        description:
          "Oldest first, cursor pagination: pass the nextCursor of a page as cursor to get the next. " +
          "Errors: VALIDATION_ERROR, INVALID_CURSOR (400).",
        tags: TAGS,
        querystring: PageQuery,
        response: { 200: pageOf(CannedReplyJson), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => pageCannedReplies(db, accountOf(request).id, request.query),
  );

  app.patch(
    "/v1/canned-replies/:cannedReplyId",
    {
      schema: {
        operationId: "updateCannedReply",
        summary: "Change a canned reply (extension)",
        description:
          "Partial update: absent fields are kept. Errors: VALIDATION_ERROR (400), NOT_FOUND (404, also " +
          "for another account's reply), CANNED_REPLY_EXISTS (409).",
        tags: TAGS,
        params: CannedReplyParams,
        body: UpdateCannedReplyBody,
        response: { 200: CannedReplyJson, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request) =>
      cannedReplyView(
        await updateCannedReply(db, accountOf(request).id, request.params.cannedReplyId, request.body),
      ),
  );

  app.delete(
    "/v1/canned-replies/:cannedReplyId",
    {
      schema: {
        operationId: "deleteCannedReply",
        summary: "Delete a canned reply (extension)",
        description: "Errors: NOT_FOUND (404, also for another account's reply).",
        tags: TAGS,
        params: CannedReplyParams,
        response: { 200: DeleteCannedReplyResponse, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      await deleteCannedReply(db, accountOf(request).id, request.params.cannedReplyId);
      return { success: true as const, cannedReplyId: request.params.cannedReplyId };
    },
  );
}

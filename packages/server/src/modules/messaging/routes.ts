import type { FastifyBaseLogger, FastifyReply } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { errorResponses, simpleErrorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { validatorCompiler } from "../../platform/http/validation.ts";
import { PageQuery } from "../../platform/pagination.ts";
import { parseIncoming } from "./incoming-validation.ts";
import { validMediaLink } from "./media/link.ts";
import { isTextType } from "./media/sniff.ts";
import { openBlob } from "./media/store.ts";
import {
  ContactParams,
  IncomingBody,
  IncomingSuccess,
  MessagePage,
  MessageParams,
  SignedMediaQuery,
} from "./schemas.ts";
import { acceptIncomingMessage, getMessage, listContactMessages, requireMessage } from "./service.ts";
import { MessageJson } from "./view.ts";

export const INCOMING_PATHS = ["/v1/incoming_custom_channel_message", "/v1/incoming-custom-channel-message"];
/** Embedded files make requests large: 16 MiB of file is about 21.4 MiB of base64, plus the JSON. */
export const INCOMING_BODY_LIMIT_BYTES = 25 * 1024 * 1024;

export function messagingRoutes(app: App, ctx: AppContext): void {
  for (const [i, url] of INCOMING_PATHS.entries()) {
    app.post(
      url,
      {
        bodyLimit: INCOMING_BODY_LIMIT_BYTES,
        // A suspended sub-account's key is refused here too (403 ACCOUNT_SUSPENDED): nothing is
        // acknowledged, so the sender keeps the message and sends it again after resume.
        config: { errorForm: "simple" },
        // The body is checked by parseIncoming (field-naming messages, fixed order); the schema below
        // documents it in OpenAPI. Query strings keep the shared validator.
        validatorCompiler: (req) => (req.httpPart === "body" ? () => true : validatorCompiler(req)),
        schema: {
          operationId: i === 0 ? "receiveIncomingMessage" : "receiveIncomingMessageAlias",
          summary:
            i === 0
              ? "Receive a message from an external system (custom channel)"
              : "Alias of /v1/incoming_custom_channel_message",
          description:
            "Stores the message (creating the contact and conversation on first contact) and, for text " +
            "messages, lets the AI bot reply. 200 means committed. A repeated messageSid is answered with " +
            'the original messageId and "duplicate": true, and triggers nothing again. Every error uses ' +
            'the simple form {"error":"…"}. Any other method: 405 with Allow: POST. Also served at ' +
            "/v1/incoming-custom-channel-message.",
          tags: ["messages"],
          ...(i === 0 ? {} : { hide: true }),
          body: IncomingBody,
          response: {
            200: IncomingSuccess,
            ...simpleErrorResponses(400, 401, 403, 405, 413, 429, 500, 503),
          },
        },
      },
      async (request) => {
        const account = accountOf(request);
        const input = parseIncoming(request.body);
        const result = await acceptIncomingMessage(ctx, account, input);
        return result.duplicate
          ? { success: true as const, messageId: result.messageId, duplicate: true }
          : { success: true as const, messageId: result.messageId };
      },
    );
    // The method is wrong whoever asks, so no key is needed to learn that (and nothing is revealed).
    app.route({
      method: ["GET", "PUT", "DELETE", "PATCH", "OPTIONS"],
      url,
      config: { auth: "none", errorForm: "simple" },
      schema: { hide: true, operationId: i === 0 ? "refuseIncomingMethod" : "refuseIncomingMethodAlias" },
      handler: async (request) => {
        throw new AppError("METHOD_NOT_ALLOWED", `Method ${request.method} not allowed; use POST`, {
          allow: "POST",
        });
      },
    });
  }

  app.get(
    "/v1/messages/:messageId",
    {
      schema: {
        operationId: "getMessage",
        summary: "One message with its delivery attempts (extension)",
        tags: ["messages"],
        params: MessageParams,
        response: { 200: MessageJson, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => getMessage(ctx, accountOf(request).id, request.params.messageId),
  );

  app.get(
    "/v1/messages/:messageId/media",
    {
      schema: {
        operationId: "getMessageMedia",
        summary: "The stored attachment of a message, with its content type (extension)",
        tags: ["messages"],
        params: MessageParams,
        response: {
          200: Type.Unknown({
            format: "binary",
            description: "The attachment's bytes, with its content type",
          }),
          ...errorResponses(401, 404, 429, 503),
        },
      },
    },
    async (request, reply) => sendMessageMedia(ctx, accountOf(request).id, request, reply),
  );

  // The signed link a webhook receiver or a provider downloads a person's attachment with (media/link.ts):
  // the link is the credential, so no API key. Any bad, foreign or expired link is the same 404.
  app.get(
    "/v1/media/:messageId",
    {
      config: { auth: "none" },
      schema: {
        hide: true,
        operationId: "getSignedMedia",
        params: MessageParams,
        querystring: SignedMediaQuery,
      },
    },
    async (request, reply) => {
      const { account, expires, signature } = request.query;
      if (!validMediaLink(ctx.config, request.params.messageId, { account, expires, signature })) {
        throw new AppError("NOT_FOUND", "This media link is not valid or has expired");
      }
      return sendMessageMedia(ctx, account, request, reply);
    },
  );

  app.get(
    "/v1/contacts/:contactId/messages",
    {
      schema: {
        operationId: "listContactMessages",
        summary: "A contact's messages, oldest first, cursor-paginated (extension)",
        tags: ["messages"],
        params: ContactParams,
        querystring: PageQuery,
        response: { 200: MessagePage, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) =>
      listContactMessages(ctx, accountOf(request).id, request.params.contactId, request.query),
  );
}

/**
 * Answers with a message's stored attachment (404 without one): GET /v1/messages/:messageId/media and
 * the web app's GET /app/api/messages/:messageId/media.
 */
export async function sendMessageMedia(
  ctx: AppContext,
  accountId: string,
  request: { params: { messageId: string }; log: FastifyBaseLogger },
  reply: FastifyReply,
): Promise<FastifyReply> {
  const message = await requireMessage(ctx, accountId, request.params.messageId);
  if (message.media_state !== "stored" || !message.media_sha256) {
    const state = message.media_state ?? "none";
    throw new AppError("NOT_FOUND", `This message has no stored attachment (attachment state: ${state})`);
  }
  const file = await openBlob(ctx.storage, message.media_sha256);
  if (!file) {
    request.log.error(
      { messageId: message.id, sha256: message.media_sha256 },
      "stored attachment is missing from the file storage",
    );
    throw new AppError("INTERNAL_ERROR", "The attachment could not be read");
  }
  const type = message.media_content_type ?? "application/octet-stream";
  return (
    reply
      .type(isTextType(type) ? `${type}; charset=utf-8` : type)
      .header("content-length", file.size)
      .header("etag", `"${message.media_sha256}"`)
      // Content-addressed: the bytes behind this message never change.
      .header("cache-control", "private, max-age=31536000, immutable")
      // Customer-supplied files must never run as a page of this origin.
      .header("x-content-type-options", "nosniff")
      .header("content-security-policy", "default-src 'none'; sandbox")
      .send(file.body)
  );
}

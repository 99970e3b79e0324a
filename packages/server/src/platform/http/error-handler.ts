// Maps every error to the one error model, in the form the route asks for. 5xx never leak internals.
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { isDatabaseUnavailable, isStorageFull } from "../db/index.ts";
import {
  AppError,
  ERROR_STATUS,
  type ErrorCode,
  type ErrorForm,
  errorBody,
  INTERNAL_MESSAGE,
} from "../errors.ts";
import { describeValidationErrors } from "./validation.ts";

/** The incoming-message endpoint answers every error in the simple form, matched route or not. */
const INCOMING_PATH = /^\/v1\/incoming[_-]custom[_-]channel[_-]message(?:[/?]|$)/;

function formOf(request: FastifyRequest): ErrorForm {
  return (
    request.routeOptions?.config?.errorForm ??
    (INCOMING_PATH.test(request.raw?.url ?? "") ? "simple" : "structured")
  );
}

/**
 * Fastify's own refusals before any route runs (the `frameworkErrors` option): in the error model,
 * and never echoing the URL (Fastify's messages quote it, query string and API key included).
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (err.code === "FST_ERR_MAX_PARAM_LENGTH") {
    sendError(request, reply, "URI_TOO_LONG", "A path segment of the URL is too long");
    return;
  }
  const bad = err.code === "FST_ERR_BAD_URL" || err.code === "FST_ERR_INVALID_URL";
  sendError(
    request,
    reply,
    "VALIDATION_ERROR",
    bad ? "The URL is not valid (check its percent-encoding)" : "The request could not be routed",
  );
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  message: string,
  headers?: Record<string, string>,
): FastifyReply {
  const status = ERROR_STATUS[code];
  if (headers) reply.headers(headers);
  const form = formOf(request);
  const body = errorBody(form, code, message) as { error: unknown };
  if (form === "structured") (body.error as Record<string, unknown>).requestId = request.id;
  return reply.code(status).type("application/json; charset=utf-8").send(body);
}

function classify(err: FastifyError, request: FastifyRequest): { code: ErrorCode; message: string } {
  if (err.validation) {
    return {
      code: "VALIDATION_ERROR",
      message: describeValidationErrors(err.validation as never, err.validationContext),
    };
  }
  const status = err.statusCode ?? 500;
  switch (err.code) {
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return { code: "INVALID_JSON", message: "Request body is empty; send a JSON object" };
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return { code: "INVALID_JSON", message: "Request body is not valid JSON" };
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return { code: "PAYLOAD_TOO_LARGE", message: "Request body is too large" };
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      // The simple-form endpoint treats a non-JSON body as a bad request, as its clients expect.
      return formOf(request) === "simple"
        ? { code: "INVALID_JSON", message: "Request body must be JSON (Content-Type: application/json)" }
        : { code: "UNSUPPORTED_MEDIA_TYPE", message: "Content-Type must be application/json" };
  }
  if (err instanceof SyntaxError || (status === 400 && err.code?.startsWith("FST_ERR_CTP"))) {
    return { code: "INVALID_JSON", message: "Request body is not valid JSON" };
  }
  if (status === 413) return { code: "PAYLOAD_TOO_LARGE", message: "Request body is too large" };
  if (status === 415)
    return { code: "UNSUPPORTED_MEDIA_TYPE", message: "Content-Type must be application/json" };
  if (status >= 400 && status < 500) return { code: "VALIDATION_ERROR", message: err.message };
  if (isStorageFull(err)) {
    return {
      code: "SERVICE_UNAVAILABLE",
      message: "The server's storage is full; nothing was stored. Retry later",
    };
  }
  if (isDatabaseUnavailable(err)) {
    return { code: "SERVICE_UNAVAILABLE", message: "The database is unavailable right now; retry shortly" };
  }
  return { code: "INTERNAL_ERROR", message: INTERNAL_MESSAGE };
}

export function errorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err instanceof AppError) {
    if (err.statusCode >= 500) request.log.error({ err }, "request failed");
    return sendError(request, reply, err.code, err.message, err.headers);
  }
  const { code, message } = classify(err, request);
  if (code === "SERVICE_UNAVAILABLE") {
    request.log.error({ err: { message: err.message, code: err.code } }, message);
    return sendError(request, reply, code, message, { "retry-after": "2" });
  }
  if (ERROR_STATUS[code] >= 500) request.log.error({ err }, "request failed");
  else request.log.info({ code, message }, "request rejected");
  return sendError(request, reply, code, message);
}

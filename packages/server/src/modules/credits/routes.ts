// Credits and sub-account endpoints: thin handlers (auth → validated input → service → response).
// The agency surface (/v1/subaccounts…) takes the key only in the x-api-key header.
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { PageQuery, pageOf } from "../../platform/pagination.ts";
import { inviteLink, requestLinkBase } from "../../platform/public-url.ts";
import {
  AutoRechargeBody,
  CreatedSubaccountJson,
  CreateSubaccountBody,
  GrantBody,
  GrantResponse,
  SubaccountJson,
  SubaccountParams,
  TransactionJson,
} from "./schemas.ts";
import {
  checkGrantAmount,
  clearAutoRecharge,
  createSubaccount,
  grantCredits,
  pageSubaccounts,
  pageTransactions,
  refuseOwnerPassword,
  requireAgency,
  requireSubaccount,
  setAutoRecharge,
  setSubaccountSuspended,
  subaccountView,
} from "./service.ts";

const agencyOnly = { auth: "header" as const };
const headerSecurity = [{ apiKeyHeader: [] }];

/** Before body validation, so a non-agency caller gets 403 whatever it sent. */
async function agencyGate(request: FastifyRequest): Promise<void> {
  requireAgency(accountOf(request));
}

function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const v = request.headers["idempotency-key"];
  return Array.isArray(v) ? v.join(", ") : v;
}

export function creditRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;
  app.post(
    "/v1/subaccounts/credits",
    {
      config: agencyOnly,
      preValidation: async (request) => {
        await agencyGate(request);
        checkGrantAmount(request.body);
      },
      schema: {
        operationId: "grantSubaccountCredits",
        summary: "Grant credits to a sub-account (agency only)",
        description:
          "Authenticated only by the `x-api-key` header (an `apiKey` query parameter is not used: 401). " +
          "Balance and history row change in one transaction. Optional `Idempotency-Key` header (1–255 " +
          "printable ASCII characters, kept 24 h): the same key with the same body replays the stored answer " +
          "(header `Idempotent-Replayed: true`) without granting again; with another body: 422 " +
          "IDEMPOTENCY_KEY_REUSED. Errors: INVALID_AMOUNT, INVALID_EMAIL, VALIDATION_ERROR (400), " +
          "UNAUTHORIZED (401), NOT_AGENCY (403), SUBACCOUNT_NOT_FOUND (404, also for another agency's " +
          "sub-account), IDEMPOTENCY_KEY_IN_USE (409), IDEMPOTENCY_KEY_REUSED (422).",
        tags: ["credits"],
        security: headerSecurity,
        body: GrantBody,
        response: { 200: GrantResponse, ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const outcome = await grantCredits(ctx, accountOf(request), request.body, idempotencyKeyOf(request));
      if (outcome.replayed) reply.header("idempotent-replayed", "true");
      return reply.code(200).send(outcome.body);
    },
  );

  app.get(
    "/v1/subaccounts",
    {
      config: agencyOnly,
      preValidation: agencyGate,
      schema: {
        operationId: "listSubaccounts",
        summary: "List the agency's sub-accounts (extension, agency only)",
        description:
          "Oldest first, cursor pagination: pass the nextCursor of a page as cursor to get the next. " +
          "Errors: VALIDATION_ERROR, INVALID_CURSOR (400), NOT_AGENCY (403).",
        tags: ["subaccounts"],
        security: headerSecurity,
        querystring: PageQuery,
        response: { 200: pageOf(SubaccountJson), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => pageSubaccounts(db, accountOf(request).id, request.query),
  );

  app.post(
    "/v1/subaccounts",
    {
      config: agencyOnly,
      preValidation: async (request) => {
        await agencyGate(request);
        refuseOwnerPassword(request.body);
      },
      schema: {
        operationId: "createSubaccount",
        summary: "Create a sub-account of the agency (extension, agency only)",
        description:
          "The answer carries the sub-account's own API key and its owner's invite link (`ownerInvite`, " +
          "valid 7 days; the owner chooses a password there), both shown only here. The answer is the same " +
          "whether or not another tenant uses the address. Errors: VALIDATION_ERROR (also for a `password`, " +
          "no longer accepted), INVALID_EMAIL (400), NOT_AGENCY (403), ACCOUNT_EXISTS (409, this agency " +
          "already uses the address: one of its sub-accounts, itself or one of its team).",
        tags: ["subaccounts"],
        security: headerSecurity,
        body: CreateSubaccountBody,
        response: { 201: CreatedSubaccountJson, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createSubaccountWithLink(ctx, accountOf(request), request.body, request)),
  );

  app.get(
    "/v1/subaccounts/:id",
    {
      config: agencyOnly,
      preValidation: agencyGate,
      schema: {
        operationId: "getSubaccount",
        summary: "Get one of the agency's sub-accounts (extension, agency only)",
        description: "Errors: NOT_AGENCY (403), SUBACCOUNT_NOT_FOUND (404, also for another agency's).",
        tags: ["subaccounts"],
        security: headerSecurity,
        params: SubaccountParams,
        response: { 200: SubaccountJson, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => subaccountView(await requireSubaccount(db, accountOf(request).id, request.params.id)),
  );

  app.put(
    "/v1/subaccounts/:id/auto-recharge",
    {
      config: agencyOnly,
      preValidation: agencyGate,
      schema: {
        operationId: "setSubaccountAutoRecharge",
        summary: "Set a sub-account's auto-recharge (extension, agency only)",
        description:
          "When a debit takes the balance below `threshold`, one `subaccount.auto_recharge` event goes to " +
          "the agency's events webhook URL; the next one only after the balance was at or above the " +
          "threshold again. Errors: VALIDATION_ERROR, INVALID_AMOUNT (400), NOT_AGENCY (403), " +
          "SUBACCOUNT_NOT_FOUND (404).",
        tags: ["subaccounts"],
        security: headerSecurity,
        params: SubaccountParams,
        body: AutoRechargeBody,
        response: { 200: SubaccountJson, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => setAutoRecharge(db, accountOf(request).id, request.params.id, request.body),
  );

  app.delete(
    "/v1/subaccounts/:id/auto-recharge",
    {
      config: agencyOnly,
      preValidation: agencyGate,
      schema: {
        operationId: "clearSubaccountAutoRecharge",
        summary: "Turn a sub-account's auto-recharge off (extension, agency only)",
        description: "Idempotent. Errors: NOT_AGENCY (403), SUBACCOUNT_NOT_FOUND (404).",
        tags: ["subaccounts"],
        security: headerSecurity,
        params: SubaccountParams,
        response: { 200: SubaccountJson, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => clearAutoRecharge(db, accountOf(request).id, request.params.id),
  );

  for (const [action, suspended] of [
    ["suspend", true],
    ["resume", false],
  ] as const) {
    app.post(
      `/v1/subaccounts/:id/${action}`,
      {
        config: agencyOnly,
        preValidation: agencyGate,
        schema: {
          operationId: suspended ? "suspendSubaccount" : "resumeSubaccount",
          summary: suspended
            ? "Suspend a sub-account (extension, agency only)"
            : "Resume a suspended sub-account (extension, agency only)",
          description: suspended
            ? "Its API key and its people's sessions are refused with 403 ACCOUNT_SUSPENDED, its bot " +
              "does not answer and its campaigns and follow-ups send nothing; incoming messages are still " +
              "stored and nothing is deleted. Idempotent (suspendedAt stays the first time). No body. " +
              "Errors: NOT_AGENCY (403), SUBACCOUNT_NOT_FOUND (404, also for another agency's or the " +
              "agency itself)."
            : "Its key, sessions, bot and running campaigns work again, as they were. Idempotent. No body. " +
              "Errors: NOT_AGENCY (403), SUBACCOUNT_NOT_FOUND (404, also for another agency's).",
          tags: ["subaccounts"],
          security: headerSecurity,
          params: SubaccountParams,
          response: { 200: SubaccountJson, ...errorResponses(400, 401, 403, 404, 429) },
        },
      },
      async (request) => setSubaccountSuspended(db, accountOf(request).id, request.params.id, suspended),
    );
  }

  app.get(
    "/v1/subaccounts/:id/credits/transactions",
    {
      config: agencyOnly,
      preValidation: agencyGate,
      schema: {
        operationId: "listSubaccountTransactions",
        summary: "A sub-account's credit history (extension, agency only)",
        description:
          "Newest first, cursor pagination. Errors: VALIDATION_ERROR, INVALID_CURSOR (400), NOT_AGENCY (403), " +
          "SUBACCOUNT_NOT_FOUND (404, also for another agency's sub-account).",
        tags: ["subaccounts"],
        security: headerSecurity,
        params: SubaccountParams,
        querystring: PageQuery,
        response: { 200: pageOf(TransactionJson), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const sub = await requireSubaccount(db, accountOf(request).id, request.params.id);
      return pageTransactions(db, sub.id, request.query);
    },
  );

  app.get(
    "/v1/credits/transactions",
    {
      schema: {
        operationId: "listCreditTransactions",
        summary: "The calling account's credit history (extension)",
        description:
          "Grants, bot replies and operator adjustments, newest first, cursor pagination. Errors: " +
          "VALIDATION_ERROR, INVALID_CURSOR (400).",
        tags: ["credits"],
        querystring: PageQuery,
        response: { 200: pageOf(TransactionJson), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => pageTransactions(db, accountOf(request).id, request.query),
  );
}

/**
 * Creates a sub-account of the agency and answers with its owner's invite link (the same answer whoever
 * uses the address): POST /v1/subaccounts and the web app's POST /app/api/subaccounts.
 */
export async function createSubaccountWithLink(
  ctx: AppContext,
  agency: Parameters<typeof createSubaccount>[1],
  body: Parameters<typeof createSubaccount>[2],
  request: FastifyRequest,
) {
  const linkBase = requestLinkBase(ctx.config, request);
  const { ownerInvite, ...created } = await createSubaccount(ctx, agency, body, linkBase);
  const url = inviteLink(linkBase, ownerInvite.token);
  return { ...created, ownerInvite: { url, expiresAt: ownerInvite.expiresAt } };
}

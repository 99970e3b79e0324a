// /app/api for agencies (web app part 2): sub-accounts, their balances and histories, grants (through
// the same grantCredits as POST /v1/subaccounts/credits) and auto-recharge. Agency owners and admins;
// another account's (or another agency's) sub-account is 404.

import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import type { App } from "../../platform/http/types.ts";
import { PageQuery, pageOf } from "../../platform/pagination.ts";
import { findAccountById } from "../accounts/repo.ts";
import { requireManager } from "../accounts/team.ts";
import { createSubaccountWithLink } from "../credits/routes.ts";
import {
  AutoRechargeBody,
  CreateSubaccountBody,
  GrantResponse,
  RenameSubaccountBody,
  SubaccountJson,
  SubaccountParams,
  TransactionJson,
} from "../credits/schemas.ts";
import {
  checkGrantAmount,
  clearAutoRecharge,
  grantCredits,
  pageSubaccounts,
  pageTransactions,
  refuseOwnerPassword,
  renameSubaccount,
  requireAgency,
  requireSubaccount,
  setAutoRecharge,
  setSubaccountSuspended,
} from "../credits/service.ts";
import { AppCreatedSubaccount, BalanceJson } from "./responses.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

const AppGrantBody = Type.Object({
  amount: Type.Number(),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
});

export function agencyRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;
  /** The signed-in agency (owner or admin), or 403. */
  const agencyOf = async (request: FastifyRequest) => {
    const info = sessionOf(request);
    requireManager(info);
    const account = await findAccountById(db.kysely, info.account.id);
    if (!account) throw new AppError("NOT_FOUND", "account not found");
    requireAgency(account);
    return account;
  };

  // Every account's own balance, every role: a sub-account's team sees what its agency granted.
  app.get(
    "/credits",
    { schema: { operationId: "appGetBalance", response: { 200: BalanceJson }, tags: TAGS } },
    async (request) => {
      const account = await findAccountById(db.kysely, sessionOf(request).account.id);
      if (!account) throw new AppError("NOT_FOUND", "account not found");
      return { balance: account.credits / 100 };
    },
  );

  app.get(
    "/subaccounts",
    {
      schema: {
        operationId: "appListSubaccounts",
        response: { 200: pageOf(SubaccountJson) },
        tags: TAGS,
        querystring: PageQuery,
      },
    },
    async (request) => pageSubaccounts(db, (await agencyOf(request)).id, request.query),
  );

  app.post(
    "/subaccounts",
    {
      preValidation: async (request) => refuseOwnerPassword(request.body),
      schema: {
        operationId: "appCreateSubaccount",
        response: { 201: AppCreatedSubaccount },
        tags: TAGS,
        body: CreateSubaccountBody,
      },
    },
    async (request, reply) => {
      const agency = await agencyOf(request);
      // The owner's link, for the agency to hand over; the API key is shown only by /v1.
      const { apiKey: _shownOnlyByTheApi, ...created } = await createSubaccountWithLink(
        ctx,
        agency,
        request.body,
        request,
      );
      return reply.code(201).send(created);
    },
  );

  app.post(
    "/subaccounts/:id/credits",
    {
      preValidation: async (request) => checkGrantAmount(request.body),
      schema: {
        operationId: "appGrantCredits",
        response: { 200: GrantResponse },
        tags: TAGS,
        params: SubaccountParams,
        body: AppGrantBody,
      },
    },
    async (request) => {
      const agency = await agencyOf(request);
      const sub = await requireSubaccount(db, agency.id, request.params.id);
      const outcome = await grantCredits(
        ctx,
        agency,
        { email: sub.email, amount: request.body.amount, description: request.body.description ?? null },
        undefined,
      );
      return outcome.body;
    },
  );

  app.get(
    "/subaccounts/:id/transactions",
    {
      schema: {
        operationId: "appSubaccountTransactions",
        response: { 200: pageOf(TransactionJson) },
        tags: TAGS,
        params: SubaccountParams,
        querystring: PageQuery,
      },
    },
    async (request) => {
      const sub = await requireSubaccount(db, (await agencyOf(request)).id, request.params.id);
      return pageTransactions(db, sub.id, request.query);
    },
  );

  app.put(
    "/subaccounts/:id/auto-recharge",
    {
      schema: {
        operationId: "appSetAutoRecharge",
        response: { 200: SubaccountJson },
        tags: TAGS,
        params: SubaccountParams,
        body: AutoRechargeBody,
      },
    },
    async (request) => setAutoRecharge(db, (await agencyOf(request)).id, request.params.id, request.body),
  );

  app.patch(
    "/subaccounts/:id",
    {
      schema: {
        operationId: "appRenameSubaccount",
        response: { 200: SubaccountJson },
        tags: TAGS,
        params: SubaccountParams,
        body: RenameSubaccountBody,
      },
    },
    async (request) =>
      renameSubaccount(db, (await agencyOf(request)).id, request.params.id, request.body.name),
  );

  for (const [action, suspended] of [
    ["suspend", true],
    ["resume", false],
  ] as const) {
    app.post(
      `/subaccounts/:id/${action}`,
      {
        schema: {
          operationId: suspended ? "appSuspendSubaccount" : "appResumeSubaccount",
          response: { 200: SubaccountJson },
          tags: TAGS,
          params: SubaccountParams,
        },
      },
      async (request) =>
        setSubaccountSuspended(db, (await agencyOf(request)).id, request.params.id, suspended),
    );
  }

  app.delete(
    "/subaccounts/:id/auto-recharge",
    {
      schema: {
        operationId: "appClearAutoRecharge",
        response: { 200: SubaccountJson },
        tags: TAGS,
        params: SubaccountParams,
      },
    },
    async (request) => clearAutoRecharge(db, (await agencyOf(request)).id, request.params.id),
  );
}

// Campaign CRUD (extensions): thin handlers, rules in service.ts.
import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { pageOf } from "../../platform/pagination.ts";
import { ConversationParams } from "../conversations/schemas.ts";
import { functionCallsOf, testFunction } from "./function-service.ts";
import { suggestPhrasings } from "./phrasings.ts";
import { previewReply } from "./preview.ts";
import {
  CAMPAIGN_BODY_LIMIT_BYTES,
  CampaignJson,
  CampaignListQuery,
  CampaignParams,
  CampaignSummaryJson,
  CreateCampaignBody,
  DeleteCampaignResponse,
  FunctionCallList,
  FunctionTestBody,
  FunctionTestJson,
  FunctionTestParams,
  PhrasingsJson,
  PhrasingsParams,
  PreviewBody,
  PreviewJson,
  SaveKnowledgeBody,
  SaveKnowledgeJson,
  SummaryJson,
  UpdateCampaignBody,
} from "./schemas.ts";
import {
  campaignView,
  createCampaign,
  deleteCampaign,
  pageCampaigns,
  requireCampaign,
  saveKnowledgeView,
  updateCampaign,
} from "./service.ts";
import { summaryFor } from "./summary.ts";

const CAMPAIGN_RULES =
  "name 1–200 characters; knowledge at most 500 entries, each {question (≤ 1,000), answer (≤ 5,000), " +
  "alternatives (optional, ≤ 20 other phrasings of the question, each ≤ 1,000)} or " +
  "{text (≤ 5,000)}; keywords at most 50 of ≤ 100 characters (trimmed, de-duplicated); instructions ≤ " +
  "20,000; fallbackMessage 1–2,000 (default: a polite hand-over message); engine auto|builtin|llm " +
  "(default auto); model optional. Errors: VALIDATION_ERROR (400).";

export function botRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;
  const outgoingLimits = {
    maxPerMinute: ctx.config.outgoingMaxPerMinute,
    outboundAllowCidrs: ctx.config.outboundAllowCidrs,
  };
  app.post(
    "/v1/campaigns/:campaignId/preview",
    {
      schema: {
        operationId: "previewCampaign",
        summary: "Try a campaign: what the bot would answer (extension)",
        description:
          "Runs the campaign's engine on a message and answers what the bot would reply, which knowledge " +
          "entry it used and how confident it was, or that it would fall back. Nothing is sent or stored " +
          "and no credit is used. Works for draft and paused campaigns too. Errors: VALIDATION_ERROR (400), " +
          "CAMPAIGN_NOT_FOUND (404).",
        tags: ["campaigns"],
        params: CampaignParams,
        body: PreviewBody,
        response: { 200: PreviewJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) =>
      previewReply(ctx, accountOf(request).id, request.params.campaignId, request.body.message),
  );

  app.post(
    "/v1/campaigns/:campaignId/functions/:name/test",
    {
      schema: {
        operationId: "testCampaignFunction",
        summary: "Test a campaign's custom function with sample arguments (extension)",
        description:
          'Calls the saved function as the bot would (a signed POST, with "test": true and no ' +
          "conversation in the body) and answers what came back. Nothing is recorded or sent to anyone " +
          "else. Errors: VALIDATION_ERROR (400: the arguments do not match the function's parameters), " +
          "CAMPAIGN_NOT_FOUND (404), NOT_FOUND (404: no function of that name).",
        tags: ["campaigns"],
        params: FunctionTestParams,
        body: FunctionTestBody,
        response: { 200: FunctionTestJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) =>
      testFunction(
        ctx,
        accountOf(request).id,
        request.params.campaignId,
        request.params.name,
        request.body.arguments,
      ),
  );

  app.get(
    "/v1/conversations/:conversationId/function-calls",
    {
      schema: {
        operationId: "listFunctionCalls",
        summary: "The custom function calls the bot made in a conversation (extension)",
        description:
          "The newest 200, oldest first: function, arguments, status (ok, error, timeout, blocked, " +
          "invalid_arguments), HTTP status, duration and the answer shortened to 500 characters. Never " +
          "sent to the customer. Errors: CONVERSATION_NOT_FOUND (404).",
        tags: ["conversations"],
        params: ConversationParams,
        response: { 200: FunctionCallList, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => ({
      data: await functionCallsOf(ctx, accountOf(request).id, request.params.conversationId),
    }),
  );

  app.get(
    "/v1/conversations/:conversationId/summary",
    {
      schema: {
        operationId: "getConversationSummary",
        summary: "A hand-over summary of a conversation (extension)",
        description:
          "What the customer wants, what was answered and what is missing, written by the LLM when one " +
          "is configured (engine llm), and the customer's messages the bot could not answer since a " +
          "person last wrote (both engines). Written on every hand-over, and here when the stored one " +
          "does not cover the latest message yet (which may take a few seconds with an LLM). " +
          "Errors: CONVERSATION_NOT_FOUND (404).",
        tags: ["conversations"],
        params: ConversationParams,
        response: { 200: SummaryJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => summaryFor(ctx, accountOf(request).id, request.params.conversationId),
  );

  app.post(
    "/v1/campaigns/:campaignId/knowledge",
    {
      schema: {
        operationId: "saveKnowledge",
        summary: "Save as knowledge: teach a campaign a question (extension)",
        description:
          "Learning from the inbox. With entryIndex, the question becomes another phrasing of that " +
          "question/answer entry (change: alternative_added, or unchanged when the entry already has it); " +
          "with answer, a new entry {question, answer} is appended (entry_created). Give exactly one of " +
          "the two. The next message like it is answered by the builtin engine and ranks the entry for " +
          "the LLM engine. Errors: VALIDATION_ERROR (400: neither or both, entryIndex out of range or a " +
          "text passage, 20 phrasings or 500 entries already), CAMPAIGN_NOT_FOUND (404).",
        tags: ["campaigns"],
        params: CampaignParams,
        body: SaveKnowledgeBody,
        response: { 200: SaveKnowledgeJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => saveKnowledgeView(db, accountOf(request).id, request.params.campaignId, request.body),
  );

  app.post(
    "/v1/campaigns/:campaignId/knowledge/:index/phrasings",
    {
      schema: {
        operationId: "suggestPhrasings",
        summary: "Suggest other ways to ask a knowledge entry's question, written by the LLM (extension)",
        description:
          "The account's LLM proposes, once, other phrasings of a question/answer entry's question, as " +
          "customers would type them (8 asked for; cleaned: each ≤ 200 characters, no repeat of the " +
          "question, of the entry's alternatives or of each other). Nothing is stored and no credit is " +
          "used: keep the good ones by adding them to the entry's alternatives with PATCH " +
          "/v1/campaigns/{campaignId}. Errors: VALIDATION_ERROR (400: the entry is free text), " +
          "CAMPAIGN_NOT_FOUND (404), NOT_FOUND (404: no entry at that index), LLM_NOT_CONFIGURED (409: " +
          "no LLM endpoint and model for the account), LLM_ERROR (502: the LLM failed or took more than " +
          "20 s).",
        tags: ["campaigns"],
        params: PhrasingsParams,
        response: { 200: PhrasingsJson, ...errorResponses(400, 401, 404, 409, 429, 502) },
      },
    },
    async (request) =>
      suggestPhrasings(ctx, accountOf(request).id, request.params.campaignId, request.params.index),
  );

  app.post(
    "/v1/campaigns",
    {
      bodyLimit: CAMPAIGN_BODY_LIMIT_BYTES,
      schema: {
        operationId: "createCampaign",
        summary: "Create a bot campaign (extension)",
        description: `A new campaign is a draft unless status is given. isDefault: true moves the account's default flag to it. ${CAMPAIGN_RULES}`,
        tags: ["campaigns"],
        body: CreateCampaignBody,
        response: { 201: CampaignJson, ...errorResponses(400, 401, 413, 429) },
      },
    },
    async (request, reply) => {
      const campaign = await createCampaign(db, accountOf(request).id, request.body, outgoingLimits);
      return reply.code(201).send(campaignView(campaign));
    },
  );

  app.get(
    "/v1/campaigns",
    {
      schema: {
        operationId: "listCampaigns",
        summary: "List bot campaigns (extension)",
        description:
          "Oldest first (the order keyword routing uses), cursor pagination, optional status filter. " +
          "Items carry knowledgeCount instead of the knowledge itself; GET one campaign for it. " +
          "Errors: VALIDATION_ERROR, INVALID_CURSOR (400).",
        tags: ["campaigns"],
        querystring: CampaignListQuery,
        response: { 200: pageOf(CampaignSummaryJson), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => pageCampaigns(db, accountOf(request).id, request.query),
  );

  app.get(
    "/v1/campaigns/:campaignId",
    {
      schema: {
        operationId: "getCampaign",
        summary: "Get a bot campaign with its knowledge (extension)",
        description: "Errors: CAMPAIGN_NOT_FOUND (404), also for another account's campaign.",
        tags: ["campaigns"],
        params: CampaignParams,
        response: { 200: CampaignJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) =>
      campaignView(await requireCampaign(db, accountOf(request).id, request.params.campaignId)),
  );

  app.patch(
    "/v1/campaigns/:campaignId",
    {
      bodyLimit: CAMPAIGN_BODY_LIMIT_BYTES,
      schema: {
        operationId: "updateCampaign",
        summary: "Update a bot campaign (extension)",
        description:
          "Partial update: absent fields are kept; knowledge and keywords are replaced as a whole. " +
          "isDefault: true makes this the default (the previous default stops being one); false on the " +
          `default: 409 CAMPAIGN_IS_DEFAULT. ${CAMPAIGN_RULES} CAMPAIGN_NOT_FOUND (404).`,
        tags: ["campaigns"],
        params: CampaignParams,
        body: UpdateCampaignBody,
        response: { 200: CampaignJson, ...errorResponses(400, 401, 404, 409, 413, 429) },
      },
    },
    async (request) =>
      campaignView(
        await updateCampaign(
          db,
          accountOf(request).id,
          request.params.campaignId,
          request.body,
          outgoingLimits,
        ),
      ),
  );

  app.delete(
    "/v1/campaigns/:campaignId",
    {
      schema: {
        operationId: "deleteCampaign",
        summary: "Delete a bot campaign (extension)",
        description:
          "The default campaign cannot be deleted (409 CAMPAIGN_IS_DEFAULT): make another one the default " +
          "first. Messages keep the campaignId they were sent with. Errors: CAMPAIGN_NOT_FOUND (404).",
        tags: ["campaigns"],
        params: CampaignParams,
        response: { 200: DeleteCampaignResponse, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request) => {
      await deleteCampaign(db, accountOf(request).id, request.params.campaignId);
      return { id: request.params.campaignId, deleted: true as const };
    },
  );
}

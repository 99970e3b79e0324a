// Every /v1 operation of the server, by its OpenAPI operationId. The request and response types of each
// come from the generated document (src/generated/openapi.ts) as `operations[operationId]`: a key here
// that the document does not have is a type error. The drift test checks this table against the live
// document (same operationIds, methods, paths and key transport; nothing missing, nothing extra).
// Adding an operation: `npm run generate -w @parley/client`, add a row here, add a method in client.ts.
import type { operations, paths } from "./generated/openapi.ts";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

export interface OperationSpec {
  method: HttpMethod;
  path: keyof paths;
  /** Repeating it after a 5xx or a network error cannot do anything twice. */
  idempotent: boolean;
  /** The endpoint accepts the key only as the `x-api-key` header (its OpenAPI security is apiKeyHeader). */
  headerKeyOnly?: boolean;
}

export const OPERATIONS = {
  getAccount: { method: "get", path: "/v1/account", idempotent: true },
  getBusinessHours: { method: "get", path: "/v1/account/business-hours", idempotent: true },
  // Replaces the hours as a whole: the same body twice gives the same hours.
  setBusinessHours: { method: "put", path: "/v1/account/business-hours", idempotent: true },
  createContact: { method: "post", path: "/v1/contacts", idempotent: false },
  lookupContact: { method: "get", path: "/v1/contacts", idempotent: true },
  getContact: { method: "get", path: "/v1/contacts/{contactId}", idempotent: true },
  updateContact: { method: "patch", path: "/v1/contacts/{contactId}", idempotent: false },
  replaceContact: { method: "put", path: "/v1/contacts/{contactId}", idempotent: false },
  // A repeat creates another import of the same file, which creates nothing new (rows are upserted).
  createContactImport: { method: "post", path: "/v1/contacts/imports", idempotent: false },
  getContactImport: { method: "get", path: "/v1/contacts/imports/{importId}", idempotent: true },
  getContactImportRejected: {
    method: "get",
    path: "/v1/contacts/imports/{importId}/rejected",
    idempotent: true,
  },
  deleteContact: { method: "delete", path: "/v1/contacts/{contactId}", idempotent: true },
  exportContacts: { method: "get", path: "/v1/exports/contacts", idempotent: true },
  exportConversations: { method: "get", path: "/v1/exports/conversations", idempotent: true },
  // One transaction: labels and erasure are the same twice; "updated" counts the rows either way.
  bulkContacts: { method: "post", path: "/v1/contacts/bulk", idempotent: true },
  listContactMessages: { method: "get", path: "/v1/contacts/{contactId}/messages", idempotent: true },
  // A repeat of a create answers 409 CANNED_REPLY_EXISTS (the shortcut is taken by the first).
  createCannedReply: { method: "post", path: "/v1/canned-replies", idempotent: false },
  listCannedReplies: { method: "get", path: "/v1/canned-replies", idempotent: true },
  updateCannedReply: { method: "patch", path: "/v1/canned-replies/{cannedReplyId}", idempotent: true },
  deleteCannedReply: { method: "delete", path: "/v1/canned-replies/{cannedReplyId}", idempotent: true },
  createList: { method: "post", path: "/v1/lists", idempotent: false },
  listLists: { method: "get", path: "/v1/lists", idempotent: true },
  getList: { method: "get", path: "/v1/lists/{listId}", idempotent: true },
  renameList: { method: "patch", path: "/v1/lists/{listId}", idempotent: true },
  deleteList: { method: "delete", path: "/v1/lists/{listId}", idempotent: true },
  addContactToList: { method: "post", path: "/v1/lists/{listId}/contacts", idempotent: false },
  // Members already there are counted, never duplicated: a repeat changes nothing.
  addContactsToList: { method: "post", path: "/v1/lists/{listId}/contacts/bulk", idempotent: true },
  listListContacts: { method: "get", path: "/v1/lists/{listId}/contacts", idempotent: true },
  removeContactFromList: {
    method: "delete",
    path: "/v1/lists/{listId}/contacts/{contactId}",
    idempotent: false,
  },
  // messageSid makes a repeat answer the original message: safe to retry.
  receiveIncomingMessage: { method: "post", path: "/v1/incoming_custom_channel_message", idempotent: true },
  sendCustomChannelMessage: { method: "post", path: "/v1/send_custom_channel_message", idempotent: false },
  getMessage: { method: "get", path: "/v1/messages/{messageId}", idempotent: true },
  getMessageMedia: { method: "get", path: "/v1/messages/{messageId}/media", idempotent: true },
  resendMessage: { method: "post", path: "/v1/messages/{messageId}/resend", idempotent: false },
  replyInConversation: {
    method: "post",
    path: "/v1/conversations/{conversationId}/messages",
    idempotent: false,
  },
  // Assign, resolve, reopen, label: setting a state, the same twice.
  bulkConversations: { method: "post", path: "/v1/conversations/bulk", idempotent: true },
  listConversations: { method: "get", path: "/v1/conversations", idempotent: true },
  getConversation: { method: "get", path: "/v1/conversations/{conversationId}", idempotent: true },
  setConversationBot: { method: "post", path: "/v1/conversations/{conversationId}/bot", idempotent: false },
  // Rewrites a stale summary at most: the same answer twice.
  getConversationSummary: {
    method: "get",
    path: "/v1/conversations/{conversationId}/summary",
    idempotent: true,
  },
  listFunctionCalls: {
    method: "get",
    path: "/v1/conversations/{conversationId}/function-calls",
    idempotent: true,
  },
  createCampaign: { method: "post", path: "/v1/campaigns", idempotent: false },
  listCampaigns: { method: "get", path: "/v1/campaigns", idempotent: true },
  getCampaign: { method: "get", path: "/v1/campaigns/{campaignId}", idempotent: true },
  updateCampaign: { method: "patch", path: "/v1/campaigns/{campaignId}", idempotent: false },
  deleteCampaign: { method: "delete", path: "/v1/campaigns/{campaignId}", idempotent: false },
  // Nothing is stored or sent: safe to repeat.
  // Start again is harmless (nobody gets the first message twice); pause is a state change.
  startCampaign: { method: "post", path: "/v1/campaigns/{campaignId}/start", idempotent: true },
  pauseCampaign: { method: "post", path: "/v1/campaigns/{campaignId}/pause", idempotent: true },
  getCampaignStats: { method: "get", path: "/v1/campaigns/{campaignId}/stats", idempotent: true },
  listCampaignSkipped: { method: "get", path: "/v1/campaigns/{campaignId}/skipped", idempotent: true },
  previewCampaign: { method: "post", path: "/v1/campaigns/{campaignId}/preview", idempotent: true },
  // Saving the same phrasing twice changes nothing; a second new entry would be a duplicate.
  saveKnowledge: { method: "post", path: "/v1/campaigns/{campaignId}/knowledge", idempotent: false },
  // Proposals only, nothing stored: a repeat just asks the LLM again.
  suggestPhrasings: {
    method: "post",
    path: "/v1/campaigns/{campaignId}/knowledge/{index}/phrasings",
    idempotent: true,
  },
  // It calls the business's own endpoint, which may act on it: not repeated by the client.
  testCampaignFunction: {
    method: "post",
    path: "/v1/campaigns/{campaignId}/functions/{name}/test",
    idempotent: false,
  },
  // A repeat adds the same file or page twice (two sources).
  createSource: { method: "post", path: "/v1/campaigns/{campaignId}/sources", idempotent: false },
  listSources: { method: "get", path: "/v1/campaigns/{campaignId}/sources", idempotent: true },
  getSource: { method: "get", path: "/v1/campaigns/{campaignId}/sources/{sourceId}", idempotent: true },
  updateSource: { method: "patch", path: "/v1/campaigns/{campaignId}/sources/{sourceId}", idempotent: true },
  // Another read of the same source: a repeat only reads it again.
  resyncSource: {
    method: "post",
    path: "/v1/campaigns/{campaignId}/sources/{sourceId}/resync",
    idempotent: true,
  },
  deleteSource: { method: "delete", path: "/v1/campaigns/{campaignId}/sources/{sourceId}", idempotent: true },
  createChannel: { method: "post", path: "/v1/channels", idempotent: false },
  listChannels: { method: "get", path: "/v1/channels", idempotent: true },
  getChannel: { method: "get", path: "/v1/channels/{channelId}", idempotent: true },
  // Settings are merged over the current ones: the same change twice gives the same channel.
  updateChannel: { method: "patch", path: "/v1/channels/{channelId}", idempotent: true },
  deleteChannel: { method: "delete", path: "/v1/channels/{channelId}", idempotent: true },
  // Agency endpoints take the key only as a header. The grant is retried only with an Idempotency-Key.
  grantSubaccountCredits: {
    method: "post",
    path: "/v1/subaccounts/credits",
    idempotent: false,
    headerKeyOnly: true,
  },
  listSubaccounts: { method: "get", path: "/v1/subaccounts", idempotent: true, headerKeyOnly: true },
  createSubaccount: { method: "post", path: "/v1/subaccounts", idempotent: false, headerKeyOnly: true },
  getSubaccount: { method: "get", path: "/v1/subaccounts/{id}", idempotent: true, headerKeyOnly: true },
  setSubaccountAutoRecharge: {
    method: "put",
    path: "/v1/subaccounts/{id}/auto-recharge",
    idempotent: false,
    headerKeyOnly: true,
  },
  clearSubaccountAutoRecharge: {
    method: "delete",
    path: "/v1/subaccounts/{id}/auto-recharge",
    idempotent: false,
    headerKeyOnly: true,
  },
  // Setting a state: the same call twice gives the same sub-account.
  suspendSubaccount: {
    method: "post",
    path: "/v1/subaccounts/{id}/suspend",
    idempotent: true,
    headerKeyOnly: true,
  },
  resumeSubaccount: {
    method: "post",
    path: "/v1/subaccounts/{id}/resume",
    idempotent: true,
    headerKeyOnly: true,
  },
  listSubaccountTransactions: {
    method: "get",
    path: "/v1/subaccounts/{id}/credits/transactions",
    idempotent: true,
    headerKeyOnly: true,
  },
  getSubaccountUsage: {
    method: "get",
    path: "/v1/subaccounts/{id}/usage",
    idempotent: true,
    headerKeyOnly: true,
  },
  getSubaccountUsageCsv: {
    method: "get",
    path: "/v1/subaccounts/{id}/usage.csv",
    idempotent: true,
    headerKeyOnly: true,
  },
  listCreditTransactions: { method: "get", path: "/v1/credits/transactions", idempotent: true },
} as const satisfies Record<string, OperationSpec>;

export type OperationId = keyof typeof OPERATIONS;

type Op<K extends OperationId> = operations[K];

type JsonOf<T> = T extends { content: { "application/json": infer B } } ? B : never;

/** The JSON request body of an operation. */
export type RequestBody<K extends OperationId> =
  Op<K> extends { requestBody: infer R }
    ? JsonOf<R>
    : Op<K> extends { requestBody?: infer R }
      ? JsonOf<R>
      : never;

/** The query parameters of an operation. */
export type QueryParams<K extends OperationId> =
  Op<K> extends { parameters: { query?: infer Q } } ? Exclude<Q, undefined> : never;

/** The JSON body of the operation's success answer (200 or 201). */
export type ResponseBody<K extends OperationId> =
  Op<K> extends { responses: infer R }
    ?
        | (R extends { 200: infer S } ? JsonOf<S> : never)
        | (R extends { 201: infer S } ? JsonOf<S> : never)
        | (R extends { 202: infer S } ? JsonOf<S> : never)
    : never;

export {
  type AutoRechargeHandlerOptions,
  type AutoRechargeResult,
  type ClaimState,
  createAutoRechargeHandler,
  FileStore,
  type IdempotencyStore,
  MemoryStore,
} from "./auto-recharge.ts";
export { type GrantOptions, type Media, Parley, type ParleyOptions, type RequestOptions } from "./client.ts";
export { ParleyError } from "./errors.ts";
export type { paths } from "./generated/openapi.ts";
export {
  OPERATIONS,
  type OperationId,
  type QueryParams,
  type RequestBody,
  type ResponseBody,
} from "./operations.ts";
export {
  type AutoRechargeEvent,
  type HumanAlertEvent,
  isEvent,
  type MessageOutboundEvent,
  type ParleyEvent,
  type TestEvent,
  verifyWebhook,
  WebhookError,
  type WebhookHeaders,
} from "./webhooks.ts";

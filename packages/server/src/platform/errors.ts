// The one error model: a closed list of codes, each mapped to its HTTP status here and nowhere else.
// Routes choose the wire form ("structured" {"error":{code,message}} or "simple" {"error":"…"}).

export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  INVALID_PHONE: 400,
  INVALID_EMAIL: 400,
  MISSING_IDENTIFIER: 400,
  INVALID_AMOUNT: 400,
  INVALID_CURSOR: 400,
  INVALID_MEDIA: 400,
  WEBHOOK_NOT_CONFIGURED: 400,
  INVALID_CHANNEL_CONFIG: 400,
  CSV_TOO_WIDE: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  NOT_AGENCY: 403,
  HTTPS_REQUIRED: 403,
  FORBIDDEN: 403,
  CSRF_FAILED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  CHANNEL_PAUSED: 403,
  ACCOUNT_SUSPENDED: 403,
  NOT_FOUND: 404,
  CONTACT_NOT_FOUND: 404,
  LIST_NOT_FOUND: 404,
  MESSAGE_NOT_FOUND: 404,
  CONVERSATION_NOT_FOUND: 404,
  CAMPAIGN_NOT_FOUND: 404,
  SUBACCOUNT_NOT_FOUND: 404,
  CHANNEL_NOT_FOUND: 404,
  SOURCE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONTACT_EXISTS: 409,
  ACCOUNT_EXISTS: 409,
  MESSAGE_NOT_FAILED: 409,
  CAMPAIGN_IS_DEFAULT: 409,
  ALREADY_ONBOARDED: 409,
  OWNER_NOT_REMOVABLE: 409,
  CANNED_REPLY_EXISTS: 409,
  LLM_NOT_CONFIGURED: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  LLM_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, headers?: Record<string, string>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.statusCode = ERROR_STATUS[code];
    this.headers = headers;
  }
}

export type ErrorForm = "structured" | "simple";

export function errorBody(form: ErrorForm, code: ErrorCode, message: string): unknown {
  return form === "simple" ? { error: message } : { error: { code, message } };
}

/** Generic, non-leaking messages for server-side failures. */
export const INTERNAL_MESSAGE = "Internal server error. The request id identifies it in the server logs.";

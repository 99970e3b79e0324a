// One error class for every failure: the server's structured form {"error":{"code","message","requestId"}},
// the simple form {"error":"…"} of the incoming endpoint, and failures with no answer (network, timeout).

/** Codes for answers in the simple form, which carry only a message. */
const CODE_BY_STATUS: Record<number, string> = {
  400: "VALIDATION_ERROR",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  422: "UNPROCESSABLE",
  429: "RATE_LIMITED",
  500: "INTERNAL_ERROR",
  503: "SERVICE_UNAVAILABLE",
};

export class ParleyError extends Error {
  override readonly name = "ParleyError";
  /** The HTTP status; 0 when no answer arrived (network error or timeout). */
  readonly status: number;
  /** The server's error code (e.g. `INVALID_PHONE`), or `NETWORK_ERROR` / `TIMEOUT` without an answer. */
  readonly code: string;
  /** The request id (body or `x-request-id` header), for the server logs. */
  readonly requestId: string | null;
  /** From `Retry-After` on a 429 or 503, in milliseconds. */
  readonly retryAfterMs: number | null;
  /** The parsed answer body, when there was one. */
  readonly body: unknown;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    requestId?: string | null;
    retryAfterMs?: number | null;
    body?: unknown;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.body = init.body;
  }

  /** Reads an error answer (either form, or something else entirely, e.g. a proxy's HTML page). */
  static async fromResponse(res: Response): Promise<ParleyError> {
    const text = await res.text().catch(() => "");
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: keep the text.
    }
    const headerId = res.headers.get("x-request-id");
    const fallbackCode = CODE_BY_STATUS[res.status] ?? (res.status >= 500 ? "SERVER_ERROR" : "HTTP_ERROR");
    const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"));
    const error = isObject(body) ? body.error : undefined;
    if (isObject(error)) {
      return new ParleyError({
        status: res.status,
        code: typeof error.code === "string" ? error.code : fallbackCode,
        message: typeof error.message === "string" ? error.message : `HTTP ${res.status}`,
        requestId: typeof error.requestId === "string" ? error.requestId : headerId,
        retryAfterMs,
        body,
      });
    }
    return new ParleyError({
      status: res.status,
      code: fallbackCode,
      message:
        typeof error === "string" ? error : `HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ""}`,
      requestId: headerId,
      retryAfterMs,
      body,
    });
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds (null when absent or unreadable). */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

// The one way the app talks to the server: JSON over the session-authenticated /app/api routes (never
// /v1 with an API key). State-changing requests carry the session's CSRF token.

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let csrfToken: string | null = null;

/** Set from the session JSON; sent as x-csrf-token on every POST, PATCH and DELETE. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** A CSV file as the body (contact imports) instead of JSON. */
export class CsvBody {
  readonly file: Blob;
  constructor(file: Blob) {
    this.file = file;
  }
}

export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body instanceof CsvBody) headers["content-type"] = "text/csv";
  else if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  let res: Response;
  try {
    res = await fetch(`/app/api${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : body instanceof CsvBody ? body.file : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError(0, "NETWORK", "The server cannot be reached. Check your connection and try again.");
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const error = (data as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(
      res.status,
      error?.code ?? "UNKNOWN",
      error?.message ?? `The server answered ${res.status}. Try again in a moment.`,
    );
  }
  return data as T;
}

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return "Something went wrong.";
}

// Text is text everywhere: no NUL (PostgreSQL cannot store it) and no lone UTF-16 surrogate in any
// string of any request, body, query string or path, checked once for every route before its schema
// runs, so no route can forget. The incoming-message endpoint checks its own fields as it parses.
import type { FastifyRequest } from "fastify";
import { AppError } from "../errors.ts";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The first string in `value` that is not storable text, as a field path and the reason; or null. */
export function findInvalidText(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === "string") {
    if (value.includes("\u0000")) return `${path} must not contain NUL characters`;
    if (LONE_SURROGATE.test(value)) return `${path} must be valid Unicode text (no lone surrogate)`;
    return null;
  }
  // Deeper than any schema goes: the schema refuses such bodies anyway.
  if (depth > 32 || typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findInvalidText(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value)) {
    const name = path ? `${path}.${key}` : key;
    const bad = findInvalidText(key, name, depth + 1) ?? findInvalidText(v, name, depth + 1);
    if (bad) return bad;
  }
  return null;
}

export async function refuseInvalidText(request: FastifyRequest): Promise<void> {
  if (request.routeOptions.config?.errorForm === "simple") return;
  const found =
    findInvalidText(request.params, "") ??
    findInvalidText(request.query, "") ??
    findInvalidText(request.body, "");
  if (found) throw new AppError("VALIDATION_ERROR", found.startsWith(" ") ? found.trim() : found);
}

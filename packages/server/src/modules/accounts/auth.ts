// API key authentication, as an onRequest hook so a bad key is refused before any body is read.
import type { FastifyRequest } from "fastify";
import type { Db } from "../../platform/db/index.ts";
import { AppError } from "../../platform/errors.ts";
import type { AuthFailureLimiter } from "./auth-failures.ts";
import type { CachedKey, KeyCache } from "./key-cache.ts";
import { findAccountByKeyHash } from "./repo.ts";
import { hashApiKey, isSuspended, sameHash, suspendedError } from "./service.ts";

function firstString(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (Array.isArray(v) && typeof v[0] === "string") return v[0];
  return undefined;
}

export function createAuthHook(db: Db, cache: KeyCache, failures: AuthFailureLimiter) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    request.auth = null;
    // Everything under /v1/ needs a key unless the route says otherwise; docs and health do not.
    const mode =
      request.routeOptions.config?.auth ??
      (request.routeOptions.url?.startsWith("/v1/") ? "query-or-header" : "none");
    // Session routes (the web app) authenticate with their cookie in the app-api module's hook.
    if (mode === "none" || mode === "session") return;
    const header = firstString(request.headers["x-api-key"]);
    const query = firstString((request.query as Record<string, unknown> | undefined)?.apiKey);
    // The credits endpoint takes only the header: a key in the query string is ignored there.
    const key = mode === "header" ? header : (query ?? header);
    if (!key) {
      const where = mode === "header" ? "the x-api-key header" : "the apiKey query parameter";
      throw new AppError("UNAUTHORIZED", `Missing API key: send it in ${where}`);
    }
    const waitSeconds = failures.blockedFor(request.ip);
    if (waitSeconds > 0) {
      throw new AppError(
        "RATE_LIMITED",
        `Too many failed authentication attempts from this address; retry in ${waitSeconds} seconds`,
        { "retry-after": String(waitSeconds) },
      );
    }
    const keyHash = hashApiKey(key);
    // The generation is read before the look-up, so a write racing with it invalidates what we cache.
    const generation = cache.generation();
    let found: CachedKey | undefined = generation === null ? undefined : cache.get(keyHash, generation);
    if (!found) {
      found = await findAccountByKeyHash(db.kysely, keyHash);
      if (found && generation !== null) cache.set(keyHash, found, generation);
    }
    if (!found || !sameHash(found.keyHash, keyHash)) {
      await failures.recordFailure(request.ip);
      throw new AppError("UNAUTHORIZED", "Invalid API key");
    }
    // The cached row carries suspended_at, and suspending writes accounts, so the cache cannot lag.
    if (isSuspended(found.account) && !request.routeOptions.config?.acceptsSuspended) {
      throw suspendedError();
    }
    request.auth = { account: found.account, keyId: found.keyId };
  };
}

// Route-level options every route declares, and what authentication puts on the request.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from "fastify";
import type { AccountRow } from "../db/schema.ts";
import type { ErrorForm } from "../errors.ts";

/**
 * `query-or-header`: `apiKey` query parameter or `x-api-key` header (the default for /v1).
 * `header`: only the `x-api-key` header (the credits grant endpoint).
 * `none`: public (health, docs).
 * `session`: the web app's /app/api routes, authenticated by the session cookie in their own hook
 * (the API-key hook skips them).
 */
export type AuthMode = "query-or-header" | "header" | "none" | "session";

export interface AuthContext {
  account: AccountRow;
  keyId: string;
}

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: AuthMode;
    errorForm?: ErrorForm;
    /** The route also serves a suspended sub-account (storing incoming messages, signing out). */
    acceptsSuspended?: boolean;
    /**
     * While an agency assists a client (assist/service.ts): "agency" = the route serves the agency
     * person (switcher, end assist, sign-out), "refuse" = refused (their own password and profile);
     * unset = the route acts inside the assisted client.
     */
    assist?: "agency" | "refuse";
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** The authenticated account, for handlers of routes whose auth is not `none`. */
export function accountOf(request: { auth: AuthContext | null }): AccountRow {
  if (!request.auth) throw new Error("route reached without authentication");
  return request.auth.account;
}

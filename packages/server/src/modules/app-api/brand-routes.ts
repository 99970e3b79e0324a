// /app/api/brand (issue 38): an agency's owners and admins set its brand (name, colour, logo, own
// address); two open routes serve what anyone may see: the brand of the agency whose own address the
// sign-in page was reached through, and the logo file (sign-in pages and other sites' widgets show it).
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import type { App } from "../../platform/http/types.ts";
import { findAccountById } from "../accounts/repo.ts";
import { type SessionInfo, sessionView } from "../accounts/sessions.ts";
import { requireManager } from "../accounts/team.ts";
import {
  AgencyBrandJson,
  BrandBody,
  BrandStateJson,
  LOGO_MAX_BYTES,
  LogoBody,
  LogoParams,
  PublicBrandJson,
} from "../branding/schemas.ts";
import {
  brandFor,
  brandForHost,
  getBrand,
  openLogo,
  removeBrand,
  removeLogo,
  requireAgencyAccount,
  setBrand,
  setLogo,
} from "../branding/service.ts";
import { MediaBytes, NoContent } from "./responses.ts";
import { OPEN, sessionOf } from "./session.ts";

const TAGS = ["app"];

/** The session as the app starts from: a sub-account's people get their agency's brand with it. */
export async function brandedSession(
  ctx: AppContext,
  info: Pick<SessionInfo, "user" | "account" | "session">,
) {
  return { ...sessionView(info), brand: await brandFor(ctx.db, info.account) };
}

export function brandRoutes(app: App, ctx: AppContext): void {
  /** The signed-in agency's id (owner or admin), or 403. */
  const agencyOf = async (request: FastifyRequest): Promise<string> => {
    const info = sessionOf(request);
    requireManager(info);
    const account = await findAccountById(ctx.db.kysely, info.account.id);
    if (!account) throw new AppError("NOT_FOUND", "account not found");
    requireAgencyAccount(account);
    return account.id;
  };

  app.get(
    "/brand",
    { schema: { operationId: "appGetBrand", response: { 200: BrandStateJson }, tags: TAGS } },
    async (request) => ({ brand: await getBrand(ctx.db, await agencyOf(request)) }),
  );

  app.put(
    "/brand",
    {
      schema: { operationId: "appSetBrand", response: { 200: AgencyBrandJson }, tags: TAGS, body: BrandBody },
    },
    async (request) => setBrand(ctx.db, await agencyOf(request), request.body),
  );

  app.delete(
    "/brand",
    { schema: { operationId: "appRemoveBrand", response: { 204: NoContent }, tags: TAGS } },
    async (request, reply) => {
      await removeBrand(ctx, await agencyOf(request));
      return reply.code(204).send();
    },
  );

  app.put(
    "/brand/logo",
    {
      // base64 of at most LOGO_MAX_BYTES, with room for the JSON around it.
      bodyLimit: Math.ceil((LOGO_MAX_BYTES * 4) / 3) + 1024,
      schema: {
        operationId: "appSetBrandLogo",
        response: { 200: AgencyBrandJson },
        tags: TAGS,
        body: LogoBody,
      },
    },
    async (request) => setLogo(ctx, await agencyOf(request), request.body.data),
  );

  app.delete(
    "/brand/logo",
    { schema: { operationId: "appRemoveBrandLogo", response: { 200: AgencyBrandJson }, tags: TAGS } },
    async (request) => removeLogo(ctx, await agencyOf(request)),
  );

  // The sign-in page's brand: the agency whose own address (its PUBLIC_URL) the request came through
  // (Host, or X-Forwarded-Host behind a trusted proxy); null anywhere else.
  app.get(
    "/brand/sign-in",
    {
      config: OPEN,
      schema: { operationId: "appGetSignInBrand", response: { 200: PublicBrandJson }, tags: TAGS },
    },
    async (request) => ({ brand: await brandForHost(ctx.db, request.host) }),
  );

  app.get(
    "/brand-logos/:logoId",
    {
      config: OPEN,
      schema: {
        operationId: "appGetBrandLogo",
        response: { 200: MediaBytes },
        tags: TAGS,
        params: LogoParams,
      },
    },
    async (request, reply) => {
      const found = await openLogo(ctx, request.params.logoId);
      if (!found) throw new AppError("NOT_FOUND", "No such logo");
      return (
        reply
          .type(found.type)
          .header("content-length", found.file.size)
          // A new logo gets a new id: these bytes never change.
          .header("cache-control", "public, max-age=31536000, immutable")
          .header("x-content-type-options", "nosniff")
          .header("content-security-policy", "default-src 'none'; sandbox")
          // Shown by the chat widget on other sites.
          .header("cross-origin-resource-policy", "cross-origin")
          .send(found.file.body)
      );
    },
  );
}

// The web app's door: the session cookie authenticates, the x-csrf-token header guards every
// state-changing request. Runs as the one onRequest hook of the /app/api plugin.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { isSuspended, suspendedError } from "../accounts/service.ts";
import { resolveSession, SESSION_COOKIE, type SessionInfo, sameSecret } from "../accounts/sessions.ts";
import { type Assist, resolveAssist } from "../assist/service.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const signedIn = new WeakMap<FastifyRequest, SessionInfo>();
const assisting = new WeakMap<FastifyRequest, Assist>();

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

export function setSessionCookie(reply: FastifyReply, token: string, expiresAt: number): void {
  const maxAge = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
  reply.header(
    "set-cookie",
    `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=${maxAge}`,
  );
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.header("set-cookie", `${SESSION_COOKIE}=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0`);
}

/** The route config of the few /app/api routes anyone may call (the link or the password is the credential). */
export const OPEN = { auth: "none" as const };

export function createSessionHook(ctx: AppContext) {
  return async function requireSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // Session JSON carries the CSRF token: never kept by a cache (the media route sets its own).
    reply.header("cache-control", "no-store");
    if (request.routeOptions.config.auth === "none") return;
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    const signedInAs = token ? await resolveSession(ctx.db, token) : null;
    if (!token || !signedInAs) throw new AppError("UNAUTHORIZED", "Sign in first");
    // An agency person assisting a client acts inside that client only (assist/service.ts).
    let info: SessionInfo = signedInAs;
    const assistMode = request.routeOptions.config.assist;
    const assisted = assistMode === "agency" ? null : await resolveAssist(ctx, signedInAs);
    if (assisted) {
      if (assistMode === "refuse") throw new AppError("FORBIDDEN", "Not while assisting a client");
      info = assisted.info;
      assisting.set(request, assisted.assist);
    }
    if (isSuspended(info.account) && !request.routeOptions.config.acceptsSuspended) throw suspendedError();
    if (!SAFE_METHODS.has(request.method)) {
      const given = request.headers["x-csrf-token"];
      if (typeof given !== "string" || !sameSecret(given, info.session.csrf_token)) {
        throw new AppError("CSRF_FAILED", "Missing or wrong x-csrf-token header");
      }
    }
    if (signedInAs.extended) setSessionCookie(reply, token, signedInAs.session.expires_at);
    signedIn.set(request, info);
  };
}

/** The signed-in user once the session hook let the request through (the rate limit counts per user). */
export function signedInUserId(request: FastifyRequest): string | undefined {
  return signedIn.get(request)?.user.id;
}

/** Who assists the account in this request, or undefined when it is not an assist. */
export function assistOf(request: FastifyRequest): Assist | undefined {
  return assisting.get(request);
}

/** The signed-in person of a session route. */
export function sessionOf(request: FastifyRequest): SessionInfo {
  const info = signedIn.get(request);
  if (!info) throw new Error("session route reached without a session");
  return info;
}

/** The client's address as the server sees it: the socket's, or the proxy's X-Forwarded-For when trusted. */
export function clientAddress(ctx: AppContext, request: FastifyRequest): string {
  return (ctx.config.trustProxy ? request.ip : request.socket.remoteAddress) ?? "";
}

/**
 * The address that decides whether onboarding is open without the setup token. A request relayed by
 * a proxy on this machine comes from loopback whoever sent it: with forwarding headers and no
 * TRUST_PROXY, the real client is unknown, so it counts as remote.
 */
export function onboardingAddress(ctx: AppContext, request: FastifyRequest): string {
  const h = request.headers;
  if (!ctx.config.trustProxy && (h["x-forwarded-for"] || h.forwarded || h["x-real-ip"])) return "";
  return clientAddress(ctx, request);
}

// The composition root: builds the Fastify app, the database, the job worker and every module from
// one Config. Used by the process entry points (cli.ts) and by the tests.
import helmet from "@fastify/helmet";
import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyRequest, type RouteOptions } from "fastify";
import type { DestinationStream } from "pino";
import type { Config } from "./config.ts";
import {
  AppCaches,
  type AppContext,
  accountCreatedHooks,
  contactErasedHooks,
  humanReplyHooks,
  type Module,
} from "./context.ts";
import { createAuthHook } from "./modules/accounts/auth.ts";
import { AuthFailureLimiter } from "./modules/accounts/auth-failures.ts";
import { KeyCache, postgresChangeSignal, sqliteChangeSignal } from "./modules/accounts/key-cache.ts";
import { newSetupToken } from "./modules/accounts/users-repo.ts";
import { signedInUserId } from "./modules/app-api/session.ts";
import { isApiPath, isWebAppFileRequest, registerWebApp } from "./modules/app-api/static.ts";
import { MODULES } from "./modules/index.ts";
import { type Db, openDatabase } from "./platform/db/index.ts";
import { AppError, ERROR_CODES, ERROR_STATUS } from "./platform/errors.ts";
import { errorHandler, frameworkErrorHandler, sendError } from "./platform/http/error-handler.ts";
import { SimpleError, StructuredError } from "./platform/http/openapi.ts";
import { serializerCompiler } from "./platform/http/serialization.ts";
import { refuseInvalidText } from "./platform/http/text-guard.ts";
import type { App } from "./platform/http/types.ts";
import { validatorCompiler } from "./platform/http/validation.ts";
import { newId } from "./platform/ids.ts";
import { JobWorker } from "./platform/jobs.ts";
import {
  CONVERSATION_CHANGED,
  type ConversationChange,
  inProcessLive,
  postgresLive,
  SESSIONS_ENDED,
  type SessionsEnded,
} from "./platform/live.ts";
import { createLogger } from "./platform/logging.ts";
import { createSafeFetcher } from "./platform/safe-fetch.ts";
import { openStorage } from "./platform/storage.ts";
import type { TlsMaterial } from "./platform/tls.ts";

export const VERSION = "0.1.0";

/** Default request body limit; the incoming-message route raises its own (embedded files). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface BuildOptions {
  /** Capture logs (tests). */
  logStream?: DestinationStream;
  /** Serve HTTPS with this material; without it the app is only used through inject (tests). */
  tls?: TlsMaterial;
  /** Worker tuning (tests use short polls and leases). */
  worker?: { concurrency?: number; pollIntervalMs?: number; leaseMs?: number };
  modules?: Module[];
  /** The web app's built files (default packages/web/dist). */
  webDist?: string;
}

export interface Parley {
  app: App;
  /** Every route the app serves (method, URL template, auth mode): the route-security table walks it. */
  routes: Array<{ method: string; url: string; auth: string | undefined }>;
  ctx: AppContext;
  db: Db;
  worker: JobWorker;
  /** Stop accepting, finish in-flight requests and jobs, close storage. */
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<Parley> {
  const logger = createLogger(config.logLevel, options.logStream);
  const fastify = Fastify({
    loggerInstance: logger,
    https: options.tls
      ? {
          key: options.tls.key,
          cert: options.tls.cert,
          // Slow clients (a body trickling one byte every few seconds) are cut off at the request
          // timeout; Node checks for them every second instead of every 30 s.
          connectionsCheckingInterval: 1000,
        }
      : null,
    requestTimeout: config.requestTimeoutMs,
    trustProxy: config.trustProxy,
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      // Sortable like every other id, and from the pooled randomness (one crypto call per request cost
      // several microseconds on the hot path).
      return typeof given === "string" && REQUEST_ID.test(given) ? given : newId("request");
    },
    forceCloseConnections: "idle",
    return503OnClosing: true,
    frameworkErrors: frameworkErrorHandler,
    // Malformed HTTP and headers past Node's limit are answered before Fastify sees a request: still
    // JSON in the error model, never Node's bare status line.
    clientErrorHandler: (err, socket) => {
      const tooLarge = (err as { code?: string }).code === "HPE_HEADER_OVERFLOW";
      const status = tooLarge ? 431 : 400;
      const body = JSON.stringify({
        error: tooLarge
          ? { code: "HEADERS_TOO_LARGE", message: "The request headers are too large" }
          : { code: "VALIDATION_ERROR", message: "The request is not valid HTTP" },
      });
      if (socket.writable) {
        socket.end(
          `HTTP/1.1 ${status} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
            `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
            `connection: close\r\n\r\n${body}`,
        );
      } else socket.destroy();
    },
    ajv: { customOptions: { removeAdditional: "all" } },
  });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  // JSON only: a text/plain body is 415 UNSUPPORTED_MEDIA_TYPE like any other non-JSON type, not a
  // string that then fails validation.
  app.removeContentTypeParser("text/plain");
  app.addHook("preValidation", refuseInvalidText);
  app.decorateRequest("auth", null);

  const db = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await db.migrate();
  const worker = new JobWorker({
    db,
    log: logger.child({ component: "worker" }),
    leaseMs: config.jobLeaseMs,
    ...options.worker,
  });
  const fetcher = createSafeFetcher({ allowCidrs: config.outboundAllowCidrs, maxConnections: 64 });
  const storage = await openStorage(config);
  if (config.storage && !config.secretKey) {
    // With no shared volume, each node would make its own DATA_DIR/secret.key and read no other
    // node's channel secrets.
    logger.warn(
      "STORAGE_URL is set but PARLEY_SECRET_KEY is not: every API and worker process must share one key " +
        "(docs/operations.md, Files without a shared volume)",
    );
  }
  const modules = options.modules ?? MODULES;
  const caches = new AppCaches();
  const live =
    db.dialect === "postgres"
      ? postgresLive(
          config.databaseUrl ?? "",
          async (channel, payloads) => {
            await db.runNamed!(
              { name: "parley_live_notify_v1", text: "select pg_notify($1, p) from unnest($2::text[]) as p" },
              [channel, payloads],
            );
          },
          (err) => logger.warn({ err }, "live update listener failed"),
        )
      : inProcessLive();
  // Conversations changed inside committed writes (messages in or out, inbox state) reach the browsers.
  db.onCommit(CONVERSATION_CHANGED, (payload) => {
    const change = payload as ConversationChange;
    live.publish(change.accountId, { conversationId: change.conversationId });
  });
  // Sessions ended (sign-out, removal, password change): their live streams end on every node.
  db.onCommit(SESSIONS_ENDED, (payload) => {
    live.publishSessionsEnded((payload as SessionsEnded).accountId);
  });
  const ctx: AppContext = {
    config,
    db,
    worker,
    log: logger,
    fetcher,
    storage,
    onAccountCreated: accountCreatedHooks(modules),
    onHumanReply: humanReplyHooks(modules),
    onContactErased: contactErasedHooks(modules),
    caches,
    live,
    // A fresh install (no account yet) can be onboarded from elsewhere only with this token.
    setup: { token: await newSetupToken(db) },
  };

  // Security headers on every answer (the web app, /app/api, /v1, errors included), set before any
  // other hook can refuse the request. Routes that serve other content set their own stricter policy
  // (the media routes: default-src 'none'; sandbox). docs/web.md, "Security headers".
  await app.register(helmet, SECURITY_HEADERS);
  // The chat widget is embedded in other sites: its script and public endpoints may be loaded from any
  // origin (the endpoints check Origin themselves), so they are not same-origin-only resources.
  app.addHook("onRoute", (route) => {
    if (route.url === "/widget.js" || route.url.startsWith("/widget/")) {
      route.config = {
        ...route.config,
        helmet: { crossOriginResourcePolicy: { policy: "cross-origin" } },
      } as typeof route.config;
    }
  });
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
    cutOffSlowBody(request.raw, config.requestTimeoutMs);
    // Behind a TLS-terminating proxy, only requests that arrived over HTTPS are served.
    if (config.trustProxy && !isHealthRoute(request)) {
      const proto = String(request.headers["x-forwarded-proto"] ?? "")
        .split(",")[0]
        ?.trim();
      if (proto !== "https") throw new AppError("HTTPS_REQUIRED", "Only HTTPS is accepted");
    }
  });
  const keyCache = new KeyCache(
    db.dataVersion
      ? sqliteChangeSignal(db.dataVersion)
      : postgresChangeSignal(config.databaseUrl ?? "", (err) =>
          logger.warn({ err }, "account change listener failed"),
        ),
  );
  // Loaded only when configured: every module kept out of memory lowers the process's footprint.
  const redis = config.redisUrl
    ? new (await import("ioredis")).Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 })
    : null;
  app.addHook(
    "onRequest",
    createAuthHook(db, keyCache, new AuthFailureLimiter(config.authFailuresPerMinute, redis)),
  );
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    hook: "onRequest",
    enableDraftSpec: true,
    ...(redis ? { redis, nameSpace: "parley-rl:" } : {}),
    // Per API key; the web app's session routes per signed-in user (their session hook runs before this
    // one), so a team behind one office address does not share one budget; routes without a key or a
    // session (sign-in, onboarding, docs) per client address.
    keyGenerator: (request: FastifyRequest) => {
      if (request.auth) return `key:${request.auth.keyId}`;
      const userId = signedInUserId(request);
      return userId ? `user:${userId}` : `ip:${request.ip}`;
    },
    // The web app's files (its assets, index.html) are not limited at all.
    allowList: (request: FastifyRequest) => isWebAppFileRequest(request),
    errorResponseBuilder: (_request, context) =>
      new AppError(
        "RATE_LIMITED",
        `Rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`,
      ),
  });

  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Parley API",
        version: VERSION,
        description:
          "Messaging and contact-management API with an AI bot. Authenticate with the `apiKey` query parameter " +
          '(or the `x-api-key` header). Errors use the structured form `{"error":{"code","message"}}` except ' +
          'on /v1/incoming_custom_channel_message, which answers `{"error":"…"}`. Error codes: ' +
          ERROR_CODES.map((c) => `${c} (${ERROR_STATUS[c]})`).join(", "),
      },
      servers: [{ url: "/" }],
      components: {
        securitySchemes: {
          apiKeyQuery: { type: "apiKey", in: "query", name: "apiKey" },
          apiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key" },
        },
      },
      security: [{ apiKeyQuery: [] }, { apiKeyHeader: [] }],
      tags: API_TAGS,
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.addHook("onRoute", documentRoute);
  // Each route's auth mode is read once the app is ready: a plugin's own onRoute hooks run after this
  // one (the /app/api plugin makes its routes session routes).
  const declared: RouteOptions[] = [];
  app.addHook("onRoute", (route) => {
    declared.push(route);
  });

  app.get("/healthz", { config: { auth: "none", rateLimit: false }, schema: { hide: true } }, async () => ({
    status: "ok",
  }));
  app.get(
    "/readyz",
    { config: { auth: "none", rateLimit: false }, schema: { hide: true } },
    async (_req, reply) => {
      try {
        await db.ping();
        return { status: "ok", database: db.dialect };
      } catch {
        return reply.code(503).send({ status: "unavailable", database: db.dialect });
      }
    },
  );
  app.get("/v1/openapi.json", { config: { auth: "none" }, schema: { hide: true } }, async () =>
    app.swagger(),
  );

  for (const mod of modules) {
    await mod.routes?.(app, ctx);
    mod.jobs?.(worker, ctx);
  }

  // The web app (packages/web/dist) at /, its client-side routes answered with index.html.
  const webApp = await registerWebApp(app, options.webDist);
  app.setNotFoundHandler((request, reply) => {
    // The web app's wildcard route also receives the API URLs the router refused for a path segment
    // past Fastify's maxParamLength (100): they keep their 414, as without the web app.
    const path = request.url.split("?")[0] ?? "";
    if (isApiPath(path) && path.split("/").some((segment) => segment.length > 100)) {
      return sendError(request, reply, "URI_TOO_LONG", "A path segment of the URL is too long");
    }
    return (
      webApp(request, reply) ??
      sendError(
        request,
        reply,
        "NOT_FOUND",
        `No route for ${request.method} here; the API is described at /v1/openapi.json`,
      )
    );
  });

  await app.ready();
  const routes: Parley["routes"] = declared.flatMap((route) =>
    [route.method]
      .flat()
      .filter((method) => method !== "HEAD")
      .map((method) => ({ method, url: route.url, auth: route.config?.auth })),
  );

  let closed = false;
  return {
    app,
    routes,
    ctx,
    db,
    worker,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await worker.stop();
      for (const mod of modules) await mod.close?.();
      await fetcher.close();
      await storage.close();
      await keyCache.close();
      await live.close();
      if (redis) redis.disconnect();
      caches.clear();
      await db.close();
    },
  };
}

/**
 * The security headers (@fastify/helmet): a Content-Security-Policy allowing only the app's own files
 * (no inline script; inline styles, which Mantine injects, are allowed), no framing anywhere
 * (clickjacking), nosniff, HSTS for a year and no referrer. Helmet's other defaults stay.
 */
const SECURITY_HEADERS = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      "default-src": ["'self'"],
      "base-uri": ["'self'"],
      "connect-src": ["'self'"],
      "font-src": ["'self'", "data:"],
      "form-action": ["'self'"],
      "frame-ancestors": ["'none'"],
      "img-src": ["'self'", "data:", "blob:"],
      "object-src": ["'none'"],
      "script-src": ["'self'"],
      "script-src-attr": ["'none'"],
      "style-src": ["'self'", "'unsafe-inline'"],
    },
  },
  frameguard: { action: "deny" as const },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
  referrerPolicy: { policy: "no-referrer" as const },
};

/** The document's tags: every operation has one of these (checked by documentRoute). */
const API_TAGS = [
  { name: "account", description: "The calling account's settings" },
  { name: "contacts", description: "Contacts: create, look up, update" },
  { name: "lists", description: "Contact lists and their members" },
  { name: "messages", description: "Incoming and outgoing custom channel messages, history, resend" },
  { name: "conversations", description: "Conversations and their bot state" },
  { name: "canned-replies", description: "Canned replies: account-wide snippets for the reply box" },
  { name: "campaigns", description: "Bot campaigns: instructions, knowledge, routing" },
  { name: "channels", description: "Built-in channels: the web chat widget (more to come)" },
  { name: "subaccounts", description: "Agencies: sub-accounts, credit grants, auto-recharge" },
  { name: "credits", description: "Credit balances and history" },
  { name: "app", description: "The web app's session-authenticated API (not for API keys)" },
];
const TAG_NAMES = new Set(API_TAGS.map((t) => t.name));

/**
 * Every documented route has an operationId (the SDK is generated from them) and a declared tag, and
 * lists the failures any route can answer, in its own error form: 413 and 415 wherever it takes a
 * body, 500 and 503 everywhere. A route missing its id or tag stops the app from starting.
 */
function documentRoute(route: RouteOptions): void {
  const schema = route.schema as
    | {
        hide?: boolean;
        operationId?: string;
        tags?: string[];
        body?: unknown;
        response?: Record<string, unknown>;
      }
    | undefined;
  if (!schema || schema.hide || !/^\/(v1|app\/api)\//.test(route.url)) return;
  if (!schema.operationId) throw new Error(`route ${route.method} ${route.url} has no operationId`);
  const unknownTag = (schema.tags ?? []).find((t) => !TAG_NAMES.has(t));
  if (!schema.tags?.length || unknownTag) {
    throw new Error(`route ${route.method} ${route.url} needs a declared tag (got ${unknownTag ?? "none"})`);
  }
  const form =
    (route.config as { errorForm?: string } | undefined)?.errorForm === "simple"
      ? SimpleError
      : StructuredError;
  const statuses = [500, 503, ...(schema.body ? [413, 415] : [])];
  schema.response = { ...Object.fromEntries(statuses.map((s) => [s, form])), ...(schema.response ?? {}) };
}

/**
 * A body must arrive whole within the request timeout. Node's own timeout covers the headers; once the
 * request is handed over, a body trickling in one byte at a time would hold the connection (and the
 * handler's memory) for as long as the client likes.
 */
function cutOffSlowBody(raw: FastifyRequest["raw"], timeoutMs: number): void {
  const length = Number(raw.headers["content-length"] ?? 0);
  if (length === 0 && raw.headers["transfer-encoding"] === undefined) return;
  const timer = setTimeout(() => raw.socket?.destroy?.(), timeoutMs);
  timer.unref();
  const clear = () => clearTimeout(timer);
  raw.once("end", clear);
  raw.once("close", clear);
}

function isHealthRoute(request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  return url === "/healthz" || url === "/readyz";
}

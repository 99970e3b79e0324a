// The web app's files (packages/web/dist) at /: hashed /assets/* cached for good, index.html for
// every client-side route (SPA fallback, never cached), precompressed files when the client takes
// them. API paths keep their JSON 404.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "../../platform/http/types.ts";

export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../web/dist");

const API_PREFIXES = ["/v1/", "/app/api/", "/docs", "/healthz", "/readyz"];

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Parley</title></head>
<body><main><h1>Parley</h1><p>The web app is not built. Run <code>npm start</code> (it builds
packages/web) or <code>npm run build -w @parley/web</code>, then reload. The API is at <a href="/docs">/docs</a>.</p></main></body></html>
`;

export function isApiPath(url: string): boolean {
  const p = url.split("?")[0] ?? "";
  return p === "/v1" || p === "/app/api" || API_PREFIXES.some((prefix) => p.startsWith(prefix));
}

/**
 * A request the web app's files answer (a file, or index.html for a client-side route): the rate limit
 * leaves these alone (a page load is a burst of them, and they cost no more than a file read).
 */
export function isWebAppFileRequest(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  return (route === "/*" || route === "/") && !isApiPath(request.url);
}

export type WebAppFallback = (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;

/** Serves the built files; returns the not-found fallback (index.html for client-side routes). */
export async function registerWebApp(app: App, root: string = WEB_DIST): Promise<WebAppFallback> {
  const distRoot = fs.existsSync(path.join(root, "index.html")) ? root : null;
  const fallback: WebAppFallback = (request, reply) => webAppNotFound(distRoot, request, reply);
  if (!distRoot) return fallback;
  await app.register(fastifyStatic, {
    root: distRoot,
    prefix: "/",
    index: "index.html",
    wildcard: true,
    cacheControl: false,
    serveDotFiles: false,
    // The build writes a .br and a .gz next to each text file (packages/web/vite.config.ts): sent as
    // they are when Accept-Encoding allows (br first), with Content-Encoding and Vary: Accept-Encoding.
    preCompressed: true,
    setHeaders(reply, filePath) {
      const rel = path.relative(distRoot, filePath);
      reply.header(
        "cache-control",
        rel.startsWith(`assets${path.sep}`) ? "public, max-age=31536000, immutable" : "no-cache",
      );
    },
  });
  return fallback;
}

/**
 * For a GET of a client-side route: index.html (or a page saying the app is not built). Undefined
 * for everything else, which gets the JSON 404.
 */
function webAppNotFound(
  distRoot: string | null,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | undefined {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  if (isApiPath(request.url)) return undefined;
  // A missing hashed file is a 404, not the app's page (a stale tab would parse HTML as a script).
  if (request.url.startsWith("/assets/")) return undefined;
  reply.header("cache-control", "no-cache");
  if (!distRoot) return reply.code(200).type("text/html; charset=utf-8").send(NOT_BUILT);
  return reply.code(200).sendFile("index.html", distRoot, { cacheControl: false });
}

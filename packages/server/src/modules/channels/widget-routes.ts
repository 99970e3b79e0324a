// The chat widget's public endpoints (docs/channels.md, "The widget"): no key and no session, so every
// route first counts the client address, finds the active `web` channel, and checks the page's Origin
// against its allowedOrigins (403 otherwise, and no CORS header: the page can read nothing). CORS is
// answered for exactly that origin. A visitor token (Authorization: Bearer, or ?token= for the event
// stream, which EventSource cannot give headers) names one visitor of this channel only.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import type { AppContext } from "../../context.ts";
import type { WidgetVisitorRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import type { App } from "../../platform/http/types.ts";
import { brandForAccount } from "../branding/service.ts";
import { openBlob } from "../messaging/media/store.ts";
import {
  bearer,
  checkOrigin,
  createVisitor,
  markVisitorSeen,
  openChannel,
  publicConfig,
  requireVisitor,
  sendVisitorMessage,
  setVisitorEmail,
  visitorAttachment,
  visitorConversationId,
  visitorMessages,
  WIDGET_MAX_ATTACHMENT_BYTES,
  WIDGET_MAX_BODY_CHARS,
  type WidgetChannel,
  WindowLimiter,
} from "./widget-service.ts";

/** The built widget (packages/widget/dist/widget.js, built by scripts/build-web.mjs). */
export const WIDGET_JS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../../widget/dist/widget.js",
);
const PREFIX = "/widget/v1/channels/:channelId";
const SSE_PING_MS = 25_000;
/** Messages a (re)connected event stream sends first; the widget merges them by id. */
const SSE_BACKLOG = 50;
/** Messages each later read looks at (the ones that changed since are among the newest). */
const SSE_RECENT = 20;

const ChannelParams = Type.Object({ channelId: Type.String({ maxLength: 64 }) });
const MessageParams = Type.Object({
  channelId: Type.String({ maxLength: 64 }),
  messageId: Type.String({ maxLength: 64 }),
});
const ClientMessageId = Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" });
const SendBody = Type.Object({
  // The service trims and checks the exact cap; this only bounds what is parsed.
  body: Type.String({ maxLength: WIDGET_MAX_BODY_CHARS * 2 }),
  clientMessageId: ClientMessageId,
});
const AttachmentBody = Type.Object({
  clientMessageId: ClientMessageId,
  contentType: Type.String({ maxLength: 100 }),
  /** The file, base64. */
  data: Type.String({ minLength: 1, maxLength: Math.ceil((WIDGET_MAX_ATTACHMENT_BYTES * 4) / 3) + 8 }),
  body: Type.Optional(Type.String({ maxLength: WIDGET_MAX_BODY_CHARS * 2 })),
});
const EmailBody = Type.Object({ email: Type.String({ maxLength: 254 }) });
const MessagesQuery = Type.Object({ after: Type.Optional(Type.String({ maxLength: 64 })) });
const EventsQuery = Type.Object({ token: Type.String({ maxLength: 200 }) });

const opened = new WeakMap<FastifyRequest, WidgetChannel>();

function channelOf(request: FastifyRequest): WidgetChannel {
  const c = opened.get(request);
  if (!c) throw new Error("widget route reached without its channel");
  return c;
}

export async function widgetRoutes(app: App, ctx: AppContext): Promise<void> {
  const limiter = ctx.caches.get("widget-limits", () => new WindowLimiter());
  const address = (request: FastifyRequest) =>
    (ctx.config.trustProxy ? request.ip : request.socket.remoteAddress) ?? "";

  /** Before any body is read: the address's allowance, the channel, the Origin; then CORS for it. */
  const guard = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header("cache-control", "no-store");
    reply.header("vary", "Origin");
    if (request.method !== "OPTIONS") {
      limiter.hit(`ip:${address(request)}`, ctx.config.widgetRequestsPerMinute, "requests from this address");
    }
    const { channelId } = request.params as { channelId: string };
    const channel = await openChannel(ctx, channelId);
    const origin = checkOrigin(channel, request.headers.origin);
    reply.header("access-control-allow-origin", origin);
    // The widget's script and answers are meant for other sites (helmet's same-origin default would block them).
    reply.header("cross-origin-resource-policy", "cross-origin");
    opened.set(request, channel);
  };
  const open = { config: { auth: "none" as const, rateLimit: false as const }, onRequest: guard };

  const visitorOf = (request: FastifyRequest, token?: string): Promise<WidgetVisitorRow> =>
    requireVisitor(ctx, channelOf(request), token ?? bearer(request.headers.authorization));

  // CORS preflight for the JSON posts and the Authorization header.
  app.options(`${PREFIX}/*`, { ...open, schema: { hide: true } }, async (_request, reply) => {
    return reply
      .header("access-control-allow-methods", "GET, POST")
      .header("access-control-allow-headers", "authorization, content-type")
      .header("access-control-max-age", "600")
      .code(204)
      .send();
  });

  app.get(`${PREFIX}/config`, { ...open, schema: { hide: true, params: ChannelParams } }, async (request) => {
    const channel = channelOf(request);
    return publicConfig(channel, await brandForAccount(ctx.db, channel.row.account_id));
  });

  app.post(
    `${PREFIX}/visitors`,
    { ...open, schema: { hide: true, params: ChannelParams } },
    async (request, reply) => {
      limiter.hit(
        `new:${address(request)}`,
        Math.max(1, Math.floor(ctx.config.widgetRequestsPerMinute / 10)),
        "new visitors from this address",
      );
      return reply.code(201).send(await createVisitor(ctx, channelOf(request)));
    },
  );

  app.get(
    `${PREFIX}/messages`,
    { ...open, schema: { hide: true, params: ChannelParams, querystring: MessagesQuery } },
    async (request) => {
      const visitor = await visitorOf(request);
      return visitorMessages(ctx, channelOf(request), visitor, request.query.after);
    },
  );

  const countMessage = (visitor: WidgetVisitorRow) =>
    limiter.hit(`visitor:${visitor.id}`, ctx.config.widgetMessagesPerMinute, "messages from this visitor");

  app.post(
    `${PREFIX}/messages`,
    { ...open, bodyLimit: 64 * 1024, schema: { hide: true, params: ChannelParams, body: SendBody } },
    async (request, reply) => {
      const visitor = await visitorOf(request);
      countMessage(visitor);
      const { message, duplicate } = await sendVisitorMessage(ctx, channelOf(request), visitor, request.body);
      return reply.code(duplicate ? 200 : 201).send(message);
    },
  );

  app.post(
    `${PREFIX}/attachments`,
    {
      ...open,
      bodyLimit: Math.ceil((WIDGET_MAX_ATTACHMENT_BYTES * 4) / 3) + 64 * 1024,
      schema: { hide: true, params: ChannelParams, body: AttachmentBody },
    },
    async (request, reply) => {
      const visitor = await visitorOf(request);
      countMessage(visitor);
      const b = request.body as Static<typeof AttachmentBody>;
      const { message, duplicate } = await sendVisitorMessage(ctx, channelOf(request), visitor, {
        body: b.body ?? "",
        clientMessageId: b.clientMessageId,
        attachment: { contentType: b.contentType, data: b.data },
      });
      return reply.code(duplicate ? 200 : 201).send(message);
    },
  );

  app.post(
    `${PREFIX}/email`,
    { ...open, bodyLimit: 4096, schema: { hide: true, params: ChannelParams, body: EmailBody } },
    async (request, reply) => {
      const visitor = await visitorOf(request);
      countMessage(visitor);
      await setVisitorEmail(ctx, channelOf(request), visitor, request.body.email);
      return reply.code(204).send();
    },
  );

  // The panel is open and on screen: the replies so far are seen (the inbox shows Seen).
  app.post(
    `${PREFIX}/seen`,
    { ...open, schema: { hide: true, params: ChannelParams } },
    async (request, reply) => {
      const visitor = await visitorOf(request);
      await markVisitorSeen(ctx, channelOf(request), visitor);
      return reply.code(204).send();
    },
  );

  app.get(
    `${PREFIX}/messages/:messageId/attachment`,
    { ...open, schema: { hide: true, params: MessageParams } },
    async (request, reply) => {
      const visitor = await visitorOf(request);
      const file = await visitorAttachment(ctx, channelOf(request), visitor, request.params.messageId);
      const stored = await openBlob(ctx.storage, file.sha256);
      if (!stored) throw new AppError("MESSAGE_NOT_FOUND", "No such attachment");
      return reply
        .type(file.contentType)
        .header("content-length", stored.size)
        .header("x-content-type-options", "nosniff")
        .header("content-security-policy", "default-src 'none'; sandbox")
        .send(stored.body);
    },
  );

  // ---- the visitor's live stream (SSE) -----------------------------------------------------------

  const streams = new Set<FastifyReply>();
  app.addHook("preClose", async () => {
    for (const r of streams) r.raw.end();
    streams.clear();
  });

  app.get(
    `${PREFIX}/events`,
    { ...open, schema: { hide: true, params: ChannelParams, querystring: EventsQuery } },
    async (request, reply) => {
      const channel = channelOf(request);
      const visitor = await visitorOf(request, request.query.token);
      let conversationId = await visitorConversationId(ctx, channel, visitor);
      const headers: Record<string, string> = {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
        "x-request-id": request.id,
      };
      for (const [k, v] of Object.entries(reply.getHeaders())) {
        if (k.startsWith("access-control-") || k === "vary" || k === "cross-origin-resource-policy") {
          headers[k] = String(v);
        }
      }
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, headers);
      raw.write(": connected\n\n");

      const seen = new Set<string>();
      let closed = false;
      let running = false;
      let again = false;
      let unsubscribeConversation: (() => void) | null = null;
      const listenConversation = () => {
        if (conversationId && !unsubscribeConversation) {
          unsubscribeConversation = ctx.live.subscribeVisitor(conversationId, (event) => {
            if (event.type === "typing") raw.write("event: typing\ndata: {}\n\n");
            else void check();
          });
        }
      };
      // Re-reads the conversation and sends what this stream has not sent yet (one read at a time).
      const check = async (): Promise<void> => {
        if (closed) return;
        if (running) {
          again = true;
          return;
        }
        running = true;
        try {
          do {
            again = false;
            conversationId ??= await visitorConversationId(ctx, channel, visitor);
            listenConversation();
            if (!conversationId) break;
            // The newest few are enough once the backlog went out (a read per change, kept small).
            const all = await visitorMessages(
              ctx,
              channel,
              visitor,
              undefined,
              seen.size ? SSE_RECENT : SSE_BACKLOG,
            );
            for (const m of all) {
              if (seen.has(m.id) || closed) continue;
              seen.add(m.id);
              raw.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
            }
          } while (again && !closed);
        } catch (err) {
          request.log.warn({ err }, "widget stream read failed");
        } finally {
          running = false;
        }
      };
      // Messages of the conversation arrive with the account's "conversation changed" events (a
      // reply's Sent, the bot's answer, on any node); the visitor's own posts from another tab on its
      // visitor key; a person typing on the conversation's key.
      const unsubscribeAccount = ctx.live.subscribe(visitor.account_id, (event) => {
        if (event.conversationId && event.conversationId === conversationId) void check();
      });
      const unsubscribeVisitor = ctx.live.subscribeVisitor(visitor.id, () => void check());
      listenConversation();
      void check();

      const ping = setInterval(() => {
        raw.write(": ping\n\n");
        // A paused or deleted channel, or a removed origin, ends the stream.
        openChannel(ctx, channel.row.id)
          .then((c) => checkOrigin(c, request.headers.origin))
          .catch(() => raw.end());
      }, SSE_PING_MS);
      ping.unref();
      streams.add(reply);
      const stop = () => {
        if (closed) return;
        closed = true;
        clearInterval(ping);
        unsubscribeAccount();
        unsubscribeVisitor();
        unsubscribeConversation?.();
        streams.delete(reply);
      };
      raw.on("close", stop);
      request.raw.on("close", stop);
    },
  );

  // ---- the script itself ---------------------------------------------------------------------------

  let cached: { mtimeMs: number; body: Buffer; etag: string } | null = null;
  app.get("/widget.js", { config: { auth: "none" }, schema: { hide: true } }, async (request, reply) => {
    const stat = await fs.promises.stat(WIDGET_JS).catch(() => null);
    if (!stat) {
      throw new AppError("NOT_FOUND", "The widget is not built: run `npm run build` (scripts/build-web.mjs)");
    }
    if (!cached || cached.mtimeMs !== stat.mtimeMs) {
      const body = await fs.promises.readFile(WIDGET_JS);
      const { createHash } = await import("node:crypto");
      cached = {
        mtimeMs: stat.mtimeMs,
        body,
        etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`,
      };
    }
    // Not versioned (the snippet names /widget.js): always revalidated, cheaply by its ETag.
    reply
      .header("cache-control", "no-cache")
      .header("etag", cached.etag)
      .header("cross-origin-resource-policy", "cross-origin")
      .header("access-control-allow-origin", "*")
      .header("x-content-type-options", "nosniff");
    if (request.headers["if-none-match"] === cached.etag) return reply.code(304).send();
    return reply.type("application/javascript; charset=utf-8").send(cached.body);
  });
}

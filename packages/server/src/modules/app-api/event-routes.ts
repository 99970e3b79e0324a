// /app/api/events: the web app's live updates (server-sent events), one stream per open tab. Each
// event names a conversation that changed (or, as `presence`, who is viewing or typing in it); the
// stream ends when its session does.
import type { FastifyReply } from "fastify";
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { resolveSession, SESSION_COOKIE } from "../accounts/sessions.ts";
import type { PresenceBoard } from "./presence.ts";
import { EventStream } from "./responses.ts";
import { readCookie, sessionOf } from "./session.ts";

const SSE_PING_MS = 25_000;

export function eventRoutes(app: App, ctx: AppContext, presence?: PresenceBoard): void {
  const streams = new Set<FastifyReply>();
  app.addHook("preClose", async () => {
    for (const r of streams) r.raw.end();
    streams.clear();
  });

  app.get(
    "/events",
    {
      config: { rateLimit: false },
      schema: { operationId: "appEvents", response: { 200: EventStream }, tags: ["app"] },
    },
    async (request, reply) => {
      const accountId = sessionOf(request).account.id;
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
        "x-request-id": request.id,
      });
      raw.write(": connected\n\n");
      // The stream ends as soon as its session does: at once when sessions of the account end
      // (sign-out, removal, password change, on any node), and at each ping (expiry).
      const token = readCookie(request.headers.cookie, SESSION_COOKIE) ?? "";
      const recheck = () => {
        resolveSession(ctx.db, token).then(
          (still) => {
            if (!still) raw.end();
          },
          () => {},
        );
      };
      const stopRechecks = ctx.live.subscribeSessionsEnded(accountId, recheck);
      const unsubscribe = ctx.live.subscribe(accountId, (event) => {
        raw.write(
          `event: conversation\ndata: ${JSON.stringify({ conversationId: event.conversationId })}\n\n`,
        );
      });
      // Who is viewing or typing where changed: the conversation's whole list (the app leaves its own person out).
      const stopPresence = presence?.subscribe(accountId, (conversationId, people) => {
        raw.write(`event: presence\ndata: ${JSON.stringify({ conversationId, people })}\n\n`);
      });
      const ping = setInterval(() => {
        raw.write(": ping\n\n");
        recheck();
      }, SSE_PING_MS);
      ping.unref();
      streams.add(reply);
      const stop = () => {
        clearInterval(ping);
        unsubscribe();
        stopPresence?.();
        stopRechecks();
        streams.delete(reply);
      };
      raw.on("close", stop);
      request.raw.on("close", stop);
    },
  );
}

// A provider channel's inbound URL (docs/channels.md): no key and no session, since the provider
// proves itself by its signature or secret token, checked over the raw bytes it sent, so this scope
// reads every body as bytes (JSON from Meta and Telegram, a form from Twilio).
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import type { InboundReply } from "./adapters/types.ts";
import { receiveInbound, verifySubscription } from "./inbound-service.ts";
import { publicUrlOf } from "./service.ts";

/** Meta batches up to 1,000 updates per call; a megabyte holds them with room to spare. */
const INBOUND_BODY_LIMIT = 1024 * 1024;
const PATH = "/v1/channels/:channelId/inbound";
const Params = Type.Object({ channelId: Type.String({ maxLength: 64 }) });

function headersOf(request: FastifyRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(request.headers)) {
    out[key] = Array.isArray(value) ? value[0] : value;
  }
  return out;
}

function stringQuery(query: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (typeof value === "string") out[key] = value;
    else if (Array.isArray(value) && typeof value[0] === "string") out[key] = value[0];
  }
  return out;
}

export async function inboundRoutes(app: App, ctx: AppContext): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "*",
      { parseAs: "buffer", bodyLimit: INBOUND_BODY_LIMIT },
      (_req, body, done) => done(null, body),
    );
    const options = {
      // Providers call from many addresses in bursts; the signature, not a budget, keeps others out.
      config: { auth: "none" as const, rateLimit: false as const },
      schema: { hide: true, params: Params },
    };
    const send = (reply: FastifyReply, answer: InboundReply) =>
      reply
        .code(answer.status)
        .header("cache-control", "no-store")
        .type(answer.contentType)
        .send(answer.body);

    scope.get(PATH, options, async (request, reply) => {
      const { channelId } = request.params as { channelId: string };
      return send(reply, await verifySubscription(ctx, channelId, stringQuery(request.query)));
    });

    scope.post(PATH, options, async (request, reply) => {
      const { channelId } = request.params as { channelId: string };
      const answer = await receiveInbound(ctx, channelId, {
        publicUrl: `${publicUrlOf(ctx.config)}${request.url}`,
        query: stringQuery(request.query),
        headers: headersOf(request),
        rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      });
      return send(reply, answer);
    });
  });
}

// The `messenger` and `instagram` channels: the Messenger Platform as Meta documents it (Instagram
// messaging goes through the same platform). Webhooks (entry[].messaging[] of object "page" or
// "instagram") come signed with the app secret; replies go to POST {graph}/{version}/{page id}/messages
// with the page access token and messaging_type RESPONSE, inside the 24-hour window only. A customer is
// known by its page-scoped id (PSID, or IGSID on Instagram). A bot's "Did you mean" choices go as quick
// replies (both platforms have them, with the same shape).
import { MAX_MEDIA_BYTES } from "../../messaging/media/sniff.ts";
import { suggestionsOf } from "../../messaging/suggestions.ts";
import { buttonLabels, pressedBody } from "./choice-buttons.ts";
import { arr, obj, str } from "./json.ts";
import {
  authenticateMeta,
  graphPost,
  outsideWindow,
  parseMetaConfig,
  verifyMetaSubscription,
} from "./meta.ts";
import { CUSTOMER_WINDOW_MS, fetchBytes } from "./provider-http.ts";
import type { ChannelAdapter, ChannelType, InboundEvent } from "./types.ts";

/** The content types Meta's attachment kinds stand for, until the file itself says better. */
const ATTACHMENT_TYPES: Record<string, string> = {
  image: "image/jpeg",
  video: "video/mp4",
  audio: "audio/mpeg",
  file: "application/pdf",
};

/** Send API quick replies: at most 13, each title at most 20 characters. */
const QUICK_REPLIES_MAX = 13;
const QUICK_REPLY_TITLE_MAX = 20;

function parseMessaging(prefix: "fb" | "ig", payload: unknown): InboundEvent[] {
  const events: InboundEvent[] = [];
  for (const entry of arr(obj(payload).entry)) {
    for (const raw of arr(obj(entry).messaging)) {
      const e = obj(raw);
      const sender = str(obj(e.sender).id);
      const message = obj(e.message);
      const mid = str(message.mid);
      if (sender && mid && message.is_echo !== true) {
        const attachment = obj(arr(message.attachments)[0]);
        const type = str(attachment.type);
        const url = str(obj(attachment.payload).url);
        const media =
          url && type && ATTACHMENT_TYPES[type] ? { ref: url, contentType: ATTACHMENT_TYPES[type]! } : null;
        const quickReply = str(obj(message.quick_reply).payload);
        events.push({
          kind: "message",
          externalId: `${prefix}:${mid}`,
          address: sender,
          contact: { externalId: `${prefix}:${sender}`, firstName: null, lastName: null },
          // A quick reply (one of the bot's choices) is stored as the choice's number, which the bot
          // reads exactly; its text is the label, cut to 20 characters.
          body: quickReply
            ? pressedBody(quickReply, str(message.text))
            : (str(message.text) ??
              (media || !type ? "" : `[a ${type} attachment, which Parley does not show]`)),
          media,
        });
      }
      // Delivery receipts name the messages; Instagram's read receipts do too (Messenger's give only a
      // watermark time, which Parley does not map to messages).
      for (const id of arr(obj(e.delivery).mids)) {
        if (typeof id === "string")
          events.push({ kind: "status", providerMessageId: id, status: "delivered" });
      }
      const readMid = str(obj(e.read).mid);
      if (readMid) events.push({ kind: "status", providerMessageId: readMid, status: "read" });
    }
  }
  return events;
}

function metaMessagingAdapter(type: ChannelType, product: string, prefix: "fb" | "ig"): ChannelAdapter {
  return {
    type,
    secretKeys: ["pageAccessToken", "appSecret", "verifyToken"],
    parseConfig: (input, previous) =>
      parseMetaConfig(input, previous, {
        idKey: "pageId",
        idHint: `the ${product} page's numeric ID`,
        tokenKey: "pageAccessToken",
      }),
    verifySubscription: verifyMetaSubscription,
    authenticate: authenticateMeta,
    parseInbound: (payload) => parseMessaging(prefix, payload),
    // Attachment URLs in the webhook are signed CDN links: fetched as they are.
    fetchMedia: (ctx, _channel, media) => fetchBytes(ctx, media.ref, {}, MAX_MEDIA_BYTES),
    async send(ctx, channel, message, target) {
      if (!target.address) {
        return {
          ok: false,
          retryable: false,
          errorClass: "no_address",
          message: `The contact has not written on ${product}: it can only be answered there`,
        };
      }
      if (target.lastInboundAt === null || Date.now() - target.lastInboundAt > CUSTOMER_WINDOW_MS) {
        return outsideWindow(product);
      }
      const media = target.mediaUrl;
      const kind = message.media_content_type?.startsWith("image/") ? "image" : "file";
      // A bot's "Did you mean": the choices as quick replies under the text (the payload, the
      // choice's number, comes back with the press).
      const choices = media ? [] : suggestionsOf(message.suggestions).slice(0, QUICK_REPLIES_MAX);
      const labels = buttonLabels(choices, QUICK_REPLY_TITLE_MAX);
      const res = await graphPost(
        ctx,
        product,
        `${channel.config.graphVersion}/${channel.config.pageId}/messages`,
        String(channel.secrets.pageAccessToken),
        {
          recipient: { id: target.address },
          messaging_type: "RESPONSE",
          message: media
            ? { attachment: { type: kind, payload: { url: media, is_reusable: false } } }
            : choices.length > 0
              ? {
                  text: message.body,
                  quick_replies: choices.map((c, i) => ({
                    content_type: "text",
                    title: labels[i]!,
                    payload: c.id,
                  })),
                }
              : { text: message.body },
        },
      );
      if (!res.ok) return res.outcome;
      const id = str(obj(res.json).message_id);
      return id ? { ok: true, providerMessageId: id } : { ok: true };
    },
  };
}

export const messengerAdapter = metaMessagingAdapter("messenger", "Messenger", "fb");
export const instagramAdapter = metaMessagingAdapter("instagram", "Instagram", "ig");

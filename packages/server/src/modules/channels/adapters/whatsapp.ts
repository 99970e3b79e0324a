// The `whatsapp` channel: WhatsApp Cloud API, as Meta documents it. Webhooks (messages[] and
// statuses[] under entry[].changes[].value, field "messages") come signed with the app secret; replies
// go to POST {graph}/{version}/{phone number id}/messages with the access token; media is fetched in
// two steps (GET /{media id} for a short-lived URL, then that URL with the same token). A customer is
// known by its wa_id, which is its phone number: the same contact as that phone in the contacts API.
import { cutText } from "../../../platform/text.ts";
import { MAX_MEDIA_BYTES } from "../../messaging/media/sniff.ts";
import { type Suggestion, suggestionsOf } from "../../messaging/suggestions.ts";
import { buttonLabels, pressedBody } from "./choice-buttons.ts";
import { arr, type Json, obj, str } from "./json.ts";
import {
  authenticateMeta,
  graphErrorOf,
  graphPost,
  outsideWindow,
  parseMetaConfig,
  verifyMetaSubscription,
} from "./meta.ts";
import { CUSTOMER_WINDOW_MS, callProvider, fetchBytes } from "./provider-http.ts";
import type { ChannelAdapter, InboundEvent, MediaRef } from "./types.ts";

/** Meta's status words, as Parley's message statuses. */
const STATUSES: Record<string, "sent" | "delivered" | "read" | "failed"> = {
  sent: "sent",
  delivered: "delivered",
  read: "read",
  failed: "failed",
};

function mediaOf(m: Json, type: string): MediaRef | null {
  const media = obj(m[type]);
  const id = str(media.id);
  if (!id) return null;
  return { ref: id, contentType: str(media.mime_type), fileName: str(media.filename) };
}

/** What the customer wrote, for the kinds of WhatsApp message that carry words or a file. */
function bodyOf(m: Json, type: string): { body: string; media: MediaRef | null } | null {
  switch (type) {
    case "text":
      return { body: str(obj(m.text).body) ?? "", media: null };
    case "image":
    case "video":
    case "audio":
    case "document":
    case "sticker":
      return { body: str(obj(m[type]).caption) ?? "", media: mediaOf(m, type) };
    case "reaction": {
      const emoji = str(obj(m.reaction).emoji);
      // An empty emoji is a reaction taken back: nothing to show.
      return emoji ? { body: `Reacted ${emoji}`, media: null } : null;
    }
    case "button":
      return { body: str(obj(m.button).text) ?? "", media: null };
    case "interactive": {
      // A press on one of the bot's choice buttons (or a row of its list): stored as the choice's
      // number, which the bot reads exactly (the label may be cut, and alike for two choices).
      const i = obj(m.interactive);
      const reply = obj(i.type === "list_reply" || !i.button_reply ? i.list_reply : i.button_reply);
      return { body: pressedBody(str(reply.id), str(reply.title)), media: null };
    }
    case "location": {
      const l = obj(m.location);
      const where = [str(l.name), str(l.address)].filter(Boolean).join(", ");
      return { body: `Location: ${where ? `${where} ` : ""}(${l.latitude}, ${l.longitude})`, media: null };
    }
    default:
      return { body: `[a WhatsApp ${type} message, which Parley does not show]`, media: null };
  }
}

export function parseWhatsAppPayload(payload: unknown): InboundEvent[] {
  const events: InboundEvent[] = [];
  for (const entry of arr(obj(payload).entry)) {
    for (const change of arr(obj(entry).changes)) {
      if (obj(change).field !== "messages") continue;
      const value = obj(obj(change).value);
      const names = new Map<string, string>();
      for (const c of arr(value.contacts)) {
        const waId = str(obj(c).wa_id);
        const name = str(obj(obj(c).profile).name);
        if (waId && name) names.set(waId, name);
      }
      for (const raw of arr(value.messages)) {
        const m = obj(raw);
        const from = str(m.from);
        const id = str(m.id);
        const type = str(m.type) ?? "unknown";
        if (!from || !id || !/^\d{6,15}$/.test(from)) continue;
        const content = bodyOf(m, type);
        if (!content) continue;
        events.push({
          kind: "message",
          externalId: `wa:${id}`,
          address: from,
          contact: { phone: `+${from}`, firstName: names.get(from) ?? null, lastName: null },
          body: content.body,
          media: content.media,
        });
      }
      for (const raw of arr(value.statuses)) {
        const s = obj(raw);
        const id = str(s.id);
        const status = STATUSES[str(s.status) ?? ""];
        if (!id || !status) continue;
        const error = obj(arr(s.errors)[0]);
        events.push({
          kind: "status",
          providerMessageId: id,
          status,
          error:
            status === "failed"
              ? {
                  code: String(error.code ?? "unknown"),
                  message: str(error.title) ?? str(error.message) ?? "failed",
                }
              : null,
        });
      }
    }
  }
  return events;
}

/** WhatsApp's limits for interactive messages (Cloud API, "Interactive reply buttons" and "list"). */
const BODY_MAX = 1024;
const BUTTONS_MAX = 3;
const BUTTON_TITLE_MAX = 20;
const LIST_ROWS_MAX = 10;
const ROW_TITLE_MAX = 24;
const ROW_DESCRIPTION_MAX = 72;

/**
 * A bot's "Did you mean" as an interactive message: reply buttons for up to 3 choices (the id comes
 * back in the webhook when one is pressed), a list for more (a "Choose" button that opens the rows).
 * The body keeps the numbered list, so the choices read the same with the buttons cut to 20 characters.
 */
export function interactiveOf(body: string, suggestions: Suggestion[]): Record<string, unknown> {
  const text = cutText(body, BODY_MAX);
  if (suggestions.length <= BUTTONS_MAX) {
    const labels = buttonLabels(suggestions, BUTTON_TITLE_MAX);
    return {
      type: "button",
      body: { text },
      action: {
        buttons: suggestions.map((s, i) => ({ type: "reply", reply: { id: s.id, title: labels[i]! } })),
      },
    };
  }
  const rows = suggestions.slice(0, LIST_ROWS_MAX);
  const labels = buttonLabels(rows, ROW_TITLE_MAX);
  return {
    type: "list",
    body: { text },
    action: {
      button: "Choose",
      sections: [
        {
          rows: rows.map((s, i) => ({
            id: s.id,
            title: labels[i]!,
            // The whole question under a label that had to be cut.
            ...(labels[i] !== s.title ? { description: cutText(s.title, ROW_DESCRIPTION_MAX) } : {}),
          })),
        },
      ],
    },
  };
}

/** The template a message is sent as (stored by an outgoing campaign), or null for free text. */
function templateOf(json: string | null): { name: string; language: string; parameters: string[] } | null {
  if (!json) return null;
  try {
    const t = JSON.parse(json) as { name?: unknown; language?: unknown; parameters?: unknown };
    if (typeof t.name !== "string" || typeof t.language !== "string") return null;
    const parameters = Array.isArray(t.parameters) ? t.parameters.filter((p) => typeof p === "string") : [];
    return { name: t.name, language: t.language, parameters };
  } catch {
    return null;
  }
}

export const whatsappAdapter: ChannelAdapter = {
  type: "whatsapp",
  secretKeys: ["accessToken", "appSecret", "verifyToken"],
  parseConfig: (input, previous) =>
    parseMetaConfig(input, previous, {
      idKey: "phoneNumberId",
      idHint: "the number ID Meta shows (digits, not the phone number)",
      tokenKey: "accessToken",
    }),
  verifySubscription: verifyMetaSubscription,
  authenticate: authenticateMeta,
  parseInbound: parseWhatsAppPayload,
  async fetchMedia(ctx, channel, media) {
    const token = String(channel.secrets.accessToken);
    const version = String(channel.config.graphVersion);
    const call = await callProvider(ctx, {
      url: `${ctx.config.providers.metaGraphUrl}/${version}/${encodeURIComponent(media.ref)}`,
      headers: { authorization: `Bearer ${token}` },
    });
    if (!call.ok) throw new Error(call.outcome.message);
    const url = str(obj(call.answer.json).url);
    if (call.answer.status !== 200 || !url) {
      const e = graphErrorOf(call.answer.json);
      throw new Error(`WhatsApp media ${media.ref}: ${call.answer.status} ${e?.message ?? ""}`.trim());
    }
    return fetchBytes(ctx, url, { authorization: `Bearer ${token}` }, MAX_MEDIA_BYTES);
  },
  async send(ctx, channel, message, target) {
    const to = target.address ?? target.phone?.replace(/^\+/, "") ?? null;
    if (!to) {
      return {
        ok: false,
        retryable: false,
        errorClass: "no_address",
        message: "The contact has no WhatsApp number",
      };
    }
    const template = templateOf(message.template);
    // WhatsApp refuses a free-form message outside the customer service window: say so before trying.
    // An approved template (a campaign's first message) may open a conversation at any time.
    if (
      !template &&
      (target.lastInboundAt === null || Date.now() - target.lastInboundAt > CUSTOMER_WINDOW_MS)
    ) {
      return outsideWindow("WhatsApp");
    }
    const media = target.mediaUrl;
    const kind = media ? (message.media_content_type?.startsWith("image/") ? "image" : "document") : null;
    // Buttons ride on a text reply; free-form, so within the window like any text (checked above).
    const choices = template || kind ? [] : suggestionsOf(message.suggestions);
    const body = {
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to,
      ...(template
        ? {
            type: "template",
            template: {
              name: template.name,
              language: { code: template.language },
              ...(template.parameters.length > 0
                ? {
                    components: [
                      {
                        type: "body",
                        parameters: template.parameters.map((text) => ({ type: "text", text })),
                      },
                    ],
                  }
                : {}),
            },
          }
        : kind && media
          ? { type: kind, [kind]: { link: media, ...(message.body ? { caption: message.body } : {}) } }
          : choices.length > 0
            ? { type: "interactive", interactive: interactiveOf(message.body, choices) }
            : { type: "text", text: { preview_url: false, body: message.body } }),
    };
    const res = await graphPost(
      ctx,
      "WhatsApp",
      `${channel.config.graphVersion}/${channel.config.phoneNumberId}/messages`,
      String(channel.secrets.accessToken),
      body,
    );
    if (!res.ok) return res.outcome;
    const id = str(obj(arr(obj(res.json).messages)[0]).id);
    return id ? { ok: true, providerMessageId: id } : { ok: true };
  },
};

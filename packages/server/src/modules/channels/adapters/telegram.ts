// The `telegram` channel: one Telegram bot (its BotFather token) per channel, through the Bot API
// (https://core.telegram.org/bots/api). Creating the channel registers Parley's inbound URL as the bot's
// webhook with a secret token Telegram echoes in X-Telegram-Bot-Api-Secret-Token on every update; a
// private chat's messages become incoming messages (the chat id is the address replies go to), and
// replies go out with sendMessage, sendPhoto or sendDocument. A bot's "Did you mean" choices go as an
// inline keyboard; a press (a callback_query update) is an incoming message carrying the choice's
// number. The bot token sits in every API URL's path, so nothing this file returns, throws or logs may
// quote a URL or an error as is: it goes through `scrub` first.
import { randomBytes } from "node:crypto";
import type { AppContext } from "../../../context.ts";
import { AppError } from "../../../platform/errors.ts";
import { OutboundError } from "../../../platform/safe-fetch.ts";
import { oneLine } from "../../../platform/text.ts";
import { MAX_MEDIA_BYTES } from "../../messaging/media/sniff.ts";
import { type Suggestion, suggestionsOf } from "../../messaging/suggestions.ts";
import { configObject, invalid } from "./fields.ts";
import { str } from "./json.ts";
import { callProvider, failedAnswer, fetchBytes, type ProviderCall, sameSecret } from "./provider-http.ts";
import type {
  ChannelAdapter,
  DecryptedChannel,
  InboundEvent,
  InboundReply,
  MediaRef,
  SendOutcome,
} from "./types.ts";

/** A token as BotFather gives it: "<bot id>:<35 characters>". */
const TOKEN_PATTERN = /^\d{3,20}:[A-Za-z0-9_-]{30,60}$/;
/** setWebhook's secret_token: 1-256 characters of A-Z, a-z, 0-9, _ and -. */
const SECRET_PATTERN = /^[A-Za-z0-9_-]{32,256}$/;
/** sendMessage's text and the media methods' caption, in characters (after entity parsing: none here). */
export const TELEGRAM_TEXT_MAX = 4096;
export const TELEGRAM_CAPTION_MAX = 1024;
/** Formats sendPhoto takes by URL; any other attachment goes as a document. */
const PHOTO_TYPES = new Set(["image/jpeg", "image/png", "image/webp"]);
const FAILED_ANSWER_DETAIL_MAX = 300;

interface TelegramSecrets {
  botToken: string;
  webhookSecret: string;
}

function secretsOf(channel: DecryptedChannel): TelegramSecrets {
  const { botToken, webhookSecret } = channel.secrets;
  return {
    botToken: typeof botToken === "string" ? botToken : "",
    webhookSecret: typeof webhookSecret === "string" ? webhookSecret : "",
  };
}

function apiBase(ctx: AppContext): string {
  return ctx.config.providers.telegramApiUrl;
}

/** The token out of a text (as is and URL-encoded: the ":" may have been escaped on the way). */
function scrub(text: string, token: string): string {
  if (!token) return text;
  return text.split(token).join("<bot token>").split(encodeURIComponent(token)).join("<bot token>");
}

/** One Bot API method, as JSON (https://core.telegram.org/bots/api#making-requests). */
async function callMethod(
  ctx: AppContext,
  token: string,
  method: string,
  params: Record<string, unknown>,
): Promise<ProviderCall> {
  const call = await callProvider(ctx, { url: `${apiBase(ctx)}/bot${token}/${method}`, json: params });
  if (!call.ok) call.outcome.message = scrub(call.outcome.message, token);
  return call;
}

/** Telegram's answer: `{"ok":true,"result":…}` or `{"ok":false,"error_code":N,"description":"…"}`. */
type BotAnswer = { ok: true; result: unknown } | { ok: false; status: number; description: string };

function readAnswer(status: number, body: unknown, text: string, token: string): BotAnswer {
  const obj = isObject(body) ? body : null;
  if (obj?.ok === true && status >= 200 && status < 300) return { ok: true, result: obj.result };
  const code = typeof obj?.error_code === "number" ? obj.error_code : status;
  const description =
    typeof obj?.description === "string"
      ? obj.description
      : text.trim() === ""
        ? `HTTP ${status}`
        : text.trim().slice(0, FAILED_ANSWER_DETAIL_MAX);
  // A 2xx without ok:true is not a success either (a proxy's page, a changed API): worth another try.
  const effective = code >= 200 && code < 300 ? 502 : code;
  return { ok: false, status: effective, description: scrub(description, token) };
}

/** The outcome of Telegram's error answer: a refused token turns the channel `error`. */
function failedOutcome(status: number, description: string): Extract<SendOutcome, { ok: false }> {
  // A malformed or revoked token is answered 401 Unauthorized, or 404 Not Found for a path Telegram
  // does not recognise as a bot's.
  const credentialsRefused = status === 401 || status === 404;
  return failedAnswer("Telegram", status, description, { credentialsRefused });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isId = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value);

// ---- inbound ------------------------------------------------------------------------------------

/** The attachment of a message, when it carries one Parley keeps (https://core.telegram.org/bots/api#message). */
function mediaOf(msg: Record<string, unknown>): MediaRef | null {
  if (Array.isArray(msg.photo) && msg.photo.length > 0) {
    // The same photo in several sizes; the largest is the one worth keeping.
    let best: { fileId: string; area: number; size: number } | null = null;
    for (const size of msg.photo) {
      if (!isObject(size) || !str(size.file_id)) continue;
      const area = (Number(size.width) || 0) * (Number(size.height) || 0);
      const bytes = Number(size.file_size) || 0;
      if (!best || area > best.area || (area === best.area && bytes > best.size)) {
        best = { fileId: size.file_id as string, area, size: bytes };
      }
    }
    return best ? { ref: best.fileId, contentType: "image/jpeg" } : null;
  }
  // Files sent as such, and the kinds Telegram describes with a mime_type of their own.
  const kinds: Array<[string, string | null]> = [
    ["document", null],
    ["video", "video/mp4"],
    ["animation", "video/mp4"],
    ["audio", "audio/mpeg"],
    ["voice", "audio/ogg"],
    ["video_note", "video/mp4"],
  ];
  for (const [kind, fallbackType] of kinds) {
    const file = msg[kind];
    if (!isObject(file)) continue;
    const fileId = str(file.file_id);
    if (!fileId) return null;
    return {
      ref: fileId,
      contentType: str(file.mime_type) ?? fallbackType,
      fileName: str(file.file_name),
    };
  }
  return null;
}

/**
 * A press on one of the bot's inline buttons (https://core.telegram.org/bots/api#callbackquery): the
 * person's answer to the bot's "Did you mean", as if they had written the choice's number in the chat.
 */
function parseCallbackQuery(query: Record<string, unknown>): InboundEvent[] {
  const id = str(query.id);
  const from = query.from;
  // Without `message` the button was on an inline-mode message, in someone else's chat: not Parley's.
  const msg = query.message;
  const chat = isObject(msg) ? msg.chat : undefined;
  const data = typeof query.data === "string" ? query.data.trim() : "";
  if (!id || !isObject(from) || !isId(from.id) || !isObject(chat) || !isId(chat.id) || data === "") return [];
  if (from.is_bot === true || chat.type !== "private") return [];
  return [
    {
      kind: "message",
      externalId: `tg:cb:${id}`,
      address: String(chat.id),
      contact: {
        externalId: `tg:${from.id}`,
        firstName: str(from.first_name),
        lastName: str(from.last_name),
      },
      body: data,
      media: null,
    },
  ];
}

/**
 * What Parley answers the webhook call that brought an Update. A button press should be answered
 * (answerCallbackQuery), or the person's app shows the button busy until it gives up. Telegram takes
 * that call in the webhook's own HTTP answer (https://core.telegram.org/bots/api#making-requests-when-
 * getting-updates), which suits this adapter better than calling answerCallbackQuery: the press is
 * answered at once, while the update itself waits for the inbound job, and the job's hooks (parseInbound)
 * have no context to call the Bot API with. Null for every other update (the usual `{"ok":true}`).
 * The channels' inbound service asks the adapter's `inboundReply` for each accepted update.
 */
export function telegramInboundReply(update: unknown): InboundReply | null {
  if (!isObject(update) || !isObject(update.callback_query)) return null;
  const id = str(update.callback_query.id);
  if (!id) return null;
  return {
    status: 200,
    contentType: "application/json",
    body: JSON.stringify({ method: "answerCallbackQuery", callback_query_id: id }),
  };
}

/**
 * One Update into events: a private chat's message from a person, or a press on one of the bot's
 * buttons; anything else is no event.
 */
export function parseTelegramUpdate(update: unknown): InboundEvent[] {
  if (isObject(update) && isObject(update.callback_query)) return parseCallbackQuery(update.callback_query);
  if (!isObject(update) || !isObject(update.message)) return [];
  const msg = update.message;
  const chat = msg.chat;
  const from = msg.from;
  if (!isId(msg.message_id) || !isObject(chat) || !isId(chat.id) || !isObject(from) || !isId(from.id)) {
    return [];
  }
  // Another bot's message, or a group's: Parley answers people in their own chat with the bot only
  // (in a group, a reply to one member would be read by all of them).
  if (from.is_bot === true || chat.type !== "private") return [];
  const body = typeof msg.text === "string" ? msg.text : typeof msg.caption === "string" ? msg.caption : "";
  const media = mediaOf(msg);
  // A sticker, a location, a poll: nothing Parley can show.
  if (body === "" && !media) return [];
  return [
    {
      kind: "message",
      externalId: `tg:${chat.id}:${msg.message_id}`,
      address: String(chat.id),
      contact: {
        externalId: `tg:${from.id}`,
        firstName: str(from.first_name),
        lastName: str(from.last_name),
      },
      body,
      media,
    },
  ];
}

// ---- outbound -----------------------------------------------------------------------------------

/** A text Telegram takes in several messages: cut on a line break, else a space, else anywhere. */
export function splitText(text: string, max = TELEGRAM_TEXT_MAX): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = rest.lastIndexOf("\n", max);
    if (cut < max / 2) cut = rest.lastIndexOf(" ", max);
    if (cut < max / 2) cut = max;
    // Never between the two halves of a surrogate pair.
    if (/[\uD800-\uDBFF]/.test(rest.charAt(cut - 1))) cut -= 1;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^[\n ]/, "");
  }
  if (rest !== "" || parts.length === 0) parts.push(rest);
  return parts;
}

/** callback_data: 1-64 bytes. */
const CALLBACK_DATA_MAX_BYTES = 64;

/**
 * A bot's "Did you mean" choices as an inline keyboard
 * (https://core.telegram.org/bots/api#inlinekeyboardmarkup), one button per row (the titles are whole
 * questions); a press comes back as a callback_query carrying the choice's number. Null for a message
 * without choices.
 */
export function keyboardOf(suggestions: Suggestion[]): Record<string, unknown> | null {
  const buttons = suggestions.filter(
    (s) => s.title.trim() !== "" && Buffer.byteLength(s.id) <= CALLBACK_DATA_MAX_BYTES,
  );
  if (buttons.length === 0) return null;
  return {
    inline_keyboard: buttons.map((s) => [{ text: oneLine(s.title), callback_data: s.id }]),
  };
}

/** The Bot API calls one outbound message takes, in order (the keyboard, if any, on the last one). */
function plan(
  chatId: string,
  body: string,
  mediaUrl: string | null,
  contentType: string | null,
  keyboard: Record<string, unknown> | null = null,
): Array<[string, Record<string, unknown>]> {
  const calls = planParts(chatId, body, mediaUrl, contentType);
  const last = calls.at(-1);
  if (last && keyboard) last[1] = { ...last[1], reply_markup: keyboard };
  return calls;
}

function planParts(
  chatId: string,
  body: string,
  mediaUrl: string | null,
  contentType: string | null,
): Array<[string, Record<string, unknown>]> {
  const calls: Array<[string, Record<string, unknown>]> = [];
  let text = body;
  if (mediaUrl) {
    const photo = contentType !== null && PHOTO_TYPES.has(contentType.toLowerCase().split(";")[0]!.trim());
    const [method, field] = photo ? ["sendPhoto", "photo"] : ["sendDocument", "document"];
    const fits = body.length <= TELEGRAM_CAPTION_MAX;
    calls.push([
      method,
      { chat_id: chatId, [field]: mediaUrl, ...(fits && body !== "" ? { caption: body } : {}) },
    ]);
    // A caption too long for Telegram follows the attachment as text.
    text = fits ? "" : body;
    if (text === "") return calls;
  }
  for (const part of splitText(text)) calls.push(["sendMessage", { chat_id: chatId, text: part }]);
  return calls;
}

// ---- the adapter --------------------------------------------------------------------------------

export const telegramAdapter: ChannelAdapter = {
  type: "telegram",
  secretKeys: ["botToken", "webhookSecret"],
  inboundReply: telegramInboundReply,

  parseConfig(input, previous) {
    const obj = configObject(input, ["botToken"]);
    const kept = previous?.secrets.webhookSecret;
    // The secret Telegram echoes on every update: made once, kept across updates of the channel.
    const webhookSecret =
      typeof kept === "string" && SECRET_PATTERN.test(kept) ? kept : randomBytes(24).toString("base64url");
    const given = obj.botToken;
    if (given === undefined && typeof previous?.secrets.botToken === "string") {
      return { config: {}, secrets: { botToken: previous.secrets.botToken, webhookSecret } };
    }
    if (typeof given !== "string" || !TOKEN_PATTERN.test(given.trim())) {
      throw invalid("config.botToken must be a Telegram bot token like 123456789:AA…");
    }
    return { config: {}, secrets: { botToken: given.trim(), webhookSecret } };
  },

  async connect(ctx, channel, inboundUrl) {
    const { botToken, webhookSecret } = secretsOf(channel);
    // https://core.telegram.org/bots/api#setwebhook
    const call = await callMethod(ctx, botToken, "setWebhook", {
      url: inboundUrl,
      secret_token: webhookSecret,
      // callback_query: presses on the inline buttons of the bot's "Did you mean".
      allowed_updates: ["message", "callback_query"],
    });
    const why = call.ok
      ? (() => {
          const answer = readAnswer(call.answer.status, call.answer.json, call.answer.text, botToken);
          return answer.ok ? null : answer.description;
        })()
      : call.outcome.message;
    if (why !== null) {
      throw new AppError("INVALID_CHANNEL_CONFIG", `Telegram refused setWebhook: ${why}`.slice(0, 1000));
    }
  },

  async disconnect(ctx, channel) {
    const { botToken } = secretsOf(channel);
    try {
      // https://core.telegram.org/bots/api#deletewebhook (a refusal changes nothing: the channel goes).
      const call = await callMethod(ctx, botToken, "deleteWebhook", {});
      if (call.ok) {
        const answer = readAnswer(call.answer.status, call.answer.json, call.answer.text, botToken);
        if (!answer.ok) {
          ctx.log.warn(
            { channelId: channel.id, reason: answer.description },
            "telegram deleteWebhook refused",
          );
        }
      } else {
        ctx.log.warn(
          { channelId: channel.id, reason: call.outcome.message },
          "telegram deleteWebhook failed",
        );
      }
    } catch (err) {
      const reason = scrub(err instanceof Error ? err.message : String(err), botToken);
      ctx.log.warn({ channelId: channel.id, reason }, "telegram deleteWebhook failed");
    }
  },

  authenticate(channel, req) {
    const { webhookSecret } = secretsOf(channel);
    // https://core.telegram.org/bots/api#setwebhook: "the header X-Telegram-Bot-Api-Secret-Token".
    const given = req.headers["x-telegram-bot-api-secret-token"];
    if (webhookSecret === "" || !sameSecret(given, webhookSecret)) {
      return { ok: false, status: 401, message: "missing or wrong X-Telegram-Bot-Api-Secret-Token" };
    }
    let payload: unknown;
    try {
      payload = JSON.parse(req.rawBody.toString("utf8"));
    } catch {
      return { ok: false, status: 400, message: "the body is not JSON" };
    }
    if (!isObject(payload)) return { ok: false, status: 400, message: "the body is not a Telegram Update" };
    return { ok: true, payload };
  },

  parseInbound(payload) {
    try {
      return parseTelegramUpdate(payload);
    } catch {
      return [];
    }
  },

  async fetchMedia(ctx, channel, media) {
    const { botToken } = secretsOf(channel);
    // https://core.telegram.org/bots/api#getfile: a file_path valid for an hour, then the file itself.
    const call = await callMethod(ctx, botToken, "getFile", { file_id: media.ref });
    if (!call.ok)
      throw new OutboundError("connection_error", `Telegram getFile failed: ${call.outcome.message}`);
    const answer = readAnswer(call.answer.status, call.answer.json, call.answer.text, botToken);
    if (!answer.ok) {
      throw new OutboundError("http_error", `Telegram refused getFile: ${answer.description}`, {
        statusCode: answer.status,
      });
    }
    const filePath = isObject(answer.result) ? str(answer.result.file_path) : null;
    if (!filePath) throw new OutboundError("http_error", "Telegram's getFile answer has no file_path");
    const path = filePath.split("/").map(encodeURIComponent).join("/");
    try {
      const file = await fetchBytes(ctx, `${apiBase(ctx)}/file/bot${botToken}/${path}`, {}, MAX_MEDIA_BYTES);
      // Telegram's file server calls most files application/octet-stream: the message said better.
      const generic = file.contentType.split(";")[0]!.trim().toLowerCase() === "application/octet-stream";
      return {
        bytes: file.bytes,
        contentType: generic && media.contentType ? media.contentType : file.contentType,
      };
    } catch (err) {
      const message = scrub(err instanceof Error ? err.message : String(err), botToken);
      if (err instanceof OutboundError) {
        throw new OutboundError(
          err.errorClass,
          message,
          err.statusCode === undefined ? {} : { statusCode: err.statusCode },
        );
      }
      throw new Error(message);
    }
  },

  async send(ctx, channel, message, target) {
    const { botToken } = secretsOf(channel);
    const chatId = target.address;
    if (!chatId) {
      return {
        ok: false,
        retryable: false,
        errorClass: "no_address",
        message: "this contact never wrote to the bot: Telegram only lets a bot answer a chat it is in",
      };
    }
    const calls = plan(
      chatId,
      message.body,
      target.mediaUrl,
      message.media_content_type,
      keyboardOf(suggestionsOf(message.suggestions)),
    );
    let first: string | undefined;
    for (const [i, [method, params]] of calls.entries()) {
      const call = await callMethod(ctx, botToken, method, params);
      let outcome: Extract<SendOutcome, { ok: false }> | null = null;
      if (!call.ok) {
        outcome = call.outcome;
      } else {
        const answer = readAnswer(call.answer.status, call.answer.json, call.answer.text, botToken);
        if (answer.ok) {
          const messageId = isObject(answer.result) ? answer.result.message_id : undefined;
          first ??= isId(messageId) ? `${chatId}:${messageId}` : undefined;
          continue;
        }
        outcome = failedOutcome(answer.status, answer.description);
      }
      if (i > 0) {
        // Part of the message is in the chat already: another attempt would send that part twice.
        return {
          ...outcome,
          retryable: false,
          message: `${outcome.message} (after ${i} of ${calls.length} parts were sent)`,
        };
      }
      return outcome;
    }
    return first ? { ok: true, providerMessageId: first } : { ok: true };
  },
};

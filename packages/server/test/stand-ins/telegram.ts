// A local stand-in for Telegram's Bot API: a real HTTP server on 127.0.0.1 that answers what Parley's
// telegram adapter calls, as these pages document it:
// - https://core.telegram.org/bots/api#making-requests (POST /bot<token>/<METHOD_NAME>, JSON bodies,
//   the {"ok":true,"result":…} / {"ok":false,"error_code":N,"description":"…"} envelope, method names
//   case-insensitive, 401 "Unauthorized" for an unknown token, 404 "Not Found" for an unknown method)
// - https://core.telegram.org/bots/api#setwebhook and #deletewebhook (HTTPS only, ports 443, 80, 88 and
//   8443, secret_token of 1-256 characters A-Z a-z 0-9 _ -, sent back in X-Telegram-Bot-Api-Secret-Token)
// - https://core.telegram.org/bots/api#getting-updates and #update (an HTTPS POST of one JSON Update per
//   request, with update_id increasing)
// - https://core.telegram.org/bots/api#sendmessage, #sendphoto, #senddocument (a Message answers them;
//   text of 1-4096 characters, caption of at most 1024) and #message, #photosize, #document, #user, #chat
// - https://core.telegram.org/bots/api#getfile and #file (file_path; the bytes at
//   GET /file/bot<token>/<file_path>)
// - https://core.telegram.org/bots/api#responseparameters (retry_after on a 429)
// A test can queue forced answers per bot and method (a 500, a 429, "Bad Request: chat not found"), reads
// every request back (method, token, body) for its assertions, and posts Updates to the webhook.
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface TelegramRequest {
  /** The Bot API method as called (case kept), or "file" for a file download. */
  method: string;
  token: string;
  /** The JSON body (or the query's parameters); for a file download, {file_path}. */
  body: Record<string, unknown>;
  /** The answer's HTTP status. */
  status: number;
}

/** A forced answer: an error envelope Telegram would send, or any raw HTTP answer. */
export type ForcedAnswer =
  | { error_code: number; description: string; retry_after?: number }
  | { raw: { status: number; body: string; contentType?: string } };

export interface TelegramUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

export interface Webhook {
  url: string;
  secret_token: string | null;
  allowed_updates: string[] | null;
}

interface StoredFile {
  file_id: string;
  file_unique_id: string;
  file_path: string;
  bytes: Buffer;
  contentType: string;
}

interface Bot {
  token: string;
  user: { id: number; is_bot: true; first_name: string; username: string };
  webhook: Webhook | null;
  /** Chats the bot may write to: people who wrote to it (or a test said so). */
  chats: Map<number, Record<string, unknown>>;
  nextMessageId: Map<number, number>;
  nextUpdateId: number;
}

export interface DeliverOptions {
  /** Where to POST instead of the registered webhook's origin (the app listens on 127.0.0.1:<port>
   * while its PUBLIC_URL, the registered one, is https://…: what a TLS-terminating proxy does). */
  origin?: string;
  /** The header's value instead of the registered secret token; null: no header. */
  secret?: string | null;
}

export interface TelegramStandIn {
  /** The base URL to give Parley (TELEGRAM_API_URL). */
  url: string;
  requests: TelegramRequest[];
  /** Makes a token valid (any other well-formed token is answered 401 Unauthorized). */
  addBot(token: string, name?: string): void;
  /** The requests of one method (case-insensitive), optionally for one token. */
  calls(method: string, token?: string): TelegramRequest[];
  /** The bot's next answers to a method (case-insensitive; "file" for downloads), in order, before the
   * normal behaviour resumes. */
  queue(token: string, method: string, ...answers: ForcedAnswer[]): void;
  webhookOf(token: string): Webhook | null;
  /** Keeps a file the bot can fetch through getFile; returns its file_id. */
  addFile(token: string, bytes: Buffer, contentType: string, filePath: string): string;
  /** A text message Update from `from` in its private chat with the bot (a new update_id, message_id). */
  textUpdate(token: string, from: TelegramUser, text: string): Record<string, unknown>;
  /** A photo message Update: the photo in three sizes (one file each), the largest holding `bytes`. */
  photoUpdate(
    token: string,
    from: TelegramUser,
    bytes: Buffer,
    caption?: string,
  ): { update: Record<string, unknown>; largestFileId: string };
  /** POSTs an Update to the bot's webhook as Telegram does; answers Parley's status and body. */
  deliver(
    token: string,
    update: Record<string, unknown>,
    opts?: DeliverOptions,
  ): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

const TOKEN_PATH = /^\/bot(\d+:[A-Za-z0-9_-]+)\/([A-Za-z]+)$/;
const FILE_PATH = /^\/file\/bot(\d+:[A-Za-z0-9_-]+)\/(.+)$/;
const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;
const WEBHOOK_PORTS = new Set(["443", "80", "88", "8443"]);

class BadRequest extends Error {}

export async function startTelegramStandIn(): Promise<TelegramStandIn> {
  const bots = new Map<string, Bot>();
  const files = new Map<string, StoredFile & { token: string }>();
  const forced = new Map<string, ForcedAnswer[]>();
  const requests: TelegramRequest[] = [];
  const sockets = new Set<Socket>();
  const now = () => Math.floor(Date.now() / 1000);

  const botOf = (token: string) => {
    const bot = bots.get(token);
    if (!bot) throw new Error(`the stand-in knows no bot ${token.split(":")[0]}`);
    return bot;
  };

  const sendJson = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
    return status;
  };
  const fail = (res: http.ServerResponse, code: number, description: string, retryAfter?: number) =>
    sendJson(res, code, {
      ok: false,
      error_code: code,
      description,
      ...(retryAfter === undefined ? {} : { parameters: { retry_after: retryAfter } }),
    });

  function answerForced(res: http.ServerResponse, answer: ForcedAnswer): number {
    if ("raw" in answer) {
      res.writeHead(answer.raw.status, { "content-type": answer.raw.contentType ?? "text/plain" });
      res.end(answer.raw.body);
      return answer.raw.status;
    }
    return fail(res, answer.error_code, answer.description, answer.retry_after);
  }

  /** A Message the bot sent into a chat (https://core.telegram.org/bots/api#message). */
  function botMessage(bot: Bot, chatId: number, extra: Record<string, unknown>) {
    const messageId = bot.nextMessageId.get(chatId) ?? 1;
    bot.nextMessageId.set(chatId, messageId + 1);
    return { message_id: messageId, from: bot.user, chat: bot.chats.get(chatId), date: now(), ...extra };
  }

  function chatOf(bot: Bot, params: Record<string, unknown>): number {
    const raw = params.chat_id;
    if (raw === undefined || raw === null || raw === "")
      throw new BadRequest("Bad Request: chat_id is empty");
    const id = typeof raw === "number" ? raw : /^-?\d+$/.test(String(raw)) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(id) || !bot.chats.has(id)) throw new BadRequest("Bad Request: chat not found");
    return id;
  }

  function captionOf(params: Record<string, unknown>): Record<string, unknown> {
    if (params.caption === undefined) return {};
    const caption = String(params.caption);
    if (caption.length > 1024) throw new BadRequest("Bad Request: message caption is too long");
    return caption === "" ? {} : { caption };
  }

  function fileRef(params: Record<string, unknown>, field: string): string {
    const value = params[field];
    if (typeof value !== "string" || value === "") {
      throw new BadRequest(`Bad Request: there is no ${field} in the request`);
    }
    return value;
  }

  /** The methods Parley calls, as documented; each returns the `result`. */
  const methods: Record<string, (bot: Bot, params: Record<string, unknown>) => unknown> = {
    getme: (bot) => bot.user,
    setwebhook(bot, params) {
      const url = typeof params.url === "string" ? params.url : "";
      if (url === "") {
        bot.webhook = null;
        return true;
      }
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new BadRequest("Bad Request: bad webhook: Failed to resolve host: Name or service not known");
      }
      if (parsed.protocol !== "https:") {
        throw new BadRequest("Bad Request: bad webhook: An HTTPS URL must be provided for webhook");
      }
      if (!WEBHOOK_PORTS.has(parsed.port || "443")) {
        throw new BadRequest(
          "Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443",
        );
      }
      const secret = params.secret_token;
      if (secret !== undefined && (typeof secret !== "string" || !SECRET_TOKEN.test(secret))) {
        throw new BadRequest("Bad Request: secret token contains unallowed characters");
      }
      const allowed = params.allowed_updates;
      bot.webhook = {
        url,
        secret_token: typeof secret === "string" ? secret : null,
        allowed_updates: Array.isArray(allowed) ? allowed.map(String) : null,
      };
      return true;
    },
    deletewebhook(bot) {
      bot.webhook = null;
      return true;
    },
    sendmessage(bot, params) {
      const chatId = chatOf(bot, params);
      const text = typeof params.text === "string" ? params.text : "";
      if (text.trim() === "") throw new BadRequest("Bad Request: message text is empty");
      if (text.length > 4096) throw new BadRequest("Bad Request: message is too long");
      return botMessage(bot, chatId, { text });
    },
    sendphoto(bot, params) {
      const chatId = chatOf(bot, params);
      fileRef(params, "photo");
      const id = randomBytes(8).toString("hex");
      const photo = [90, 320, 800].map((w, i) => ({
        file_id: `AgAC-${id}-${i}`,
        file_unique_id: `AQAD-${id}-${i}`,
        file_size: w * 60,
        width: w,
        height: Math.round(w * 0.75),
      }));
      return botMessage(bot, chatId, { photo, ...captionOf(params) });
    },
    senddocument(bot, params) {
      const chatId = chatOf(bot, params);
      const ref = fileRef(params, "document");
      const id = randomBytes(8).toString("hex");
      const name = decodeURIComponent(new URL(ref, "https://x.invalid/").pathname.split("/").pop() || "file");
      const document = {
        file_name: name,
        mime_type: "application/octet-stream",
        file_id: `BQAC-${id}`,
        file_unique_id: `AgAD-${id}`,
        file_size: 1024,
      };
      return botMessage(bot, chatId, { document, ...captionOf(params) });
    },
    getfile(bot, params) {
      const file = files.get(String(params.file_id ?? ""));
      if (!file || file.token !== bot.token) throw new BadRequest("Bad Request: invalid file_id");
      return {
        file_id: file.file_id,
        file_unique_id: file.file_unique_id,
        file_size: file.bytes.length,
        file_path: file.file_path,
      };
    },
  };

  function handle(req: http.IncomingMessage, raw: Buffer, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const fileMatch = FILE_PATH.exec(url.pathname);
    if (fileMatch && req.method === "GET") {
      const [, token, filePath] = fileMatch as unknown as [string, string, string];
      const record = (status: number) =>
        requests.push({ method: "file", token, body: { file_path: filePath }, status });
      const forcedAnswer = forced.get(`${token} file`)?.shift();
      if (forcedAnswer) return record(answerForced(res, forcedAnswer));
      const file = [...files.values()].find((f) => f.token === token && f.file_path === filePath);
      if (!bots.has(token) || !file) return record(fail(res, 404, "Not Found"));
      res.writeHead(200, { "content-type": file.contentType, "content-length": file.bytes.length });
      res.end(file.bytes);
      return record(200);
    }
    const match = TOKEN_PATH.exec(url.pathname);
    if (!match) return fail(res, 404, "Not Found");
    const [, token, method] = match as unknown as [string, string, string];
    let params: Record<string, unknown> = Object.fromEntries(url.searchParams);
    const record = (status: number) => requests.push({ method, token, body: params, status });
    if (raw.length > 0) {
      const type = String(req.headers["content-type"] ?? "")
        .split(";")[0]!
        .trim();
      try {
        if (type === "application/json") {
          const parsed = JSON.parse(raw.toString("utf8")) as unknown;
          if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
            throw new Error("not an object");
          params = { ...params, ...(parsed as Record<string, unknown>) };
        } else if (type === "application/x-www-form-urlencoded") {
          params = { ...params, ...Object.fromEntries(new URLSearchParams(raw.toString("utf8"))) };
        }
      } catch {
        return record(fail(res, 400, "Bad Request: can't parse JSON object"));
      }
    }
    const bot = bots.get(token);
    if (!bot) return record(fail(res, 401, "Unauthorized"));
    const key = method.toLowerCase();
    const forcedAnswer = forced.get(`${token} ${key}`)?.shift();
    if (forcedAnswer) return record(answerForced(res, forcedAnswer));
    const impl = methods[key];
    if (!impl) return record(fail(res, 404, "Not Found"));
    try {
      const result = impl(bot, params);
      const description =
        key === "setwebhook"
          ? { description: bot.webhook ? "Webhook was set" : "Webhook was deleted" }
          : key === "deletewebhook"
            ? { description: "Webhook was deleted" }
            : {};
      return record(sendJson(res, 200, { ok: true, result, ...description }));
    } catch (err) {
      if (err instanceof BadRequest) return record(fail(res, 400, err.message));
      return record(fail(res, 500, "Internal Server Error"));
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, Buffer.concat(chunks), res));
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  /** A private chat with `from`, which the bot may now write to (as after the person's /start). */
  function privateChat(bot: Bot, from: TelegramUser) {
    const chat = {
      id: from.id,
      first_name: from.first_name,
      ...(from.last_name ? { last_name: from.last_name } : {}),
      ...(from.username ? { username: from.username } : {}),
      type: "private",
    };
    bot.chats.set(from.id, chat);
    return chat;
  }

  function incoming(token: string, from: TelegramUser, content: Record<string, unknown>) {
    const bot = botOf(token);
    const chat = privateChat(bot, from);
    const message = {
      ...botMessage(bot, chat.id, content),
      from: { is_bot: false, language_code: "en", ...from },
    };
    return { update_id: bot.nextUpdateId++, message };
  }

  const standIn: TelegramStandIn = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    addBot(token, name = "Shop Bot") {
      bots.set(token, {
        token,
        user: { id: Number(token.split(":")[0]), is_bot: true, first_name: name, username: "shop_test_bot" },
        webhook: null,
        chats: new Map(),
        nextMessageId: new Map(),
        nextUpdateId: 100_000_000 + Math.floor(Math.random() * 1_000_000),
      });
    },
    calls: (method, token) =>
      requests.filter(
        (r) => r.method.toLowerCase() === method.toLowerCase() && (token === undefined || r.token === token),
      ),
    queue(token, method, ...answers) {
      const key = `${token} ${method.toLowerCase()}`;
      forced.set(key, [...(forced.get(key) ?? []), ...answers]);
    },
    webhookOf: (token) => botOf(token).webhook,
    addFile(token, bytes, contentType, filePath) {
      const id = randomBytes(10).toString("hex");
      const file = {
        token,
        file_id: `BQAC-${id}`,
        file_unique_id: `AgAD-${id}`,
        file_path: filePath,
        bytes,
        contentType,
      };
      files.set(file.file_id, file);
      return file.file_id;
    },
    textUpdate: (token, from, text) => incoming(token, from, { text }),
    photoUpdate(token, from, bytes, caption) {
      const sizes = [90, 320, 1280].map((w, i) => {
        const fileId = standIn.addFile(
          token,
          i === 2 ? bytes : Buffer.from(`thumbnail ${i}`),
          "image/jpeg",
          `photos/file_${randomBytes(3).toString("hex")}_${i}.jpg`,
        );
        return {
          file_id: fileId,
          file_unique_id: `AQAD${fileId.slice(5, 15)}`,
          file_size: i === 2 ? bytes.length : 14,
          width: w,
          height: Math.round(w * 0.75),
        };
      });
      const update = incoming(token, from, { photo: sizes, ...(caption ? { caption } : {}) });
      return { update, largestFileId: sizes[2]!.file_id };
    },
    async deliver(token, update, opts = {}) {
      const hook = botOf(token).webhook;
      if (!hook) throw new Error("the bot has no webhook: setWebhook was not called (or deleteWebhook was)");
      const target = new URL(hook.url);
      const url = opts.origin ? new URL(`${target.pathname}${target.search}`, opts.origin) : target;
      const secret = opts.secret === undefined ? hook.secret_token : opts.secret;
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(secret === null ? {} : { "X-Telegram-Bot-Api-Secret-Token": secret }),
        },
        body: JSON.stringify(update),
      });
      return { status: res.status, body: await res.text() };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  return standIn;
}

// A local stand-in for Twilio's Programmable Messaging, a real HTTP server on 127.0.0.1, for the
// `twilio_sms` channel's tests (TWILIO_API_URL points at it). It follows Twilio's documentation:
// - The Messages resource (https://www.twilio.com/docs/messaging/api/message-resource):
//   `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, form-encoded, HTTP Basic auth with the
//   account SID and auth token (https://www.twilio.com/docs/usage/requests-to-twilio); 201 with the
//   Message resource (sid `SM` + 32 hex, status `queued`, or `accepted` with a Messaging Service);
//   errors as `{code, message, more_info, status}` (https://www.twilio.com/docs/usage/twilios-response,
//   codes from https://www.twilio.com/docs/api/errors: 20003 Authenticate, 21211 invalid To, 21602 no
//   body, 21603 no From, 21604 no To, 21610 unsubscribed recipient).
// - Media (https://www.twilio.com/docs/messaging/api/media-resource): an MMS's MediaUrlN is
//   `/2010-04-01/Accounts/{AccountSid}/Messages/{MessageSid}/Media/{MediaSid}` on the API host, which
//   wants Basic auth and redirects (307) to the stored file.
// - Incoming-message webhooks (https://www.twilio.com/docs/messaging/guides/webhook-request) and status
//   callbacks (https://www.twilio.com/docs/messaging/guides/track-outbound-message-status): a POST,
//   form-encoded, with the parameters those pages list, signed with X-Twilio-Signature
//   (https://www.twilio.com/docs/usage/security#validating-requests: HMAC-SHA1 keyed with the auth
//   token over the URL and the sorted parameters, computed here with twilio's own function).
// The webhook helpers build the exact request Twilio would send to a URL and hand it to `deliver`
// (a real HTTP POST by default; a test may pass one that injects into the app, since the signed URL is
// PUBLIC_URL's, not a socket the test listens on).
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { getExpectedTwilioSignature } from "twilio/lib/webhooks/webhooks.js";

export const API_VERSION = "2010-04-01";

/** A Twilio SID: the type's two letters and 32 hex digits. */
export const twilioSid = (prefix: string) => prefix + randomBytes(16).toString("hex");

/** One request Parley made to the Messages resource. */
export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  /** The parsed form (a repeated key, like MediaUrl, keeps its last value here; see `rawBody`). */
  form: Record<string, string>;
  rawBody: string;
  /** What the stand-in answered. */
  status: number;
}

/** A message the stand-in accepted, as its Message resource plus what it was given. */
export interface StoredMessage {
  sid: string;
  to: string;
  from: string | null;
  messagingServiceSid: string | null;
  body: string;
  mediaUrls: string[];
  statusCallback: string | null;
  status: string;
}

export interface WebhookRequest {
  /** The URL Twilio calls (and signs). */
  url: string;
  headers: Record<string, string>;
  /** The form-encoded body. */
  body: string;
  params: Record<string, string>;
}

export interface WebhookAnswer {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

export interface TwilioStandInOptions {
  accountSid?: string;
  authToken?: string;
  /** The account's Twilio number. */
  number?: string;
  /** How a webhook reaches Parley; a real HTTP POST by default. */
  deliver?: (req: WebhookRequest) => Promise<WebhookAnswer>;
}

export interface ForcedAnswer {
  status: number;
  /** Only for a message to this number (other tests' messages go on as usual). */
  to?: string;
  /** A JSON body; a Twilio error body by default (see `twilioError`). */
  json?: unknown;
}

export interface TwilioStandIn {
  /** The API base URL (TWILIO_API_URL): http://127.0.0.1:<port>. */
  url: string;
  accountSid: string;
  authToken: string;
  number: string;
  /** Every request on the Messages resource, oldest first. */
  requests: RecordedRequest[];
  /** Accepted messages by SID. */
  messages: Map<string, StoredMessage>;
  /** Every GET on a media URL: the path and the Authorization header it came with. */
  mediaFetches: Array<{ path: string; authorization: string | undefined }>;
  /** The next Messages POSTs are answered with these, in order, before the normal behaviour. */
  queue(...answers: ForcedAnswer[]): void;
  /** Stores an attachment of an incoming MMS; its MediaUrl. */
  addMedia(messageSid: string, bytes: Buffer, contentType: string): string;
  /** Twilio posting an incoming SMS (or MMS, with media) to a number's webhook URL. */
  incoming(
    webhookUrl: string,
    opts: {
      from: string;
      body: string;
      to?: string;
      messageSid?: string;
      messagingServiceSid?: string;
      media?: Array<{ bytes: Buffer; contentType: string }>;
      /** Sign with this token instead (a forged request). */
      signWith?: string;
    },
  ): Promise<{ request: WebhookRequest; answer: WebhookAnswer; messageSid: string }>;
  /** Twilio posting a status callback for a message it accepted, to the StatusCallback it was given. */
  statusCallback(
    messageSid: string,
    status: "queued" | "sent" | "delivered" | "read" | "undelivered" | "failed",
    opts?: { errorCode?: string; url?: string },
  ): Promise<{ request: WebhookRequest; answer: WebhookAnswer }>;
  /** Posts a request built earlier again, as Twilio's retries do. */
  redeliver(request: WebhookRequest): Promise<WebhookAnswer>;
  close(): Promise<void>;
}

/** Twilio's error body. */
export function twilioError(status: number, code: number, message: string) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

const E164 = /^\+[1-9]\d{6,14}$/;

/** A real HTTP POST of a webhook request. */
async function postOverHttp(req: WebhookRequest): Promise<WebhookAnswer> {
  const res = await fetch(req.url, { method: "POST", headers: req.headers, body: req.body });
  return { status: res.status, body: await res.text(), headers: Object.fromEntries(res.headers) };
}

export async function startTwilioStandIn(options: TwilioStandInOptions = {}): Promise<TwilioStandIn> {
  const accountSid = options.accountSid ?? twilioSid("AC");
  const authToken = options.authToken ?? randomBytes(16).toString("hex");
  const number = options.number ?? "+15005550006";
  const deliver = options.deliver ?? postOverHttp;
  const requests: RecordedRequest[] = [];
  const messages = new Map<string, StoredMessage>();
  const mediaFetches: TwilioStandIn["mediaFetches"] = [];
  const forced: ForcedAnswer[] = [];
  /** Media path -> the file; the stored file's one-time-looking path -> the same file. */
  const media = new Map<string, { bytes: Buffer; contentType: string }>();
  const stored = new Map<string, { bytes: Buffer; contentType: string }>();
  const expectedAuth = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;
  let base = "";

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json; charset=utf-8",
      "twilio-request-id": twilioSid("RQ"),
    });
    res.end(text);
  };

  function createMessage(
    path: string,
    req: http.IncomingMessage,
    raw: string,
  ): { status: number; body: unknown } {
    if (req.headers.authorization !== expectedAuth) {
      return { status: 401, body: twilioError(401, 20003, "Authenticate") };
    }
    const params = new URLSearchParams(raw);
    const to = params.get("To");
    const forcedAt = forced.findIndex((f) => f.to === undefined || f.to === to);
    const forcedAnswer = forcedAt >= 0 ? forced.splice(forcedAt, 1)[0] : undefined;
    if (forcedAnswer) {
      return {
        status: forcedAnswer.status,
        body: forcedAnswer.json ?? twilioError(forcedAnswer.status, 20500, "Internal Server Error"),
      };
    }
    if (path !== `/${API_VERSION}/Accounts/${accountSid}/Messages.json`) {
      return { status: 404, body: twilioError(404, 20404, `The requested resource ${path} was not found`) };
    }
    const from = params.get("From");
    const service = params.get("MessagingServiceSid");
    const body = params.get("Body") ?? "";
    const mediaUrls = params.getAll("MediaUrl");
    if (!to) return { status: 400, body: twilioError(400, 21604, "A 'To' phone number is required.") };
    if (!E164.test(to)) {
      return {
        status: 400,
        body: twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`),
      };
    }
    if (!from && !service) {
      return { status: 400, body: twilioError(400, 21603, "A 'From' phone number is required.") };
    }
    if (body === "" && mediaUrls.length === 0) {
      return { status: 400, body: twilioError(400, 21602, "Message body is required.") };
    }
    const sid = twilioSid(mediaUrls.length > 0 ? "MM" : "SM");
    const status = service && !from ? "accepted" : "queued";
    messages.set(sid, {
      sid,
      to,
      from: from ?? null,
      messagingServiceSid: service ?? null,
      body,
      mediaUrls,
      statusCallback: params.get("StatusCallback"),
      status,
    });
    const now = new Date().toUTCString().replace("GMT", "+0000");
    return {
      status: 201,
      body: {
        account_sid: accountSid,
        api_version: API_VERSION,
        body,
        date_created: now,
        date_sent: null,
        date_updated: now,
        direction: "outbound-api",
        error_code: null,
        error_message: null,
        from: from ?? null,
        messaging_service_sid: service ?? null,
        num_media: String(mediaUrls.length),
        num_segments: "1",
        price: null,
        price_unit: "USD",
        sid,
        status,
        subresource_uris: { media: `/${API_VERSION}/Accounts/${accountSid}/Messages/${sid}/Media.json` },
        to,
        uri: `/${API_VERSION}/Accounts/${accountSid}/Messages/${sid}.json`,
      },
    };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const path = new URL(req.url ?? "/", "http://stand-in").pathname;
      if (req.method === "POST" && path.endsWith("/Messages.json")) {
        const answer = createMessage(path, req, raw);
        const form: Record<string, string> = {};
        for (const [k, v] of new URLSearchParams(raw)) form[k] = v;
        requests.push({
          method: req.method,
          path,
          authorization: req.headers.authorization,
          contentType: req.headers["content-type"],
          form,
          rawBody: raw,
          status: answer.status,
        });
        send(res, answer.status, answer.body);
        return;
      }
      if (req.method === "GET" && media.has(path)) {
        mediaFetches.push({ path, authorization: req.headers.authorization });
        if (req.headers.authorization !== expectedAuth) {
          send(res, 401, twilioError(401, 20003, "Authenticate"));
          return;
        }
        // Twilio redirects to where the file is kept.
        const key = `/media-store/${randomBytes(12).toString("hex")}`;
        stored.set(key, media.get(path)!);
        res.writeHead(307, { location: key });
        res.end();
        return;
      }
      if (req.method === "GET" && stored.has(path)) {
        const file = stored.get(path)!;
        res.writeHead(200, { "content-type": file.contentType, "content-length": file.bytes.length });
        res.end(file.bytes);
        return;
      }
      send(res, 404, twilioError(404, 20404, `The requested resource ${path} was not found`));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** The request Twilio would send: form-encoded, signed over the URL and the parameters. */
  function signed(url: string, params: Record<string, string>, token = authToken): WebhookRequest {
    return {
      url,
      params,
      body: new URLSearchParams(params).toString(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "*/*",
        "user-agent": "TwilioProxy/1.1",
        "i-twilio-idempotency-token": randomBytes(16).toString("hex"),
        "x-twilio-signature": getExpectedTwilioSignature(token, url, params),
      },
    };
  }

  const addMedia: TwilioStandIn["addMedia"] = (messageSid, bytes, contentType) => {
    const path = `/${API_VERSION}/Accounts/${accountSid}/Messages/${messageSid}/Media/${twilioSid("ME")}`;
    media.set(path, { bytes, contentType });
    return base + path;
  };

  return {
    url: base,
    accountSid,
    authToken,
    number,
    requests,
    messages,
    mediaFetches,
    queue: (...answers) => {
      forced.push(...answers);
    },
    addMedia,
    async incoming(webhookUrl, opts) {
      const files = opts.media ?? [];
      const messageSid = opts.messageSid ?? twilioSid(files.length > 0 ? "MM" : "SM");
      const params: Record<string, string> = {
        ToCountry: "US",
        ToState: "CA",
        SmsMessageSid: messageSid,
        NumMedia: String(files.length),
        ToCity: "",
        FromZip: "",
        SmsSid: messageSid,
        FromState: "CA",
        SmsStatus: "received",
        FromCity: "",
        Body: opts.body,
        FromCountry: "US",
        To: opts.to ?? number,
        ...(opts.messagingServiceSid ? { MessagingServiceSid: opts.messagingServiceSid } : {}),
        ToZip: "",
        NumSegments: "1",
        MessageSid: messageSid,
        AccountSid: accountSid,
        From: opts.from,
        ApiVersion: API_VERSION,
      };
      files.forEach((file, i) => {
        params[`MediaContentType${i}`] = file.contentType;
        params[`MediaUrl${i}`] = addMedia(messageSid, file.bytes, file.contentType);
      });
      const request = signed(webhookUrl, params, opts.signWith);
      return { request, answer: await deliver(request), messageSid };
    },
    async statusCallback(messageSid, status, opts = {}) {
      const message = messages.get(messageSid);
      const url = opts.url ?? message?.statusCallback;
      if (!url) throw new Error(`no StatusCallback for ${messageSid}`);
      if (message) message.status = status;
      const params: Record<string, string> = {
        ...(opts.errorCode ? { ErrorCode: opts.errorCode } : {}),
        SmsSid: messageSid,
        SmsStatus: status,
        MessageStatus: status,
        To: message?.to ?? "",
        ...(message?.messagingServiceSid ? { MessagingServiceSid: message.messagingServiceSid } : {}),
        MessageSid: messageSid,
        AccountSid: accountSid,
        From: message?.from ?? number,
        ApiVersion: API_VERSION,
      };
      const request = signed(url, params);
      return { request, answer: await deliver(request) };
    },
    redeliver: (request) => deliver(request),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

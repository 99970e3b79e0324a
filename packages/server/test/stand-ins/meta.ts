// A local stand-in for Meta's side of WhatsApp Cloud API, Messenger and Instagram messaging, written
// from Meta's documentation:
// - WhatsApp Cloud API, "Send messages" (POST /{Version}/{Phone-Number-ID}/messages → {messaging_product,
//   contacts:[{input,wa_id}], messages:[{id}]}), "Media" (GET /{Version}/{Media-ID} → {url, mime_type,
//   sha256, file_size, id}, then GET url with the same bearer token), "Webhooks payload examples"
//   (entry[].changes[].value with metadata, contacts, messages or statuses).
// - Messenger Platform Send API (POST /{Version}/{Page-ID}/messages {recipient, messaging_type, message}
//   → {recipient_id, message_id}) and its webhook events (entry[].messaging[] with message, delivery).
// - Graph API errors: {"error":{"message","type","code","error_subcode","fbtrace_id"}}, code 190 for an
//   invalid OAuth access token, answered with HTTP 401.
// - WhatsApp template messages ("Send message templates"): type "template", template {name, language
//   {code}, components?: [{type: "body", parameters: [{type: "text", text}]}]}; a malformed one is
//   answered 400 with error code 100 "Invalid parameter" (131008 for a parameter without its text) and
//   error_data {messaging_product, details}.
// - Webhooks: every POST carries X-Hub-Signature-256: sha256=<HMAC-SHA256 of the raw body, app secret>.
import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface MetaRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown> | null;
  /** The message id the stand-in answered an accepted send with. */
  answeredId?: string;
}

export interface ForcedAnswer {
  status: number;
  body: unknown;
}

export interface MetaStandIn {
  /** META_GRAPH_URL for Parley. */
  url: string;
  /** Every call Parley made, oldest first. */
  requests: MetaRequest[];
  /** The send calls (…/messages) only. */
  sends(): MetaRequest[];
  /** The message ids the stand-in gave out for accepted sends, in order. */
  issued: string[];
  /** Access tokens the stand-in accepts (others answer 401, code 190). */
  tokens: Set<string>;
  /** Answers for the next send calls, in order, before the normal ones resume. */
  forceSends(...answers: ForcedAnswer[]): void;
  /** A media object Parley can fetch by id. */
  addMedia(id: string, mimeType: string, bytes: Buffer): void;
  close(): Promise<void>;
}

export const GRAPH_ERRORS = {
  invalidToken: {
    status: 401,
    body: {
      error: {
        message: "Error validating access token: Session has expired.",
        type: "OAuthException",
        code: 190,
        error_subcode: 463,
        fbtrace_id: "AbCdEfGh123",
      },
    },
  },
  serverError: {
    status: 500,
    body: {
      error: {
        message: "An unexpected error has occurred. Please retry your request later.",
        type: "OAuthException",
        code: 2,
        fbtrace_id: "AbCdEfGh456",
      },
    },
  },
} satisfies Record<string, ForcedAnswer>;

const wamid = () => `wamid.${randomBytes(24).toString("base64url")}`;

/** Meta's answer to a malformed WhatsApp send: 400 with the Graph error and what is wrong in details. */
function whatsappParameterError(details: string, code = 100): ForcedAnswer {
  return {
    status: 400,
    body: {
      error: {
        message: code === 131008 ? "(#131008) Required parameter is missing" : "(#100) Invalid parameter",
        type: "OAuthException",
        code,
        error_data: { messaging_product: "whatsapp", details },
        fbtrace_id: `A${randomBytes(8).toString("hex")}`,
      },
    },
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A template send checked against Meta's documented shape; null when it is well formed. */
function templateSendError(body: Record<string, unknown>): ForcedAnswer | null {
  const template = body.template;
  if (!isObject(template)) return whatsappParameterError("Parameter template is missing or empty");
  if (typeof template.name !== "string" || template.name === "") {
    return whatsappParameterError("Parameter name is missing or empty");
  }
  const language = template.language;
  if (!isObject(language) || typeof language.code !== "string" || language.code === "") {
    return whatsappParameterError("Parameter language is missing or empty");
  }
  if (template.components === undefined) return null;
  if (!Array.isArray(template.components)) {
    return whatsappParameterError("Parameter components must be an array");
  }
  for (const [i, component] of template.components.entries()) {
    if (!isObject(component) || !["header", "body", "button"].includes(String(component.type))) {
      return whatsappParameterError(`components[${i}]['type'] must be one of {HEADER, BODY, BUTTON}`);
    }
    if (component.parameters === undefined) continue;
    if (!Array.isArray(component.parameters)) {
      return whatsappParameterError(`components[${i}]['parameters'] must be an array`);
    }
    for (const [j, parameter] of component.parameters.entries()) {
      const at = `components[${i}]['parameters'][${j}]`;
      if (!isObject(parameter) || typeof parameter.type !== "string") {
        return whatsappParameterError(`${at}['type'] is missing`);
      }
      if (parameter.type === "text" && (typeof parameter.text !== "string" || parameter.text === "")) {
        return whatsappParameterError(`Parameter of type text is missing text value (${at})`, 131008);
      }
    }
  }
  return null;
}

export async function startMetaStandIn(): Promise<MetaStandIn> {
  const requests: MetaRequest[] = [];
  const tokens = new Set<string>();
  const forced: ForcedAnswer[] = [];
  const media = new Map<string, { mimeType: string; bytes: Buffer }>();
  const issued: string[] = [];
  let base = "";
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: Record<string, unknown> | null = null;
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
      } catch {
        body = null;
      }
      const path = (req.url ?? "/").split("?")[0]!;
      const call: MetaRequest = {
        method: req.method ?? "GET",
        path,
        authorization: req.headers.authorization,
        body,
      };
      requests.push(call);
      const answer = (status: number, payload: unknown, type = "application/json") => {
        res.writeHead(status, { "content-type": type });
        res.end(typeof payload === "string" || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload));
      };
      const token = call.authorization?.replace(/^Bearer /, "");
      if (!token || !tokens.has(token))
        return answer(GRAPH_ERRORS.invalidToken.status, GRAPH_ERRORS.invalidToken.body);
      const file = path.match(/^\/files\/(.+)$/);
      if (file) {
        const m = media.get(file[1]!);
        return m ? answer(200, m.bytes, m.mimeType) : answer(404, "not found", "text/plain");
      }
      const send = path.match(/^\/(v\d+\.\d)\/(\d+)\/messages$/);
      if (send && req.method === "POST") {
        const next = forced.shift();
        if (next) return answer(next.status, next.body);
        if (body?.messaging_product === "whatsapp") {
          const refused = body.type === "template" ? templateSendError(body) : null;
          if (refused) return answer(refused.status, refused.body);
          const id = wamid();
          issued.push(id);
          call.answeredId = id;
          return answer(200, {
            messaging_product: "whatsapp",
            contacts: [{ input: body.to, wa_id: body.to }],
            messages: [{ id }],
          });
        }
        const recipient = (body?.recipient as { id?: string } | undefined)?.id;
        const id = `m_${randomBytes(16).toString("hex")}`;
        issued.push(id);
        call.answeredId = id;
        return answer(200, { recipient_id: recipient, message_id: id });
      }
      const mediaInfo = path.match(/^\/(v\d+\.\d)\/([^/]+)$/);
      if (mediaInfo && req.method === "GET") {
        const m = media.get(mediaInfo[2]!);
        if (!m) {
          return answer(400, {
            error: {
              message: "Unsupported get request.",
              type: "GraphMethodException",
              code: 100,
              error_subcode: 33,
            },
          });
        }
        return answer(200, {
          messaging_product: "whatsapp",
          url: `${base}/files/${mediaInfo[2]}`,
          mime_type: m.mimeType,
          sha256: "",
          file_size: m.bytes.length,
          id: mediaInfo[2],
        });
      }
      answer(404, { error: { message: "Unknown path", type: "GraphMethodException", code: 100 } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    sends: () => requests.filter((r) => r.method === "POST" && r.path.endsWith("/messages")),
    issued,
    tokens,
    forceSends: (...answers) => forced.push(...answers),
    addMedia: (id, mimeType, bytes) => media.set(id, { mimeType, bytes }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** X-Hub-Signature-256 as Meta computes it. */
export function metaSignature(appSecret: string, body: string): string {
  return `sha256=${createHmac("sha256", appSecret).update(body).digest("hex")}`;
}

// ---- webhook payloads, as in Meta's "Webhooks payload examples" ---------------------------------

export function whatsappMessages(
  phoneNumberId: string,
  contact: { waId: string; name: string },
  messages: Record<string, unknown>[],
) {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "102290129340398",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550783881", phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: contact.name }, wa_id: contact.waId }],
              messages: messages.map((m) => ({
                from: contact.waId,
                id: wamid(),
                timestamp: String(Math.floor(Date.now() / 1000)),
                ...m,
              })),
            },
          },
        ],
      },
    ],
  };
}

export function whatsappStatus(
  phoneNumberId: string,
  id: string,
  recipient: string,
  status: "sent" | "delivered" | "read" | "failed",
  error?: { code: number; title: string },
) {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "102290129340398",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550783881", phone_number_id: phoneNumberId },
              statuses: [
                {
                  id,
                  status,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  recipient_id: recipient,
                  ...(status === "failed" && error
                    ? {
                        errors: [
                          {
                            code: error.code,
                            title: error.title,
                            message: error.title,
                            error_data: { details: error.title },
                          },
                        ],
                      }
                    : {
                        conversation: { id: "CONVERSATION_ID", origin: { type: "service" } },
                        pricing: { billable: true, pricing_model: "CBP", category: "service" },
                      }),
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

export function messengerEvent(
  object: "page" | "instagram",
  pageId: string,
  events: Record<string, unknown>[],
) {
  return {
    object,
    entry: [
      {
        id: pageId,
        time: Date.now(),
        messaging: events.map((e) => ({ recipient: { id: pageId }, timestamp: Date.now(), ...e })),
      },
    ],
  };
}

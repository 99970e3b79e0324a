// The shape every built-in channel type has (DESIGN.md section 9): it validates and splits its config,
// checks an inbound request (the provider's signature), turns a checked payload into incoming messages
// and status changes, and sends one outbound message. Adapters never touch other modules' tables: the
// channels module's inbound job and the delivery job call the incoming and delivery services with what
// an adapter returns.
import type { AppContext } from "../../../context.ts";
import type { ChannelRow, ChannelType, MessageRow } from "../../../platform/db/schema.ts";

export type { ChannelType };

/** A channel with its config parsed and its secrets decrypted (never sent to a client as is). */
export type DecryptedChannel = Omit<ChannelRow, "config" | "secrets"> & {
  config: Record<string, unknown>;
  secrets: Record<string, unknown>;
};

export type SendOutcome =
  | { ok: true; providerMessageId?: string }
  | {
      ok: false;
      retryable: boolean;
      errorClass: string;
      message: string;
      statusCode?: number;
      /** The provider refused the channel's credentials: the channel turns `error` with this message. */
      credentialsRefused?: boolean;
      /** The provider says the recipient unsubscribed (Twilio 21610): the contact is marked opted out. */
      recipientOptedOut?: boolean;
    };

/** Who an outbound message goes to, and what the channel needs to know about the conversation. */
export interface SendTarget {
  /** The provider's address of the contact: the `from` of its latest message in this conversation
   * (wa_id, phone, chat id, PSID), else null (the adapter may fall back on the contact's phone). */
  address: string | null;
  /** The contact's phone (E.164), for phone channels reaching someone who never wrote. */
  phone: string | null;
  /** When the contact last wrote in this conversation (epoch ms): the 24-hour window starts there. */
  lastInboundAt: number | null;
  /** A public URL of the message's attachment, when it has one. */
  mediaUrl: string | null;
}

/** An inbound HTTP request on a channel's inbound URL, as the adapter needs it for its checks. */
export interface InboundRequest {
  /** The URL the provider called, as it knows it: PUBLIC_URL + path + query (Twilio signs it). */
  publicUrl: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
}

/** What Parley answers the provider. */
export interface InboundReply {
  status: number;
  contentType: string;
  body: string;
}

export type InboundCheck =
  | { ok: true; payload: unknown }
  | { ok: false; status: 400 | 401 | 403; message: string };

/** A reference to an attachment the provider holds, fetched (with the channel's credentials) in the job. */
export interface MediaRef {
  /** Provider specific: a media id (WhatsApp), a file id (Telegram), a URL (Twilio, Messenger). */
  ref: string;
  contentType: string | null;
  fileName?: string | null;
}

export type InboundEvent =
  | {
      kind: "message";
      /** The provider's message id, prefixed by the type (`wa:wamid…`): incoming is idempotent on it. */
      externalId: string;
      /** The sender's address on the provider (wa_id, phone, chat id, PSID): replies go there. */
      address: string;
      /** How the contact is found or created: by phone (E.164) or by an external id (`tg:<id>`). */
      contact: { phone?: string; externalId?: string; firstName?: string | null; lastName?: string | null };
      body: string;
      media?: MediaRef | null;
      /**
       * A keyword the provider itself answers (Twilio's STOP, START, HELP): kept in the conversation,
       * never answered by the bot (a second answer to STOP would be a compliance problem).
       */
      providerKeyword?: boolean;
    }
  | {
      kind: "status";
      providerMessageId: string;
      status: "sent" | "delivered" | "read" | "failed";
      /** The provider's error code and text, when failed. */
      error?: { code: string; message: string } | null;
    }
  | {
      kind: "opt_out" | "opt_in";
      /** The phone (E.164) that texted STOP or START. */
      phone: string;
    };

export interface ChannelAdapter {
  type: ChannelType;
  /** The config keys that are secrets: stored encrypted, answered masked. */
  secretKeys: readonly string[];
  /** Validates and splits a create/update body's config into public and secret parts (4xx AppError on bad input). */
  parseConfig(
    input: unknown,
    previous?: { config: Record<string, unknown>; secrets: Record<string, unknown> },
  ): { config: Record<string, unknown>; secrets: Record<string, unknown> };
  /** After the channel is stored (Telegram's setWebhook); a throw (AppError) undoes the creation. */
  connect?(ctx: AppContext, channel: DecryptedChannel, inboundUrl: string): Promise<void>;
  /** Before the channel is deleted (Telegram's deleteWebhook); best effort. */
  disconnect?(ctx: AppContext, channel: DecryptedChannel): Promise<void>;
  /** A GET on the inbound URL: Meta's subscription handshake. Absent: 405. */
  verifySubscription?(channel: DecryptedChannel, query: Record<string, string>): InboundReply;
  /** Checks a POST on the inbound URL (signature, secret token); nothing is stored when it fails. */
  authenticate?(channel: DecryptedChannel, req: InboundRequest): InboundCheck;
  /** The answer to an accepted POST (Twilio wants TwiML); default 200 `{"ok":true}`. */
  acceptedReply?: InboundReply;
  /** An answer that depends on the accepted payload (Telegram answers a button press in it); null: the default. */
  inboundReply?(payload: unknown): InboundReply | null;
  /** In the inbound job: a checked payload into events. */
  parseInbound?(payload: unknown): InboundEvent[];
  /** In the inbound job: an attachment's bytes, with the channel's credentials. */
  fetchMedia?(
    ctx: AppContext,
    channel: DecryptedChannel,
    media: MediaRef,
  ): Promise<{ bytes: Buffer; contentType: string }>;
  /** Sends one outbound message. */
  send(
    ctx: AppContext,
    channel: DecryptedChannel,
    message: MessageRow,
    target: SendTarget,
  ): Promise<SendOutcome>;
}

// The web app's response schemas (/app/api): they document the answers, serialize them (a field not
// listed here is dropped) and, through the OpenAPI document, generate the web app's types
// (packages/web/src/lib/generated/app-api.ts). The /v1 schemas are reused where the shape is the same.
import { type Static, type TSchema, Type } from "typebox";
import { pageOf } from "../../platform/pagination.ts";
import { AssistJson } from "../assist/schemas.ts";
import { FunctionCallJson } from "../bot/schemas.ts";
import { BrandJson } from "../branding/schemas.ts";
import { ChannelTypeSchema } from "../channels/schemas.ts";
import { ContactJson } from "../contacts/schemas.ts";
import { CreatedSubaccountJson } from "../credits/schemas.ts";
import { DeliveryAttemptJson } from "../messaging/view.ts";

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** No body (204): documented without content. */
// (type null: the OpenAPI document shows no content; typed undefined, so `reply.code(204).send()`.)
export const NoContent = Type.Unsafe<undefined>({ type: "null", description: "No content" });

export const Role = Type.Union([Type.Literal("owner"), Type.Literal("admin"), Type.Literal("agent")]);
const AccountKind = Type.Union([
  Type.Literal("standard"),
  Type.Literal("agency"),
  Type.Literal("subaccount"),
]);

// ---- session, team, settings ---------------------------------------------------------------------

export const SessionJson = Type.Object({
  user: Type.Object({ id: Type.String(), email: Type.String(), name: Nullable(Type.String()), role: Role }),
  account: Type.Object({ id: Type.String(), name: Type.String(), kind: AccountKind }),
  csrfToken: Type.String(),
  /** A sub-account's agency's brand (the app shows it instead of Parley's), else null. */
  brand: Type.Optional(Nullable(BrandJson)),
  /** Set while an agency person assists this account from their own session (the app's banner). */
  assist: Type.Optional(Nullable(AssistJson)),
});

/** GET /session/state: 200 whether or not someone is signed in (the app's probe logs no 401). */
export const SessionStateJson = Type.Object({
  signedIn: Type.Boolean(),
  session: Type.Optional(SessionJson),
  /** True when the cookie's account is a suspended sub-account (signedIn is then false). */
  suspended: Type.Optional(Type.Boolean()),
  /** With suspended: the session's CSRF token, so the person can still sign out. */
  csrfToken: Type.Optional(Type.String()),
});

export const OnboardingState = Type.Object({ needed: Type.Boolean(), allowed: Type.Boolean() });

export const OnboardedJson = Type.Object({
  ...SessionJson.properties,
  apiKey: Type.String({ description: "The account's API key, shown only in this answer" }),
});

export const AcceptedInviteJson = Type.Object({
  ...SessionJson.properties,
  notice: Type.Optional(
    Type.String({ description: "Not joined: the address signs in to another account (signed in there)" }),
  ),
});

export const PasswordResetAccepted = Type.Object({ ok: Type.Literal(true) });
export const PasswordResetJson = Type.Object({ email: Type.String() });

export const InviteJson = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  expiresAt: Type.String(),
  createdAt: Type.String(),
});

export const TeamJson = Type.Object({
  members: Type.Array(
    Type.Object({
      id: Type.String(),
      email: Type.String(),
      name: Nullable(Type.String()),
      role: Role,
      createdAt: Type.String(),
    }),
  ),
  invites: Type.Array(InviteJson),
});

export const CreatedInviteJson = Type.Object({ invite: InviteJson, url: Type.String() });

export const InviteLinkJson = Type.Object({ email: Type.String(), accountName: Type.String(), role: Role });

export const SettingsJson = Type.Object({
  accountId: Type.String(),
  name: Type.String(),
  email: Type.String(),
  kind: AccountKind,
  botActive: Type.Boolean(),
  webhookUrl: Nullable(Type.String()),
  eventsWebhookUrl: Nullable(Type.String()),
  llm: Type.Object({
    baseUrl: Nullable(Type.String()),
    model: Nullable(Type.String()),
    apiKeySet: Type.Boolean(),
  }),
  apiKey: Nullable(Type.Object({ prefix: Type.String(), createdAt: Type.String() })),
});

export const ApiKeyJson = Type.Object({ apiKey: Type.String({ description: "Shown only in this answer" }) });
export const WebhookSecretJson = Type.Object({ webhookSecret: Type.String() });

export const WebhookTestJson = Type.Object({
  ok: Type.Boolean(),
  statusCode: Nullable(Type.Integer()),
  body: Type.String({ description: "The first 512 bytes of the answer" }),
  error: Nullable(Type.String()),
});

// ---- the inbox ------------------------------------------------------------------------------------

export const ChannelKind = Type.Union([...ChannelTypeSchema.anyOf, Type.Literal("custom")]);
/** A conversation's channel: the custom channel or a built-in type. */
export type ChannelKindName = Static<typeof ChannelKind>;

export const AppConversationJson = Type.Object({
  id: Type.String(),
  contact: Type.Object({
    id: Type.String(),
    name: Nullable(Type.String()),
    fromId: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    email: Nullable(Type.String()),
    smsOptedOutAt: Nullable(Type.String({ description: "Texted STOP on an SMS channel" })),
  }),
  channel: Nullable(Type.String()),
  channelId: Nullable(Type.String({ description: "The built-in channel; null on the custom channel" })),
  channelType: Nullable(ChannelKind),
  campaignId: Nullable(Type.String()),
  lastMessage: Nullable(
    Type.Object({
      body: Nullable(Type.String()),
      direction: Type.Union([Type.Literal("inbound"), Type.Literal("outbound")]),
      createdAt: Type.String(),
      // Who wrote it: the list's preview says "Bot:", "Sam:" or "You:".
      sender: Type.Union([
        Type.Literal("contact"),
        Type.Literal("bot"),
        Type.Literal("human"),
        Type.Literal("api"),
      ]),
      userId: Nullable(Type.String({ description: "The person who wrote a human reply" })),
      senderName: Nullable(Type.String({ description: "Their name (else e-mail) on a human reply" })),
    }),
  ),
  unreadCount: Type.Integer(),
  humanAlert: Type.Boolean(),
  humanAlertReason: Nullable(Type.String()),
  assignee: Nullable(Type.Object({ id: Type.String(), name: Nullable(Type.String()) })),
  status: Type.Union([Type.Literal("open"), Type.Literal("resolved")]),
  botPaused: Type.Boolean(),
  lastMessageAt: Nullable(Type.String()),
  createdAt: Type.String(),
  contactSeenAt: Nullable(Type.String({ description: "When the contact last saw the conversation" })),
  match: Type.Optional(
    Nullable(
      Type.Object(
        {
          messageId: Type.String(),
          snippet: Type.String(),
          highlights: Type.Array(Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }), {
            description: "[start, end) offsets into snippet of each matched word",
          }),
        },
        {
          description:
            "With q only: the newest matching message; null when the contact's name, phone, e-mail or " +
            "channel id matched",
        },
      ),
    ),
  ),
});

export const AppConversationPage = pageOf(AppConversationJson);

/** The signed-in teammate's unread conversations (the tab title), counted up to 100. */
export const AppUnreadJson = Type.Object({ unreadConversations: Type.Integer({ minimum: 0 }) });

/**
 * A bot reply's outcome: answered, fell back, handed over, a follow-up, the away message, or "Did you
 * mean" choices.
 */
const BotOutcomeJson = Type.Union([
  Type.Literal("answer"),
  Type.Literal("fallback"),
  Type.Literal("handover"),
  Type.Literal("follow_up"),
  Type.Literal("away"),
  Type.Literal("choices"),
]);
export type BotOutcome = Static<typeof BotOutcomeJson>;

export const LlmTokensJson = Type.Object({ input: Type.Integer(), output: Type.Integer() });

export const AppMessageJson = Type.Object({
  id: Type.String(),
  direction: Type.Union([Type.Literal("inbound"), Type.Literal("outbound")]),
  type: Type.Union([Type.Literal("text"), Type.Literal("reaction")]),
  sender: Type.Union([
    Type.Literal("contact"),
    Type.Literal("bot"),
    Type.Literal("human"),
    Type.Literal("api"),
  ]),
  senderName: Nullable(Type.String()),
  botOutcome: Nullable(BotOutcomeJson),
  body: Nullable(Type.String()),
  status: Type.String(),
  error: Nullable(
    Type.Object({
      statusCode: Nullable(Type.Integer()),
      errorClass: Nullable(Type.String()),
      message: Nullable(Type.String()),
      responseBody: Nullable(Type.String()),
      at: Nullable(Type.String()),
    }),
  ),
  deliveryAttempts: Type.Array(DeliveryAttemptJson),
  media: Nullable(
    Type.Object({
      state: Type.Union([Type.Literal("pending"), Type.Literal("stored"), Type.Literal("rejected")]),
      contentType: Nullable(Type.String()),
      reason: Nullable(Type.String()),
      url: Type.String({ description: "/app/api/messages/{id}/media" }),
    }),
  ),
  reactions: Type.Array(Type.Object({ body: Type.String(), createdAt: Type.String() })),
  llmTokens: Nullable(LlmTokensJson),
  retry: Type.Optional(
    Nullable(
      Type.Object(
        {
          nextAttemptAt: Type.String(),
          attempt: Type.Integer({ description: "The next attempt's number, counted from the last resend" }),
          maxAttempts: Nullable(
            Type.Integer({ description: "The first attempt and the configured retries" }),
          ),
        },
        { description: "A failed message with a retry scheduled; null otherwise" },
      ),
    ),
  ),
  createdAt: Type.String(),
});

/** A line in the thread that is not a message: "handed_back" (a person's reply cleared "needs a human"). */
export const AppConversationEventJson = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  userName: Nullable(Type.String()),
  createdAt: Type.String(),
});

export const AppConversationDetail = Type.Object({
  conversation: AppConversationJson,
  messages: Type.Array(AppMessageJson, { description: "The thread's last messages, oldest first" }),
  functionCalls: Type.Array(FunctionCallJson, { description: "The bot's calls of the campaign's functions" }),
  events: Type.Optional(Type.Array(AppConversationEventJson, { description: "Hand-backs, oldest first" })),
});

export const AppResendJson = Type.Object({
  success: Type.Literal(true),
  messageId: Type.String(),
  status: Type.Literal("pending"),
});

/** Server-sent events (`event: conversation`, data `{"conversationId": …}`). */
export const EventStream = Type.String({ description: "text/event-stream" });

export const MediaBytes = Type.Unknown({
  format: "binary",
  description: "The attachment's bytes, with its content type",
});

export const CsvText = Type.String({ description: "text/csv" });

// ---- contacts and lists ---------------------------------------------------------------------------

export const AppContactRow = Type.Object({
  ...ContactJson.properties,
  conversationId: Nullable(Type.String({ description: "The contact's latest conversation, if any" })),
  channelType: Nullable(Type.String({ description: "That conversation's channel type" })),
  fromId: Nullable(Type.String({ description: "The contact's sender id on its channel" })),
});

export const AppContactPage = pageOf(AppContactRow);

export const AppCreatedContact = Type.Object({ ...ContactJson.properties, created: Type.Boolean() });

export const AppContactDetail = Type.Object({
  contact: ContactJson,
  lists: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
  conversationId: Nullable(Type.String()),
  channelType: Nullable(Type.String()),
  fromId: Nullable(Type.String()),
});

export const AppMemberAdded = Type.Object({ success: Type.Literal(true), added: Type.Boolean() });
export const AppMemberRemoved = Type.Object({ success: Type.Literal(true), removed: Type.Boolean() });

// ---- dashboard ------------------------------------------------------------------------------------

const Figures = {
  inbound: Type.Integer(),
  outbound: Type.Integer(),
  sent: Type.Integer(),
  failed: Type.Integer(),
  botAnswers: Type.Integer(),
  botFallbacks: Type.Integer(),
};

export const ChannelFiguresJson = Type.Object({
  channelId: Nullable(Type.String({ description: "null: the custom channel" })),
  channelType: Nullable(ChannelKind),
  name: Nullable(Type.String()),
  ...Figures,
});

export const BotFunctionFiguresJson = Type.Object({
  name: Type.String(),
  calls: Type.Integer(),
  failures: Type.Integer({ description: "Calls with any status but ok" }),
});

export const DashboardDayJson = Type.Object({
  date: Type.String({ description: "YYYY-MM-DD (UTC)" }),
  ...Figures,
  creditsUsed: Type.Number(),
});

export const DashboardJson = Type.Object({
  days: Type.Array(DashboardDayJson),
  totals: Type.Object({
    ...Figures,
    creditsUsed: Type.Number(),
    deliverySuccessRate: Nullable(Type.Number()),
  }),
  waitingForPerson: Type.Integer(),
  byChannel: Type.Array(ChannelFiguresJson),
  botFunctions: Type.Array(BotFunctionFiguresJson),
  llmTokens: LlmTokensJson,
});

// ---- agency, imports ------------------------------------------------------------------------------

/** The signed-in account's own balance (a sub-account sees what its agency granted). */
export const BalanceJson = Type.Object({ balance: Type.Number({ description: "Credits (two decimals)" }) });

/** The sub-account as created, with its owner's link; the API key is shown only by /v1. */
export const AppCreatedSubaccount = Type.Omit(CreatedSubaccountJson, ["apiKey"]);

export const ImportPreviewJson = Type.Object({
  header: Type.Array(Type.String()),
  mapping: Type.Record(Type.String(), Type.String(), { description: "Column → contact field" }),
  sample: Type.Array(Type.Array(Type.String())),
  total: Type.Integer({ description: "Data rows in the file" }),
});

// ---- notifications --------------------------------------------------------------------------------

export const NotificationJson = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  title: Type.String(),
  body: Type.String(),
  link: Nullable(Type.String({ description: "A path inside the app" })),
  createdAt: Type.String(),
  readAt: Nullable(Type.String()),
});

export const NotificationPageJson = Type.Object({
  data: Type.Array(NotificationJson),
  unreadCount: Type.Integer(),
  nextCursor: Nullable(Type.String()),
});

const NotificationKindJson = Type.Object({
  kind: Type.String(),
  label: Type.String(),
  description: Type.String(),
});

export const PreferenceMapJson = Type.Record(
  Type.String(),
  Type.Object({ email: Type.Boolean(), app: Type.Boolean() }),
  { description: "Per notification kind" },
);

export const NotificationPreferencesJson = Type.Object({
  kinds: Type.Array(NotificationKindJson),
  preferences: PreferenceMapJson,
});

export const NotificationDefaultsJson = Type.Object({
  kinds: Type.Array(NotificationKindJson),
  defaults: PreferenceMapJson,
  creditsLowThreshold: Nullable(Type.Number({ description: "null: no low-credits warning" })),
});

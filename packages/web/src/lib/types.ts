// The /app/api shapes the app reads (docs/app-api.md is the contract).

export type Role = "owner" | "admin" | "agent";

export interface Session {
  user: { id: string; email: string; name: string | null; role: Role };
  account: { id: string; name: string; kind: "standard" | "agency" | "subaccount" };
  csrfToken: string;
}

export interface Conversation {
  id: string;
  contact: {
    id: string;
    name: string | null;
    fromId: string | null;
    phone: string | null;
    email: string | null;
    /** When the contact texted STOP to an SMS channel (START clears it); absent or null: not opted out. */
    smsOptedOutAt?: string | null;
  };
  channel: string | null;
  /** The built-in channel the conversation belongs to; null on the custom channel. */
  channelId: string | null;
  /** "custom", a built-in type such as "web", or null when its channel was deleted. */
  channelType: ChannelKind | null;
  campaignId: string | null;
  lastMessage: { body: string | null; direction: "inbound" | "outbound"; createdAt: string } | null;
  unreadCount: number;
  humanAlert: boolean;
  humanAlertReason: string | null;
  assignee: { id: string; name: string | null } | null;
  status: "open" | "resolved";
  botPaused: boolean;
  lastMessageAt: string | null;
  /** When the contact last saw the conversation (the website chat reports it); null until then. */
  contactSeenAt: string | null;
}

export interface ConversationPage {
  data: Conversation[];
  hasMore: boolean;
  nextCursor: string | null;
}

export interface DeliveryAttempt {
  id: string;
  url: string | null;
  attemptNumber: number;
  trigger: string;
  attemptedAt: string;
  durationMs: number | null;
  statusCode: number | null;
  errorClass: string | null;
  errorMessage: string | null;
  responseBody: string | null;
  nextAttemptAt: string | null;
}

export interface Message {
  id: string;
  direction: "inbound" | "outbound";
  type: "text" | "reaction";
  sender: "contact" | "bot" | "human" | "api";
  senderName: string | null;
  /**
   * The bot's replies: answered from the knowledge, the fallback, or the hand-over to a person (the
   * customer asked for one); follow_up on a campaign's follow-up; away on its away message outside
   * business hours; null on other messages.
   */
  botOutcome: "answer" | "fallback" | "handover" | "follow_up" | "away" | null;
  /** An LLM reply's token use; null (or absent) on other messages. */
  llmTokens?: LlmTokens | null;
  body: string | null;
  status: string;
  error: {
    statusCode: number | null;
    errorClass: string | null;
    message: string | null;
    responseBody: string | null;
    at: string | null;
  } | null;
  deliveryAttempts: DeliveryAttempt[];
  media: {
    state: "pending" | "stored" | "rejected";
    contentType: string | null;
    reason: string | null;
    url: string;
  } | null;
  reactions: { body: string; createdAt: string }[];
  createdAt: string;
}

export interface ConversationDetail {
  conversation: Conversation;
  messages: Message[];
  /** The bot's calls of the campaign's functions, oldest first (absent on an older server). */
  functionCalls?: FunctionCall[];
}

export interface LlmTokens {
  input: number;
  output: number;
}

export type FunctionCallStatus = "ok" | "error" | "timeout" | "blocked" | "invalid_arguments";

/** One call the bot made to a campaign's function: shown to the team in the thread, never to the customer. */
export interface FunctionCall {
  id: string;
  /** The customer's message the bot was answering. */
  messageId: string;
  name: string;
  /** A string when the model sent something that is not JSON. */
  arguments: Record<string, unknown> | string;
  status: FunctionCallStatus;
  statusCode: number | null;
  durationMs: number;
  /** The function's answer, shortened to 500 characters. */
  response: string | null;
  error: string | null;
  createdAt: string;
}

/** What the bot tells a person taking over: written on every hand-over, or on demand. */
export interface ConversationSummary {
  conversationId: string;
  engine: "llm" | "builtin";
  /** The LLM's summary; null with the builtin engine. */
  summary: string | null;
  /** The customer's messages the bot could not answer since a person last wrote. */
  unansweredQuestions: string[];
  /** Why the bot handed over (a humanAlertReason), or null. */
  reason: string | null;
  upToMessageId: string | null;
  createdAt: string;
}

export interface Settings {
  accountId: string;
  name: string;
  email: string;
  kind: string;
  botActive: boolean;
  webhookUrl: string | null;
  eventsWebhookUrl: string | null;
  llm: { baseUrl: string | null; model: string | null; apiKeySet: boolean };
  apiKey: { prefix: string; createdAt: string } | null;
}

export interface Team {
  members: { id: string; email: string; name: string | null; role: Role; createdAt: string }[];
  invites: { id: string; email: string; role: Role; expiresAt: string; createdAt: string }[];
}

export function contactLabel(c: Conversation["contact"]): string {
  return c.name ?? c.fromId ?? c.phone ?? c.email ?? "Unknown contact";
}

export interface ContactJson {
  id: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  email: string | null;
  createdAt: string;
  updatedAt: string;
  botActive: boolean;
  labels: string[];
  /** When the contact texted STOP to an SMS channel (START clears it); null: not opted out. */
  smsOptedOutAt?: string | null;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

export interface ListJson {
  id: string;
  name: string;
  memberCount: number;
  createdAt: string;
  updatedAt: string;
}

export function contactName(c: Pick<ContactJson, "firstName" | "lastName" | "phone" | "email">): string {
  const name = [c.firstName, c.lastName].filter(Boolean).join(" ");
  return name || c.phone || c.email || "Unnamed contact";
}

export interface KnowledgeEntry {
  question?: string;
  answer?: string;
  text?: string;
  alternatives?: string[];
}

export interface Outgoing {
  message: string;
  listId: string;
  /** The label for members not known on one of their own; null: those are skipped. */
  channel: string | null;
  /** The provider channel (ch_…) the first messages go through; null: the custom channel. */
  channelId: string | null;
  /** The approved template a WhatsApp channel sends (required there); null on other channels. */
  template: OutgoingTemplate | null;
  ratePerMinute: number;
  /** Only during the account's business hours (absent on an older server). */
  onlyInHours?: boolean;
  state: "running" | "paused" | "done" | null;
  pausedReason: string | null;
}

export interface OutgoingTemplate {
  name: string;
  /** Like en_US. */
  language: string;
  /** The body's {{1}}, {{2}}, … in order; {{firstName|there}} and the like are filled per member. */
  parameters: string[];
}

/** Why a member got no first message. */
export type SkipReason = "no_custom_channel_id" | "no_known_channel" | "no_phone" | "opted_out";

export interface OutgoingStats {
  state: "running" | "paused" | "done" | null;
  pausedReason: string | null;
  /** Held to business hours while closed: when sending resumes (ISO 8601). */
  resumesAt?: string | null;
  members: number;
  queued: number;
  sent: number;
  pending: number;
  failed: number;
  skipped: number;
  skippedByReason: Record<SkipReason, number>;
  replied: number;
  /** The campaign's follow-ups: sent, and answered by the customer (absent on an older server). */
  followUps?: { sent: number; answered: number };
}

export interface SkippedMember {
  contactId: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  email: string | null;
  reason: SkipReason;
  skippedAt: string;
}

export interface CampaignSummary {
  id: string;
  name: string;
  status: "draft" | "live" | "paused";
  instructions: string;
  knowledgeCount: number;
  keywords: string[];
  fallbackMessage: string;
  engine: "auto" | "builtin" | "llm";
  model: string | null;
  isDefault: boolean;
  outgoing: Outgoing | null;
  createdAt: string;
  updatedAt: string;
}

export interface Campaign extends CampaignSummary {
  knowledge: KnowledgeEntry[];
  /** The business's endpoints the LLM engine may call (absent on an older server). */
  functions?: BotFunction[];
  /** Steps sent to a customer who does not answer (absent on an older server). */
  followUps?: FollowUpStep[];
  /** Outside business hours: answer as usual, or send the away message (absent on an older server). */
  outsideHours?: "answer" | "away";
  awayMessage?: string | null;
  /** Follow-ups falling due while closed wait for the opening. */
  followUpsInHours?: boolean;
}

export type Weekday = "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday" | "sunday";

/** The account's business hours (GET /app/api/settings/business-hours). */
export interface BusinessHours {
  /** An IANA zone, like Europe/Berlin. */
  timezone: string;
  /** Ranges "HH:MM"–"HH:MM" per weekday (close may be 24:00); empty: closed. */
  days: Record<Weekday, { open: string; close: string }[]>;
  /** YYYY-MM-DD, closed all day. */
  holidays: string[];
}

export interface BusinessHoursState {
  /** null: not set, always open. */
  businessHours: BusinessHours | null;
  openNow: boolean;
  nextOpening: string;
  /** "Monday 09:00", or "now". */
  openingTime: string;
}

/** A follow-up step: `after` an ISO 8601 duration (PT24H), then a message, or an instruction for the LLM. */
export interface FollowUpStep {
  after: string;
  message?: string;
  instruction?: string;
  /** Sent instead on WhatsApp outside the 24-hour window (without it the step is skipped there). */
  whatsappTemplate?: { name: string; language: string; parameters?: string[] } | null;
}

/** A campaign's custom function: an HTTPS endpoint of the business that the LLM engine may call. */
export interface BotFunction {
  /** Letters, digits and _, starting with a letter; unique in the campaign. */
  name: string;
  /** When the bot should use it (the model reads it). */
  description: string;
  /** A JSON Schema of type "object": the arguments the model passes. */
  parameters: Record<string, unknown>;
  url: string;
  /** 1,000 to 15,000 ms. */
  timeoutMs: number;
}

/** The answer of a saved function's test call. */
export interface FunctionTestResult {
  status: "ok" | "error" | "timeout" | "blocked";
  statusCode: number | null;
  durationMs: number;
  /** The first 2,000 characters of the answer. */
  response: string | null;
  error: string | null;
}

export interface SavedKnowledge {
  campaignId: string;
  change: "alternative_added" | "entry_created" | "unchanged";
  entry: { index: number; question: string; answer: string; alternatives: string[] };
  knowledgeCount: number;
}

export interface PreviewResult {
  engine: "builtin" | "llm";
  outcome: "answer" | "fallback" | "handover";
  reply: string;
  entry: { index: number; question: string | null } | null;
  confidence: number | null;
  reason: string | null;
  /** Builtin fallback: the entry that came closest, below the threshold. */
  closest: { index: number; question: string | null; confidence: number } | null;
}

export interface Subaccount {
  id: string;
  email: string;
  name: string;
  credits: number;
  autoRecharge: { threshold: number; rechargeAmount: number } | null;
  createdAt: string;
}

export interface CreditTransaction {
  id: string;
  amount: number;
  balanceAfter: number;
  description: string | null;
  kind: "grant" | "bot_reply" | "adjustment";
  messageId: string | null;
  createdAt: string;
}

// ---- channels (Settings → Channels; the same JSON as /v1/channels) --------------------------------

export type ChannelType = "web" | "whatsapp" | "telegram" | "twilio_sms" | "messenger" | "instagram";
/** A conversation's channel: the custom channel or a built-in type. */
export type ChannelKind = ChannelType | "custom";

export interface WebChannelConfig {
  allowedOrigins: string[];
  title: string;
  greeting: string;
  color: string;
  position: "right" | "left";
  collectEmail: boolean;
  showAgentName: boolean;
}

export interface Channel {
  id: string;
  type: ChannelType;
  name: string;
  status: "active" | "paused" | "error";
  lastError: string | null;
  campaignId: string | null;
  /** The type's settings; secrets come masked ("••••" and the last 4 characters). */
  config: Record<string, unknown>;
  inboundUrl: string | null;
  embedSnippet: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The dashboard's calls of one bot function over the period (failures: any status but ok). */
export interface BotFunctionFigures {
  name: string;
  calls: number;
  failures: number;
}

/** The dashboard's figures of one channel over the period (channelId null: the custom channel). */
export interface ChannelFigures {
  channelId: string | null;
  channelType: ChannelKind | null;
  name: string | null;
  inbound: number;
  outbound: number;
  sent: number;
  failed: number;
  botAnswers: number;
  botFallbacks: number;
}

// Table types for Kysely. One schema for SQLite and PostgreSQL, so only portable column types:
// text, integer/bigint (times are epoch milliseconds, credits are hundredths), booleans as 0/1,
// JSON as text.
import type { Generated, Insertable, Selectable, Updateable } from "kysely";

export type Bool = 0 | 1;

export interface AccountsTable {
  id: string;
  name: string;
  email: string;
  kind: "standard" | "agency" | "subaccount";
  parent_account_id: string | null;
  /** Hundredths of a credit. */
  credits: number;
  bot_active: Bool;
  webhook_url: string | null;
  webhook_secret: string;
  events_webhook_url: string | null;
  llm_base_url: string | null;
  llm_api_key: string | null;
  llm_model: string | null;
  /** Hundredths; null = auto-recharge off. */
  auto_recharge_threshold: number | null;
  auto_recharge_amount: number | null;
  /** 1 while the next crossing below the threshold may fire an event. */
  auto_recharge_armed: Bool;
  created_at: number;
  updated_at: number;
  /** JSON of accounts/business-hours.ts BusinessHours; null = not set (always open). */
  business_hours: string | null;
  /** When its agency suspended this sub-account (epoch ms); null = active. */
  suspended_at: number | null;
}

export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  role: "owner" | "admin" | "agent";
  /** Shown in the inbox (sender of a human reply); null = the e-mail is shown. */
  name: string | null;
  created_at: number;
}

export interface SessionsTable {
  id: string;
  account_id: string;
  user_id: string;
  /** SHA-256 of the cookie's token; the token itself is never stored. */
  token_hash: string;
  csrf_token: string;
  created_at: number;
  /** Sliding: moved forward as the session is used. */
  expires_at: number;
}

export interface InvitesTable {
  id: string;
  account_id: string;
  email: string;
  /** `owner`: the first user of a sub-account an agency created (its owner joins through the link). */
  role: "owner" | "admin" | "agent";
  token_hash: string;
  created_by: string | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
}

/** A "Forgot password" link (accounts/password-reset.ts): single use, one hour. */
export interface PasswordResetsTable {
  id: string;
  account_id: string;
  user_id: string;
  /** SHA-256 of the link's token; the token itself is never stored. */
  token_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface SignInFailuresTable {
  id: string;
  /**
   * What the record counts (accounts/sign-in-throttle.ts): a sign-in failure of `pair:<e-mail>|<ip>`
   * or `ip:<ip>`, a password-change failure `pw:<user id>|<ip>`, a successful sign-in
   * `ok:<e-mail>|<ip>` (that address is known for that e-mail), or a password-reset request
   * `reset:<e-mail>` (accounts/password-reset.ts).
   */
  key: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  /** One active key per account: rotating replaces the row, so the old hash is gone at once. */
  account_id: string;
  key_hash: string;
  key_prefix: string;
  created_at: number;
}

export interface JobsTable {
  id: string;
  type: string;
  account_id: string | null;
  /** The row the job acts on (a message or event id), when it has one. */
  subject_id: string | null;
  payload: string;
  status: "queued" | "running" | "dead";
  run_at: number;
  attempts: number;
  max_attempts: number;
  lease_until: number | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface ContactsTable {
  id: string;
  account_id: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  email: string | null;
  /** The sender id on a custom channel (`fromId`). */
  external_id: string | null;
  bot_active: Bool;
  /** Labels as a JSON array of strings (`[]` by default). */
  labels: Generated<string>;
  /** When the contact texted STOP on an SMS channel (null: may be texted; START clears it). */
  sms_opted_out_at: Generated<number | null>;
  created_at: number;
  updated_at: number;
}

export interface ListsTable {
  id: string;
  account_id: string;
  name: string;
  created_at: number;
  updated_at: number;
}

export interface ListMembersTable {
  list_id: string;
  contact_id: string;
  account_id: string;
  created_at: number;
}

export interface ConversationsTable {
  id: string;
  account_id: string;
  contact_id: string;
  channel: string | null;
  campaign_id: string | null;
  bot_paused: Bool;
  human_alert: Bool;
  human_alert_reason: string | null;
  last_message_at: number;
  created_at: number;
  updated_at: number;
  /** Defaults to open; a new inbound message reopens a resolved conversation. */
  status: Generated<"open" | "resolved">;
  /** The user the conversation is assigned to. */
  assignee_id: string | null;
  /** When someone last opened it in the inbox (inbound messages after it are unread). */
  last_read_at: Generated<number>;
  /** '' for the custom channel (the spec's webhook), else the built-in channel's id (`ch_…`). */
  channel_id: Generated<string>;
  /** When the contact last saw the conversation, where its channel reports it (the website chat). */
  contact_seen_at: Generated<number | null>;
}

/** A private note in a conversation (notes/service.ts): seen by the team only, never sent. */
export interface ConversationNotesTable {
  id: string;
  account_id: string;
  conversation_id: string;
  author_user_id: string;
  body: string;
  /** JSON array of the user ids the note mentions (resolved when it was written). */
  mentions: string;
  created_at: number;
}

/** An account-wide canned reply (canned-replies/service.ts): a snippet the reply box inserts by "/shortcut". */
export interface CannedRepliesTable {
  id: string;
  account_id: string;
  /** Lower case letters, digits, "-" and "_"; unique per account. */
  shortcut: string;
  title: string;
  body: string;
  created_at: number;
  updated_at: number;
}

/** A campaign's knowledge source (issue 34): an uploaded file, a web page or a sitemap's pages. */
export interface KnowledgeSourcesTable {
  id: string;
  account_id: string;
  campaign_id: string;
  type: "file" | "url" | "sitemap";
  name: string;
  url: string | null;
  content_type: string | null;
  /** Sitemaps: how many pages to read at most. */
  max_pages: number | null;
  /** Files: the stored file's key in the file storage (re-sync reads it again). */
  file_key: string | null;
  status: "processing" | "ready" | "error";
  error: string | null;
  passages: number;
  bytes: number;
  /** 0 or 1. */
  daily_resync: number;
  /** When the daily re-sync runs next (url and sitemap sources with daily_resync only). */
  next_sync_at: number | null;
  last_synced_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A source's text, split on headings and paragraphs: what the bot searches. */
export interface KnowledgePassagesTable {
  account_id: string;
  campaign_id: string;
  source_id: string;
  position: number;
  heading: string | null;
  text: string;
}

/** An agency's brand (issue 38): shown to its sub-accounts instead of Parley's. */
export interface AgencyBrandsTable {
  account_id: string;
  name: string;
  /** #rrggbb, lower case. */
  color: string;
  logo_key: string | null;
  logo_type: string | null;
  /** Lower-case host[:port] the agency's own address answers on, or null. */
  public_host: string | null;
  updated_at: number;
}

/** An agency session working inside one client (assist/service.ts) until expires_at. */
export interface AssistGrantsTable {
  session_id: string;
  /** The client (sub-account) assisted. */
  account_id: string;
  agency_account_id: string;
  agency_user_id: string;
  created_at: number;
  expires_at: number;
}

/** A client's "Allow agency assist" switch; no row = allowed. */
export interface AssistSettingsTable {
  account_id: string;
  allowed: Bool;
  updated_at: number;
}

/** One state-changing request made while an agency assisted the account. */
export interface AuditLogTable {
  id: string;
  account_id: string;
  created_at: number;
  actor_user_id: string;
  actor_email: string;
  actor_name: string | null;
  agency_account_id: string;
  agency_name: string;
  method: string;
  /** The route pattern (`/app/api/contacts/:id`). */
  route: string;
  object_id: string | null;
  status: number;
}

/** Something that happened to a conversation besides its messages (a hand-back), shown in its thread. */
export interface ConversationEventsTable {
  id: string;
  account_id: string;
  conversation_id: string;
  /** "handed_back": a person's reply cleared "needs a human". */
  kind: string;
  /** The person it was, when one. */
  user_id: string | null;
  created_at: number;
}

/** When a teammate last opened a conversation in the app (unread per person). */
export interface ConversationReadsTable {
  account_id: string;
  conversation_id: string;
  user_id: string;
  last_read_at: number;
}

export type ChannelType = "web" | "whatsapp" | "telegram" | "twilio_sms" | "messenger" | "instagram";
export type ChannelStatus = "active" | "paused" | "error";

export interface ChannelsTable {
  id: string;
  account_id: string;
  type: ChannelType;
  name: string;
  status: ChannelStatus;
  last_error: string | null;
  campaign_id: string | null;
  /** JSON: the non-secret settings. */
  config: string;
  /** AES-256-GCM ciphertext (platform/secrets.ts) of a JSON object of the secret settings. */
  secrets: string | null;
  created_at: number;
  updated_at: number;
}

export interface WidgetVisitorsTable {
  id: string;
  account_id: string;
  channel_id: string;
  contact_id: string;
  /** SHA-256 (hex) of the visitor token; the token itself is never stored. */
  token_hash: string;
  created_at: number;
  last_seen_at: number;
}

export interface MessagesTable {
  id: string;
  account_id: string;
  conversation_id: string;
  contact_id: string;
  direction: "inbound" | "outbound";
  type: "text" | "reaction";
  sender: "contact" | "bot" | "human" | "api";
  body: string;
  status: string;
  channel: string | null;
  campaign_id: string | null;
  /** The client's messageSid for inbound messages; unique per account. */
  external_id: string | null;
  from_id: string | null;
  to_id: string | null;
  reaction_to_message_id: string | null;
  reaction_to_external_id: string | null;
  media_url: string | null;
  media_content_type: string | null;
  media_state: "pending" | "stored" | "rejected" | null;
  media_size: number | null;
  media_sha256: string | null;
  media_reason: string | null;
  /** JSON: the last delivery error, when Failed. */
  error: string | null;
  /** The user who typed a human reply. */
  user_id: string | null;
  /** A bot reply: "answer" (from knowledge or the LLM) or "fallback". */
  bot_outcome: Generated<string | null>;
  /** A provider channel's id for this outbound message (wamid, Twilio SID, Telegram message id). */
  provider_message_id: Generated<string | null>;
  /** JSON {name, language, parameters}: a WhatsApp template this message is sent as (campaigns). */
  template: Generated<string | null>;
  /** JSON [{id, title, entry}]: the choices a bot's "Did you mean" offers (shown as buttons). */
  suggestions: Generated<string | null>;
  /** Set while the message is being handed to a provider, cleared when the outcome commits. */
  sending_since: Generated<number | null>;
  created_at: number;
  updated_at: number;
}

export interface DeliveryAttemptsTable {
  id: string;
  account_id: string;
  message_id: string | null;
  event_id: string | null;
  attempted_at: number;
  duration_ms: number;
  status_code: number | null;
  error_class: string | null;
  error_message: string | null;
  response_body: string | null;
  /** Where the attempt was sent (null on rows from before this was recorded). */
  url: string | null;
  /** 1 for the first attempt of the message or event. */
  attempt_number: number | null;
  /** `scheduled` (the first attempt and the retry schedule) or `manual` (a resend). */
  trigger: "scheduled" | "manual" | null;
  /** When the attempt failed and another is scheduled: when (epoch ms). */
  next_attempt_at: number | null;
}

export interface CampaignsTable {
  id: string;
  account_id: string;
  name: string;
  status: "draft" | "live" | "paused";
  instructions: string;
  /** JSON array of {question, answer} or {text}. */
  knowledge: string;
  /** JSON array of strings. */
  keywords: string;
  fallback_message: string;
  engine: "auto" | "builtin" | "llm";
  model: string | null;
  is_default: Bool;
  created_at: number;
  updated_at: number;
  /** The outgoing side (JSON {message, listId, channel, ratePerMinute}) or null. */
  outgoing: string | null;
  outgoing_state: "running" | "paused" | "done" | null;
  /** Why it paused: "paused" (a person) or "out_of_credits". */
  outgoing_reason: string | null;
  /** JSON array of the custom functions the LLM engine may call (bot/functions.ts). */
  functions: string;
  /** JSON array of the follow-up steps (bot/follow-ups.ts). */
  follow_ups: string;
  /** Outside business hours: "answer" as usual or send the away message (once per closed period). */
  outside_hours: "answer" | "away";
  away_message: string;
  /** 1: a follow-up falling due while closed waits for the next opening. */
  follow_ups_in_hours: Bool;
}

export type FunctionCallStatus = "ok" | "error" | "timeout" | "blocked" | "invalid_arguments";

export interface BotFunctionCallsTable {
  id: string;
  account_id: string;
  conversation_id: string;
  /** The customer's message the bot was answering. */
  message_id: string;
  campaign_id: string;
  name: string;
  /** JSON of the arguments as the model gave them (or its raw text when it was not JSON). */
  arguments: string;
  status: FunctionCallStatus;
  status_code: number | null;
  duration_ms: number;
  /** The start of the function's answer, shortened for the thread. */
  response: string | null;
  error: string | null;
  created_at: number;
}

export interface BotRepliesTable {
  /** The bot reply (an outbound message) this usage belongs to. */
  message_id: string;
  account_id: string;
  conversation_id: string;
  input_tokens: number;
  output_tokens: number;
  function_calls: number;
  created_at: number;
}

export interface ConversationSummariesTable {
  conversation_id: string;
  account_id: string;
  engine: "llm" | "builtin";
  summary: string | null;
  /** JSON array of the customer's unanswered messages. */
  questions: Generated<string>;
  reason: string | null;
  up_to_message_id: string | null;
  created_at: number;
}

export interface CreditTransactionsTable {
  id: string;
  account_id: string;
  /** Hundredths, signed. */
  amount: number;
  balance_after: number;
  description: string | null;
  kind: "grant" | "bot_reply" | "adjustment";
  message_id: string | null;
  created_at: number;
}

export interface IdempotencyKeysTable {
  account_id: string;
  scope: string;
  key: string;
  request_hash: string;
  status_code: number;
  response: string;
  created_at: number;
}

export interface EventsTable {
  id: string;
  account_id: string;
  type: string;
  /** JSON payload as sent. */
  payload: string;
  status: "pending" | "sent" | "failed";
  error: string | null;
  created_at: number;
  updated_at: number;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  sessions: SessionsTable;
  invites: InvitesTable;
  password_resets: PasswordResetsTable;
  sign_in_failures: SignInFailuresTable;
  api_keys: ApiKeysTable;
  jobs: JobsTable;
  contacts: ContactsTable;
  lists: ListsTable;
  list_members: ListMembersTable;
  dashboard_days: DashboardDaysTable;
  dashboard_live: DashboardLiveTable;
  imports: ImportsTable;
  outgoing_sends: OutgoingSendsTable;
  import_rejections: ImportRejectionsTable;
  conversations: ConversationsTable;
  conversation_notes: ConversationNotesTable;
  canned_replies: CannedRepliesTable;
  knowledge_sources: KnowledgeSourcesTable;
  knowledge_passages: KnowledgePassagesTable;
  agency_brands: AgencyBrandsTable;
  assist_grants: AssistGrantsTable;
  assist_settings: AssistSettingsTable;
  audit_log: AuditLogTable;
  conversation_events: ConversationEventsTable;
  conversation_reads: ConversationReadsTable;
  messages: MessagesTable;
  delivery_attempts: DeliveryAttemptsTable;
  campaigns: CampaignsTable;
  credit_transactions: CreditTransactionsTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  channels: ChannelsTable;
  widget_visitors: WidgetVisitorsTable;
  bot_function_calls: BotFunctionCallsTable;
  bot_replies: BotRepliesTable;
  conversation_summaries: ConversationSummariesTable;
  notifications: NotificationsTable;
  notification_settings: NotificationSettingsTable;
  notification_emails: NotificationEmailsTable;
}

/** A person's in-app notification (the bell). */
export interface NotificationsTable {
  id: string;
  account_id: string;
  user_id: string;
  kind: string;
  title: string;
  body: string;
  /** An app path (`/inbox/<conversation id>`), or null. */
  link: string | null;
  /** Set for kinds raised by a periodic check, so one condition is told once an hour. */
  dedupe_key: string | null;
  created_at: number;
  read_at: number | null;
}

/** Notification preferences: the account's defaults (`scope` "account") or one person's (a user id). */
export interface NotificationSettingsTable {
  account_id: string;
  scope: string;
  /** JSON {kind: {email?: boolean, app?: boolean}}. */
  prefs: string;
  /** Hundredths of a credit; only on the account's row; null = no low-credits warning. */
  credits_low_threshold: number | null;
  updated_at: number;
}

/** A notification waiting to go out by e-mail, in one digest per person and kind. */
export interface NotificationEmailsTable {
  id: string;
  account_id: string;
  user_id: string;
  kind: string;
  title: string;
  body: string;
  link: string | null;
  created_at: number;
  /** Set when a digest took it (the digest's id and time). */
  batch_id: string | null;
  batched_at: number | null;
}

export type AccountRow = Selectable<AccountsTable>;
export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type InviteRow = Selectable<InvitesTable>;
export type NewAccount = Insertable<AccountsTable>;
export type AccountUpdate = Updateable<AccountsTable>;
export type JobRow = Selectable<JobsTable>;
export type KnowledgeSourceRow = Selectable<KnowledgeSourcesTable>;
export type ContactRow = Selectable<ContactsTable>;
export type ListRow = Selectable<ListsTable>;
export type ConversationRow = Selectable<ConversationsTable>;
export type ConversationEventRow = Selectable<ConversationEventsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type DeliveryAttemptRow = Selectable<DeliveryAttemptsTable>;
export type CampaignRow = Selectable<CampaignsTable>;
export type CreditTransactionRow = Selectable<CreditTransactionsTable>;
export type EventRow = Selectable<EventsTable>;
export type ChannelRow = Selectable<ChannelsTable>;
export type WidgetVisitorRow = Selectable<WidgetVisitorsTable>;

/** A finished day's dashboard figures for an account (JSON), computed once. */
export interface DashboardDaysTable {
  account_id: string;
  /** Days since 1970-01-01 UTC. */
  day: number;
  figures: string;
  computed_at: number;
}

/** The live days' figures counted ahead (one row per account): the messages written before as_of. */
export interface DashboardLiveTable {
  account_id: string;
  /** The live days [from_day, to_day), days since 1970-01-01 UTC. */
  from_day: number;
  to_day: number;
  /** JSON: { "<day>": DayFigures }. */
  figures: string;
  as_of: number;
}

export interface ImportsTable {
  id: string;
  account_id: string;
  status: "running" | "done" | "failed";
  file_name: string | null;
  list_id: string | null;
  /** The file's header row (JSON array). */
  header: string;
  /** Column name -> contact field (JSON object). */
  mapping: string;
  total: number;
  done: number;
  created: number;
  updated: number;
  /** Rows that matched a contact and changed nothing (created + updated + unchanged + rejected = done). */
  unchanged: number;
  rejected: number;
  /** fill: a row fills an existing contact's empty fields only; overwrite: it replaces them. */
  mode: "fill" | "overwrite";
  /** ISO 3166 country for phone numbers without a country code, or null. */
  default_country: string | null;
  /** Where the next slice starts in the stored file. */
  byte_offset: number;
  error: string | null;
  created_at: number;
  updated_at: number;
}

export interface ImportRejectionsTable {
  import_id: string;
  account_id: string;
  /** 1 = the first data row (the header is row 0). */
  row_number: number;
  reason: string;
  /** The row as parsed (JSON array of its cells). */
  record: string;
}

export type ImportRow = Selectable<ImportsTable>;

export interface OutgoingSendsTable {
  campaign_id: string;
  account_id: string;
  contact_id: string;
  message_id: string | null;
  /** "sent" (a message was queued) or "skipped" (see reason). */
  outcome: "sent" | "skipped";
  /**
   * Why it was skipped: "no_custom_channel_id" (no fromId) or "no_known_channel" (no label of its own
   * and none on the campaign); null when sent (and on skipped rows from before, all without a fromId).
   */
  reason: "no_custom_channel_id" | "no_known_channel" | "no_phone" | "opted_out" | null;
  created_at: number;
}

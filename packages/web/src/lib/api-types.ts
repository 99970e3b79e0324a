// The /app/api shapes under the names the app uses, all taken from the types generated from the
// server's response schemas (lib/generated/app-api.ts, `npm run generate -w @parley/client`): a field
// the server adds, renames or drops shows up here at compile time. Nothing here is written by hand.
import type { operations } from "./generated/app-api.ts";

/** The JSON body of an operation's answer with status `S` (200 unless said). */
export type ApiResponse<
  Op extends keyof operations,
  S extends keyof operations[Op]["responses"] = 200 & keyof operations[Op]["responses"],
> = operations[Op]["responses"][S] extends { content: { "application/json": infer Body } } ? Body : never;

/** One item of a JSON array type. */
type Item<T> = T extends ReadonlyArray<infer I> ? I : never;

// ---- session and team -----------------------------------------------------------------------------

export type Session = ApiResponse<"appGetSession">;
export type Role = Session["user"]["role"];
export type Team = ApiResponse<"appGetTeam">;
export type Settings = ApiResponse<"appGetSettings">;
export type BusinessHoursState = ApiResponse<"appGetBusinessHours">;
export type BusinessHours = NonNullable<BusinessHoursState["businessHours"]>;
export type Weekday = keyof BusinessHours["days"];

// ---- inbox ----------------------------------------------------------------------------------------

export type ConversationPage = ApiResponse<"appListConversations">;
export type Conversation = Item<ConversationPage["data"]>;
export type ConversationDetail = ApiResponse<"appGetConversation">;
export type Message = Item<ConversationDetail["messages"]>;
export type DeliveryAttempt = Item<Message["deliveryAttempts"]>;
export type LlmTokens = NonNullable<Message["llmTokens"]>;
export type ConversationEvent = Item<ConversationDetail["events"]>;
export type FunctionCall = Item<ConversationDetail["functionCalls"]>;
export type FunctionCallStatus = FunctionCall["status"];
export type ConversationSummary = ApiResponse<"appConversationSummary">;

// ---- contacts and lists ---------------------------------------------------------------------------

/** A page of a list answer ({data, hasMore, nextCursor}), for any item. */
export type Page<T> = Omit<ApiResponse<"appListLists">, "data"> & { data: T[] };
export type ContactJson = ApiResponse<"appUpdateContact">;
export type ListJson = ApiResponse<"appGetList">;

// ---- campaigns ------------------------------------------------------------------------------------

export type Campaign = ApiResponse<"appGetCampaign">;
export type CampaignSummary = Item<ApiResponse<"appListCampaigns">["data"]>;
export type KnowledgeEntry = Item<Campaign["knowledge"]>;
export type BotFunction = Item<Campaign["functions"]>;
export type FollowUpStep = Item<Campaign["followUps"]>;
export type Outgoing = NonNullable<Campaign["outgoing"]>;
export type OutgoingTemplate = NonNullable<Outgoing["template"]>;
export type OutgoingStats = ApiResponse<"appCampaignStats">;
export type SkippedMember = Item<ApiResponse<"appCampaignSkipped">["data"]>;
export type SkipReason = SkippedMember["reason"];
export type FunctionTestResult = ApiResponse<"appTestCampaignFunction">;
export type SavedKnowledge = ApiResponse<"appSaveKnowledge">;
export type PreviewResult = ApiResponse<"appPreviewCampaign">;
export type PhrasingSuggestions = ApiResponse<"appSuggestPhrasings">;
export type Source = Item<ApiResponse<"appListSources">["data"]>;

// ---- agency ---------------------------------------------------------------------------------------

export type Subaccount = Item<ApiResponse<"appListSubaccounts">["data"]>;
export type CreditTransaction = Item<ApiResponse<"appSubaccountTransactions">["data"]>;
export type SubaccountUsage = ApiResponse<"appSubaccountUsage">;

// ---- channels and the dashboard -------------------------------------------------------------------

export type Channel = ApiResponse<"appGetChannel">;
export type ChannelType = Channel["type"];
/** A conversation's channel: the custom channel or a built-in type. */
export type ChannelKind = NonNullable<Conversation["channelType"]>;
export type Dashboard = ApiResponse<"appDashboard">;
export type ChannelFigures = Item<Dashboard["byChannel"]>;
export type BotFunctionFigures = Item<Dashboard["botFunctions"]>;
export type DashboardDay = Item<Dashboard["days"]>;

// ---- notes, notifications, imports, settings ------------------------------------------------------

export type Note = Item<ApiResponse<"appListNotes">["data"]>;
export type NotePerson = Note["author"];
export type NotificationPage = ApiResponse<"appListNotifications">;
export type AppNotification = Item<NotificationPage["data"]>;
export type NotificationPreferences = ApiResponse<"appGetNotificationPreferences">;
export type NotificationKindInfo = Item<NotificationPreferences["kinds"]>;
export type PreferenceMap = NotificationPreferences["preferences"];
export type Preference = PreferenceMap[string];
export type NotificationDefaults = ApiResponse<"appGetNotificationDefaults">;
export type ImportPreview = ApiResponse<"appPreviewImport">;
export type ImportState = ApiResponse<"appGetImport">;
export type WebhookTestResult = ApiResponse<"appSendTestEvent">;

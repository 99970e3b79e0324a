// Conversation schemas: they drive validation, handler types and OpenAPI.
import { Type } from "typebox";
import { PageQuery } from "../../platform/pagination.ts";

export const ConversationJson = Type.Object(
  {
    id: Type.String({ description: "cv_…" }),
    contactId: Type.String(),
    channel: Type.Union([Type.String(), Type.Null()]),
    channelId: Type.Union([Type.String(), Type.Null()], {
      description: "The built-in channel (ch_…) the conversation is on; null on the custom channel",
    }),
    campaignId: Type.Union([Type.String(), Type.Null()], {
      description: "The campaign the conversation was last routed to",
    }),
    botPaused: Type.Boolean({ description: "Paused by a person's reply or an operator" }),
    botActive: Type.Boolean({
      description: "Whether the bot would answer now: account and contact switches on, not paused",
    }),
    humanAlert: Type.Boolean({ description: "A person should look at this conversation" }),
    humanAlertReason: Type.Union([Type.String(), Type.Null()], {
      description:
        "no_answer | llm_error | llm_not_configured | out_of_credits | function_error (a custom function " +
        "failed) | human_requested (the customer asked for a person; the bot paused itself) | " +
        "outside_hours (the customer wrote outside business hours and got the campaign's away message)",
    }),
    lastMessageAt: Type.String(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    status: Type.Union([Type.Literal("open"), Type.Literal("resolved")], {
      description: "open or resolved (in the inbox); a new incoming message reopens it",
    }),
    assigneeId: Type.Union([Type.String(), Type.Null()], {
      description: "The user (usr_…) the conversation is assigned to in the inbox",
    }),
    contactSeenAt: Type.Union([Type.String(), Type.Null()], {
      description:
        "When the contact last saw the conversation, where its channel reports it (the website chat: " +
        "its panel open and on screen); replies sent before it were seen. Null until then",
    }),
  },
  { description: "A conversation with its bot state (extension)" },
);

export const ConversationParams = Type.Object({ conversationId: Type.String({ maxLength: 64 }) });

export const ConversationListQuery = Type.Object({
  ...PageQuery.properties,
  humanAlert: Type.Optional(
    Type.Boolean({ description: "Only conversations with (true) or without (false) an alert" }),
  ),
  botPaused: Type.Optional(Type.Boolean()),
  contactId: Type.Optional(Type.String({ maxLength: 64 })),
  campaignId: Type.Optional(Type.String({ maxLength: 64 })),
});

export const BotSwitchBody = Type.Object({
  active: Type.Boolean({
    description: "true resumes the bot (and clears the human alert), false pauses it for this conversation",
  }),
});

export const BulkConversationsBody = Type.Object({
  ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
    minItems: 1,
    maxItems: 500,
    description: "1 to 500 conversation ids of this account; others are reported in notFound and left alone",
  }),
  action: Type.Union(
    [
      Type.Literal("assign"),
      Type.Literal("resolve"),
      Type.Literal("reopen"),
      Type.Literal("label"),
      Type.Literal("unlabel"),
    ],
    {
      description:
        "assign: to assigneeId (null unassigns); resolve / reopen: set the status; label / unlabel: add " +
        "or remove `label` on each conversation's contact (the inbox's label filter reads the contact's)",
    },
  ),
  assigneeId: Type.Optional(
    Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
      description: "Required for assign: a user (usr_…) of the account, or null to unassign",
    }),
  ),
  label: Type.Optional(Type.String({ maxLength: 50, description: "Required for label and unlabel" })),
});

export const BulkConversationsResponse = Type.Object({
  updated: Type.Integer({ description: "Conversations the action applied to" }),
  notFound: Type.Array(Type.String(), { description: "Ids that are not this account's: nothing done" }),
});

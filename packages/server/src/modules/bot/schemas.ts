// Campaign and conversation (bot state) schemas: they drive validation, handler types and OpenAPI.
import { Type } from "typebox";
import { PageQuery } from "../../platform/pagination.ts";

/** Limits, documented in the README (The AI bot); 400 past them. */
export const LIMITS = {
  name: 200,
  instructions: 20_000,
  knowledgeEntries: 500,
  question: 1_000,
  alternatives: 20,
  answer: 5_000,
  keywords: 50,
  keyword: 100,
  fallbackMessage: 2_000,
  model: 200,
} as const;

/** Campaign bodies carry up to 500 knowledge entries, more than the default 1 MiB body limit. */
export const CAMPAIGN_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

const Status = Type.Union([Type.Literal("draft"), Type.Literal("live"), Type.Literal("paused")], {
  description: "Only live campaigns answer",
});
const Engine = Type.Union([Type.Literal("auto"), Type.Literal("builtin"), Type.Literal("llm")], {
  description: "auto = llm when an LLM is configured (account or platform), else builtin",
});

// One object with optional fields rather than a union: the rule "question + answer, or text" is checked
// in the service, which gives a clear message naming the entry (and Ajv's removeAdditional would strip
// fields while trying union branches).
export const KnowledgeEntryJson = Type.Object(
  {
    question: Type.Optional(Type.String({ maxLength: LIMITS.question })),
    answer: Type.Optional(Type.String({ maxLength: LIMITS.answer })),
    text: Type.Optional(Type.String({ maxLength: LIMITS.answer })),
    alternatives: Type.Optional(
      Type.Array(Type.String({ maxLength: LIMITS.question }), {
        maxItems: LIMITS.alternatives,
        description:
          "Question/answer entries only: other ways customers ask the same question (up to 20). The " +
          "builtin engine matches each like the question; trimmed, blanks and duplicates dropped, " +
          "omitted when none are left",
      }),
    ),
  },
  { description: "Either {question, answer, alternatives?} or {text}" },
);

const Knowledge = Type.Array(KnowledgeEntryJson, { maxItems: LIMITS.knowledgeEntries });
const Keywords = Type.Array(Type.String({ maxLength: LIMITS.keyword }), {
  maxItems: LIMITS.keywords,
  description: "Case-insensitive whole-word match on the message body routes it to this campaign",
});

/** The outgoing side of a campaign (bulk work): a first message to every member of a list. */
export const OutgoingBody = Type.Object({
  message: Type.String({
    minLength: 1,
    maxLength: 2000,
    description:
      "The first message; {{firstName}}, {{lastName}}, and {{firstName|there}} for a fallback when empty",
  }),
  listId: Type.String({ minLength: 1, maxLength: 64, description: "The list whose members receive it" }),
  channel: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()], {
      description:
        "The custom channel label for members not known on one yet (imported with a fromId, never in " +
        "touch). A member who wrote in gets it on the label it last used; without either, the member is " +
        "skipped (no_known_channel).",
    }),
  ),
  channelId: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
      description:
        "A built-in channel (ch_…) the first messages go through, each member in its conversation on " +
        "that channel: by phone on whatsapp and twilio_sms (members without one are skipped: no_phone; " +
        "SMS members who texted STOP: opted_out), on the others only members who wrote there before " +
        "(no_known_channel). Null or absent: the custom channel.",
    }),
  ),
  template: Type.Optional(
    Type.Union(
      [
        Type.Object({
          name: Type.String({ minLength: 1, maxLength: 512, description: "The approved template's name" }),
          language: Type.String({
            minLength: 2,
            maxLength: 15,
            description: "Its language code, like en_US",
          }),
          parameters: Type.Optional(
            Type.Array(Type.String({ maxLength: 1024 }), {
              maxItems: 20,
              description:
                "The body's {{1}}, {{2}}, … in order; {{firstName|there}} and the like are filled per member",
            }),
          ),
        }),
        Type.Null(),
      ],
      {
        description:
          "WhatsApp only, and required there: WhatsApp delivers a business-initiated message only as an " +
          "approved template. `message` is what the inbox shows for it.",
      },
    ),
  ),
  ratePerMinute: Type.Optional(
    Type.Integer({
      minimum: 1,
      default: 60,
      description:
        "First messages per minute, at most the server's OUTGOING_MAX_PER_MINUTE (6,000 by default; " +
        "400 above it, the message names the ceiling)",
    }),
  ),
});

/** Why a member got no first message. */
export const SkipReason = Type.Union(
  [
    Type.Literal("no_custom_channel_id"),
    Type.Literal("no_known_channel"),
    Type.Literal("no_phone"),
    Type.Literal("opted_out"),
  ],
  {
    description:
      "no_custom_channel_id: the contact has no fromId; no_known_channel: it never wrote on a labelled " +
      "channel and the campaign names no channel (or, on a built-in channel that knows people by its own " +
      "id, it never wrote there); no_phone: a WhatsApp or SMS campaign's member without a phone; " +
      "opted_out: an SMS campaign's member who texted STOP",
  },
);

const OutgoingJson = Type.Union([
  Type.Object({
    ...OutgoingBody.properties,
    channel: Type.Union([Type.String(), Type.Null()]),
    channelId: Type.Union([Type.String(), Type.Null()]),
    template: Type.Union([
      Type.Object({ name: Type.String(), language: Type.String(), parameters: Type.Array(Type.String()) }),
      Type.Null(),
    ]),
    ratePerMinute: Type.Integer(),
    state: Type.Union([Type.Literal("running"), Type.Literal("paused"), Type.Literal("done"), Type.Null()], {
      description: "null until started",
    }),
    pausedReason: Type.Union([Type.String(), Type.Null()], {
      description: "paused (by a person) or out_of_credits",
    }),
  }),
  Type.Null(),
]);

export const CampaignSummaryJson = Type.Object({
  id: Type.String({ description: "cmp_…" }),
  name: Type.String(),
  status: Status,
  instructions: Type.String(),
  knowledgeCount: Type.Integer(),
  keywords: Type.Array(Type.String()),
  fallbackMessage: Type.String(),
  engine: Engine,
  model: Type.Union([Type.String(), Type.Null()]),
  isDefault: Type.Boolean(),
  outgoing: OutgoingJson,
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const CampaignJson = Type.Object(
  {
    ...CampaignSummaryJson.properties,
    knowledge: Type.Array(KnowledgeEntryJson),
  },
  { description: "A bot campaign (extension)" },
);

export const CreateCampaignBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: LIMITS.name }),
  status: Type.Optional(Status),
  instructions: Type.Optional(Type.String({ maxLength: LIMITS.instructions })),
  knowledge: Type.Optional(Knowledge),
  keywords: Type.Optional(Keywords),
  fallbackMessage: Type.Optional(Type.String({ maxLength: LIMITS.fallbackMessage })),
  engine: Type.Optional(Engine),
  model: Type.Optional(Type.Union([Type.String({ maxLength: LIMITS.model }), Type.Null()])),
  isDefault: Type.Optional(Type.Boolean({ description: "true moves the default flag to this campaign" })),
  outgoing: Type.Optional(Type.Union([OutgoingBody, Type.Null()])),
});

export const UpdateCampaignBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.name })),
  status: Type.Optional(Status),
  instructions: Type.Optional(Type.String({ maxLength: LIMITS.instructions })),
  knowledge: Type.Optional(Knowledge),
  keywords: Type.Optional(Keywords),
  fallbackMessage: Type.Optional(Type.String({ maxLength: LIMITS.fallbackMessage })),
  engine: Type.Optional(Engine),
  model: Type.Optional(Type.Union([Type.String({ maxLength: LIMITS.model }), Type.Null()])),
  isDefault: Type.Optional(
    Type.Boolean({
      description: "true moves the default flag here; false on the default is refused (make another default)",
    }),
  ),
  outgoing: Type.Optional(Type.Union([OutgoingBody, Type.Null()])),
});

export const CampaignParams = Type.Object({ campaignId: Type.String({ maxLength: 64 }) });

export const CampaignListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(Status),
});

export const DeleteCampaignResponse = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

export const PreviewBody = Type.Object({
  message: Type.String({ minLength: 1, maxLength: 10_000, description: "A customer message to try" }),
});

export const PreviewJson = Type.Object({
  engine: Type.Union([Type.Literal("builtin"), Type.Literal("llm")]),
  outcome: Type.Union([Type.Literal("answer"), Type.Literal("fallback")]),
  reply: Type.String({ description: "What the bot would send" }),
  entry: Type.Union([
    Type.Object({ index: Type.Integer(), question: Type.Union([Type.String(), Type.Null()]) }),
    Type.Null(),
  ]),
  confidence: Type.Union([Type.Number(), Type.Null()], {
    description: "The builtin engine's confidence in the entry (0–1); null for the LLM engine",
  }),
  reason: Type.Union([Type.String(), Type.Null()], {
    description: "Why it falls back: no_answer, llm_not_configured, llm_error",
  }),
  closest: Type.Union(
    [
      Type.Object({
        index: Type.Integer(),
        question: Type.Union([Type.String(), Type.Null()]),
        confidence: Type.Number(),
      }),
      Type.Null(),
    ],
    {
      description:
        "Builtin engine, fallback no_answer: the entry that came closest and its confidence, below the " +
        "threshold (the entry to add the message to with Save as knowledge); null otherwise",
    },
  ),
});

export const OutgoingStats = Type.Object({
  state: Type.Union([Type.Literal("running"), Type.Literal("paused"), Type.Literal("done"), Type.Null()]),
  pausedReason: Type.Union([Type.String(), Type.Null()]),
  members: Type.Integer({ description: "Members of the list now" }),
  queued: Type.Integer({ description: "Members not reached yet" }),
  sent: Type.Integer({ description: "First messages delivered (Sent)" }),
  pending: Type.Integer({ description: "First messages not yet delivered" }),
  failed: Type.Integer({ description: "First messages that failed" }),
  skipped: Type.Integer({ description: "Members that got no first message (skippedByReason says why)" }),
  skippedByReason: Type.Object({
    no_custom_channel_id: Type.Integer({ description: "Members without a fromId" }),
    no_known_channel: Type.Integer({
      description: "Members with a fromId but no channel label of their own, the campaign naming none",
    }),
    no_phone: Type.Integer({ description: "A WhatsApp or SMS campaign's members without a phone" }),
    opted_out: Type.Integer({ description: "An SMS campaign's members who texted STOP" }),
  }),
  replied: Type.Integer({ description: "Contacts who wrote back after their first message" }),
});

export const SaveKnowledgeBody = Type.Object({
  question: Type.String({
    minLength: 1,
    maxLength: LIMITS.question,
    description: "What the customer asked (for example the message the bot fell back on)",
  }),
  entryIndex: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: "Add the question as another phrasing of this question/answer entry (0-based)",
    }),
  ),
  answer: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: LIMITS.answer,
      description: "Create a new entry with this answer (for example the person's reply)",
    }),
  ),
});

export const SaveKnowledgeJson = Type.Object({
  campaignId: Type.String(),
  change: Type.Union(
    [Type.Literal("alternative_added"), Type.Literal("entry_created"), Type.Literal("unchanged")],
    { description: "unchanged: the entry already had this phrasing" },
  ),
  entry: Type.Object({
    index: Type.Integer(),
    question: Type.String(),
    answer: Type.String(),
    alternatives: Type.Array(Type.String()),
  }),
  knowledgeCount: Type.Integer(),
});

export const SkippedQuery = Type.Object({ ...PageQuery.properties });

export const SkippedMemberJson = Type.Object({
  contactId: Type.String(),
  firstName: Type.Union([Type.String(), Type.Null()]),
  lastName: Type.Union([Type.String(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  reason: SkipReason,
  skippedAt: Type.String({ description: "ISO 8601 UTC" }),
});

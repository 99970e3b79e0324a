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
  awayMessage: 1_000,
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
  onlyInHours: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        "true: first messages go out only during the account's business hours; while closed, sending " +
        "waits and resumes at the next opening (GET /v1/account/business-hours). Default false",
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
    onlyInHours: Type.Boolean(),
    state: Type.Union([Type.Literal("running"), Type.Literal("paused"), Type.Literal("done"), Type.Null()], {
      description: "null until started",
    }),
    pausedReason: Type.Union([Type.String(), Type.Null()], {
      description: "paused (by a person) or out_of_credits",
    }),
  }),
  Type.Null(),
]);

/**
 * A custom function the LLM engine may call. `parameters` is the business's own JSON Schema, so it is
 * taken as any value here (a typed object would have its properties stripped) and checked in the service.
 */
export const BotFunctionBody = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "Letters, digits and _, starting with a letter; unique in the campaign",
  }),
  description: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: "When the bot should use it (the model reads this)",
  }),
  parameters: Type.Optional(
    Type.Unknown({
      description:
        'A JSON Schema with "type": "object" for the arguments (default: no arguments). The model\'s ' +
        "arguments are checked against it before the call; a mismatch is refused and the model is told",
    }),
  ),
  url: Type.String({
    minLength: 1,
    maxLength: 2000,
    description:
      "Called with a signed POST (Standard Webhooks, the account's webhook secret): https://, or http:// " +
      "only for addresses in OUTBOUND_ALLOW_CIDRS",
  }),
  timeoutMs: Type.Optional(
    Type.Integer({ minimum: 1000, maximum: 15000, default: 5000, description: "Time the call may take" }),
  ),
});

export const BotFunctionJson = Type.Object({
  name: Type.String(),
  description: Type.String(),
  parameters: Type.Unknown(),
  url: Type.String(),
  timeoutMs: Type.Integer(),
});

const Functions = Type.Array(BotFunctionBody, {
  maxItems: 10,
  description:
    "Custom functions the LLM engine may call mid-reply (at most 3 calls per reply); a failing or slow " +
    "function hands the conversation over to a person. The builtin engine ignores them.",
});

/**
 * One follow-up step. One object with optional fields rather than a union (as knowledge entries): "exactly
 * one of message and instruction" and the duration are checked in the service, whose messages name the
 * step (followUps[1].after).
 */
export const FollowUpStepBody = Type.Object(
  {
    after: Type.String({
      maxLength: 40,
      description:
        "How long after the conversation's last message (ours: the bot's, a person's or the previous " +
        "follow-up) the customer has not answered: an ISO 8601 duration PnDTnHnMnS, like PT24H, P2D, " +
        "PT30M or PT3S, from PT1S to P30D",
    }),
    message: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          "The text sent (1–2,000 characters); {{firstName}}, {{lastName}}, and {{firstName|there}} for a " +
          "fallback when empty, as in the outgoing message",
      }),
    ),
    instruction: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          "Instead of message, with the LLM engine (engine llm or auto): what the follow-up should say " +
          "(1–2,000 characters); the LLM writes it from the conversation",
      }),
    ),
    // Types only: the service checks the rest with messages that name the step (followUps[0].whatsappTemplate.name).
    whatsappTemplate: Type.Optional(
      Type.Union(
        [
          // name and language are required by the service (its message names the step).
          Type.Object({
            name: Type.Optional(
              Type.String({
                description:
                  "Required: the name of a template approved in WhatsApp Manager: lowercase letters, digits and _, up to 512 characters",
              }),
            ),
            language: Type.Optional(
              Type.String({ description: "Required: its language code, like en_US, pt_BR or en" }),
            ),
            parameters: Type.Optional(
              Type.Array(Type.String(), {
                description:
                  "Up to 10 values of the template body's {{1}}, {{2}}, … in order (1–1,024 characters " +
                  "each), with the placeholders of message ({{firstName|there}}) filled per contact",
              }),
            ),
          }),
          Type.Null(),
        ],
        {
          description:
            "On WhatsApp, outside the 24-hour window since the customer's last message (when free text " +
            "is refused), the step goes out as this approved template; without one it is skipped there. " +
            "Within the window, message or instruction goes out as usual.",
        },
      ),
    ),
  },
  { description: "Exactly one of message and instruction; optionally a WhatsApp template" },
);

export const FollowUpStepJson = Type.Object({
  after: Type.String(),
  message: Type.Optional(Type.String()),
  instruction: Type.Optional(Type.String()),
  whatsappTemplate: Type.Optional(
    Type.Object({ name: Type.String(), language: Type.String(), parameters: Type.Array(Type.String()) }),
  ),
});

const FollowUps = Type.Array(FollowUpStepBody, {
  maxItems: 9,
  description:
    "Up to 9 steps sent, one after the other, to a customer who does not answer: step 1 `after` the " +
    "conversation's last message (a bot reply that answered, or a person's reply), each next step " +
    "`after` the previous one. Any new message in the conversation stops the steps; a person's reply " +
    "starts them again. Not sent to resolved conversations, contacts who opted out (SMS STOP, the label " +
    "no-follow-up) or where the bot is off. Replaced as a whole.",
});

const OutsideHours = Type.Union([Type.Literal("answer"), Type.Literal("away")], {
  description:
    "Outside the account's business hours: answer as usual (default), or away: the bot does not answer; " +
    "the conversation gets awayMessage once per closed period and a human alert (outside_hours)",
});
const AwayMessage = Type.Union([Type.String({ maxLength: LIMITS.awayMessage }), Type.Null()], {
  description:
    "Sent outside business hours when outsideHours is away (required then, 1–1,000 characters); the " +
    "placeholders of messages and {{openingTime}}, the next opening in the account's zone (Monday 09:00)",
});
const FollowUpsInHours = Type.Boolean({
  description:
    "true: a follow-up falling due outside business hours waits for the next opening (default false)",
});

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
    functions: Type.Array(BotFunctionJson),
    followUps: Type.Array(FollowUpStepJson),
    outsideHours: OutsideHours,
    awayMessage: Type.Union([Type.String(), Type.Null()], { description: "null when none was given" }),
    followUpsInHours: Type.Boolean(),
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
  functions: Type.Optional(Functions),
  followUps: Type.Optional(FollowUps),
  outsideHours: Type.Optional(OutsideHours),
  awayMessage: Type.Optional(AwayMessage),
  followUpsInHours: Type.Optional(FollowUpsInHours),
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
  functions: Type.Optional(Functions),
  followUps: Type.Optional(FollowUps),
  outsideHours: Type.Optional(OutsideHours),
  awayMessage: Type.Optional(AwayMessage),
  followUpsInHours: Type.Optional(FollowUpsInHours),
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
  outcome: Type.Union(
    [Type.Literal("answer"), Type.Literal("fallback"), Type.Literal("handover"), Type.Literal("choices")],
    {
      description:
        "handover: the message asks for a person (the bot would hand over and pause); choices: the " +
        'builtin engine is unsure between a few entries and asks "Did you mean" (see choices)',
    },
  ),
  reply: Type.String({ description: "What the bot would send" }),
  entry: Type.Union([
    Type.Object({ index: Type.Integer(), question: Type.Union([Type.String(), Type.Null()]) }),
    Type.Null(),
  ]),
  confidence: Type.Union([Type.Number(), Type.Null()], {
    description: "The builtin engine's confidence in the entry (0–1); null for the LLM engine",
  }),
  reason: Type.Union([Type.String(), Type.Null()], {
    description:
      "Why it falls back: no_answer, llm_not_configured, llm_error; human_requested on a hand-over",
  }),
  source: Type.Optional(
    Type.Union(
      [
        Type.Object({
          id: Type.String({ description: "ks_…" }),
          name: Type.String(),
          passage: Type.String({ description: "The passage of the source that answered" }),
        }),
        Type.Null(),
      ],
      {
        description:
          "Builtin engine: the knowledge source whose passage gave the answer (entry is then null); null " +
          "when the answer came from the campaign's own knowledge or there is none",
      },
    ),
  ),
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
  choices: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String({ description: "What the customer answers to pick it: 1, 2 or 3" }),
        title: Type.String({ description: "The entry's question, as the choice shows it" }),
        index: Type.Integer({ description: "The entry's index in the campaign's knowledge" }),
        confidence: Type.Number(),
        source: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()]),
      }),
      {
        description:
          'Outcome choices: the entries the bot offers ("Did you mean: 1. … 2. …"); the customer\'s pick ' +
          "gets that entry's answer. Absent otherwise",
      },
    ),
  ),
});

export const OutgoingStats = Type.Object({
  state: Type.Union([Type.Literal("running"), Type.Literal("paused"), Type.Literal("done"), Type.Null()]),
  pausedReason: Type.Union([Type.String(), Type.Null()]),
  resumesAt: Type.Union([Type.String(), Type.Null()], {
    description:
      "Running with outgoing.onlyInHours while the account is closed: the next opening (ISO 8601 UTC), " +
      "when sending resumes; null otherwise",
  }),
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
  followUps: Type.Object(
    {
      sent: Type.Integer({ description: "The campaign's follow-up messages (every step, any status)" }),
      answered: Type.Integer({
        description:
          "Follow-ups the customer answered: the next message of their conversation is the customer's",
      }),
    },
    { description: "The campaign's follow-ups (campaign JSON followUps)" },
  ),
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

export const FunctionTestParams = Type.Object({
  campaignId: Type.String({ maxLength: 64 }),
  name: Type.String({ maxLength: 64 }),
});

export const FunctionTestBody = Type.Object({
  arguments: Type.Optional(
    Type.Unknown({ description: "Sample arguments (an object matching the function's parameters)" }),
  ),
});

export const FunctionTestJson = Type.Object({
  status: Type.Union([
    Type.Literal("ok"),
    Type.Literal("error"),
    Type.Literal("timeout"),
    Type.Literal("blocked"),
  ]),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Integer(),
  response: Type.Union([Type.String(), Type.Null()], { description: "The answer's first 2,000 characters" }),
  error: Type.Union([Type.String(), Type.Null()]),
});

export const FunctionCallJson = Type.Object({
  id: Type.String({ description: "fnc_… (also the webhook-id the function received)" }),
  messageId: Type.String({ description: "The customer's message the bot was answering" }),
  name: Type.String(),
  arguments: Type.Unknown({ description: "As the model gave them (a string when they were not JSON)" }),
  status: Type.Union([
    Type.Literal("ok"),
    Type.Literal("error"),
    Type.Literal("timeout"),
    Type.Literal("blocked"),
    Type.Literal("invalid_arguments"),
  ]),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Integer(),
  response: Type.Union([Type.String(), Type.Null()], {
    description: "The answer, shortened to 500 characters",
  }),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
});

export const FunctionCallList = Type.Object({ data: Type.Array(FunctionCallJson) });

export const SummaryJson = Type.Object({
  conversationId: Type.String(),
  engine: Type.Union([Type.Literal("llm"), Type.Literal("builtin")]),
  summary: Type.Union([Type.String(), Type.Null()], {
    description: "What the customer wants, what was answered, what is missing (LLM); null with builtin",
  }),
  unansweredQuestions: Type.Array(Type.String(), {
    description: "The customer's messages the bot could not answer since a person last wrote",
  }),
  reason: Type.Union([Type.String(), Type.Null()], { description: "The hand-over reason, if any" }),
  upToMessageId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
});

export const PhrasingsParams = Type.Object({
  campaignId: Type.String({ maxLength: 64 }),
  index: Type.Integer({ minimum: 0, description: "The knowledge entry (0-based, as in the campaign JSON)" }),
});

export const PhrasingsJson = Type.Object({
  entry: Type.Object({
    index: Type.Integer(),
    question: Type.String({ description: "The entry's question the phrasings ask in other words" }),
  }),
  phrasings: Type.Array(Type.String({ maxLength: 200 }), {
    maxItems: LIMITS.alternatives,
    description:
      "Proposals only, nothing is stored: other ways a customer might ask the question, written by the " +
      "LLM (8 asked for), each ≤ 200 characters, without repeats of the question, of the entry's " +
      "alternatives or of each other (case, accents and punctuation ignored). Keep the good ones by " +
      "adding them to the entry's alternatives (PATCH the campaign). May be empty",
  }),
});

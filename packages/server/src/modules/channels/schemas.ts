// Channel request and response schemas (validation, handler types, OpenAPI), shared by /v1/channels
// and the web app's /app/api/channels.
import { Type } from "typebox";

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const ChannelTypeSchema = Type.Union(
  [
    Type.Literal("web"),
    Type.Literal("whatsapp"),
    Type.Literal("telegram"),
    Type.Literal("twilio_sms"),
    Type.Literal("messenger"),
    Type.Literal("instagram"),
  ],
  { description: "web (the website chat) or a messaging provider" },
);

const ChannelConfig = Type.Record(Type.String(), Type.Unknown(), {
  description:
    "The type's settings. web: allowedOrigins (required, origins like https://shop.example), title, " +
    "greeting, color (#rrggbb), position (right|left), collectEmail, showAgentName. whatsapp: " +
    "phoneNumberId, accessToken, appSecret, verifyToken (generated when absent), graphVersion. " +
    "twilio_sms: accountSid, authToken, from or messagingServiceSid. telegram: botToken. messenger, " +
    "instagram: pageId, pageAccessToken, appSecret, verifyToken, graphVersion. Secrets are " +
    'answered masked ("••••" and the last 4 characters).',
});

export const ChannelJson = Type.Object(
  {
    id: Type.String({ description: "Channel id (ch_…)" }),
    type: ChannelTypeSchema,
    name: Type.String(),
    status: Type.Union([Type.Literal("active"), Type.Literal("paused"), Type.Literal("error")]),
    lastError: Nullable(Type.String()),
    campaignId: Nullable(
      Type.String({ description: "Conversations of this channel go to this campaign's bot" }),
    ),
    config: ChannelConfig,
    inboundUrl: Nullable(Type.String({ description: "Where a provider posts; null for web" })),
    embedSnippet: Nullable(Type.String({ description: "The script tag to paste (web only)" })),
    createdAt: Type.String({ description: "ISO 8601 UTC" }),
    updatedAt: Type.String({ description: "ISO 8601 UTC" }),
  },
  { description: "A built-in channel" },
);

export const CreateChannelBody = Type.Object({
  type: ChannelTypeSchema,
  name: Type.String({ minLength: 1, maxLength: 100 }),
  config: ChannelConfig,
  campaignId: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
});

export const UpdateChannelBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  config: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description: "Only the settings that change; a secret left out keeps its value",
    }),
  ),
  campaignId: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  status: Type.Optional(
    Type.Union([Type.Literal("active"), Type.Literal("paused")], {
      description: "Pause or resume the channel (resuming clears lastError)",
    }),
  ),
});

export const ChannelParams = Type.Object({ channelId: Type.String({ maxLength: 64 }) });

export const DeleteChannelResponse = Type.Object({
  success: Type.Literal(true),
  channelId: Type.String(),
});

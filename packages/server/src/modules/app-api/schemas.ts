// The web app's request schemas (/app/api): validation and OpenAPI. Responses follow docs/app-api.md.
import { Type } from "typebox";
import { MAX_PAGE_SIZE } from "../../platform/pagination.ts";

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const OnboardingQuery = Type.Object({ setupToken: Type.Optional(Type.String({ maxLength: 200 })) });

export const OnboardingBody = Type.Object({
  businessName: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ minLength: 3, maxLength: 320 }),
  password: Type.String({ minLength: 8, maxLength: 1024 }),
  setupToken: Type.Optional(Type.String({ maxLength: 200 })),
  /** The owner's display name ("Your name"), shown to the team and on their replies. */
  name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
});

/** The signed-in person's own profile: their display name (empty or null clears it). */
export const ProfileBody = Type.Object({
  name: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
});

export const SignInBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
});

export const PasswordBody = Type.Object({
  currentPassword: Type.String({ maxLength: 1024 }),
  newPassword: Type.String({ minLength: 8, maxLength: 1024 }),
});

export const InviteBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  role: Type.Union([Type.Literal("admin"), Type.Literal("agent")]),
});

export const InviteParams = Type.Object({ inviteId: Type.String({ maxLength: 64 }) });
export const MemberParams = Type.Object({ userId: Type.String({ maxLength: 64 }) });
export const InviteTokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });

export const PasswordResetRequestBody = Type.Object({ email: Type.String({ maxLength: 320 }) });
export const PasswordResetParams = Type.Object({ token: Type.String({ maxLength: 200 }) });
export const PasswordResetBody = Type.Object({ password: Type.String({ minLength: 8, maxLength: 1024 }) });

export const AcceptInviteBody = Type.Object({
  name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  password: Type.String({ minLength: 8, maxLength: 1024 }),
});

export const SettingsPatch = Type.Object({
  webhookUrl: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
  eventsWebhookUrl: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
  botActive: Type.Optional(Type.Boolean()),
  llm: Type.Optional(
    Type.Object({
      baseUrl: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
      model: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
      apiKey: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
    }),
  ),
});

export const InboxQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal("open"), Type.Literal("resolved")])),
  humanAlert: Type.Optional(Type.Boolean()),
  assignee: Type.Optional(Type.String({ maxLength: 64, description: "me | unassigned | a user id" })),
  channel: Type.Optional(Type.String({ maxLength: 200 })),
  channelId: Type.Optional(
    Type.String({
      maxLength: 64,
      description: "A built-in channel's id (ch_…), or `custom` for the custom channel",
    }),
  ),
  campaignId: Type.Optional(Type.String({ maxLength: 64 })),
  contactId: Type.Optional(Type.String({ maxLength: 64, description: "One contact's conversations" })),
  q: Type.Optional(Type.String({ maxLength: 200 })),
  label: Type.Optional(Type.String({ maxLength: 50, description: "The contact carries this label" })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 50 })),
});

export const ConversationIdParams = Type.Object({ conversationId: Type.String({ maxLength: 64 }) });
export const MessageIdParams = Type.Object({ messageId: Type.String({ maxLength: 64 }) });

export const ReplyBody = Type.Object({
  // May be empty when an attachment goes alone.
  body: Type.String({ maxLength: 10_000 }),
  attachment: Type.Optional(
    Type.Object(
      {
        contentType: Type.String({
          maxLength: 100,
          description: "image/png, image/jpeg, image/gif, image/webp or application/pdf",
        }),
        data: Type.String({ description: "The file's bytes in base64, at most 16 MiB decoded" }),
      },
      { description: "One image or PDF sent with the reply" },
    ),
  ),
});

export const ConversationPatch = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal("open"), Type.Literal("resolved")])),
  assigneeId: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  botPaused: Type.Optional(Type.Boolean()),
  humanAlert: Type.Optional(Type.Literal(false)),
});

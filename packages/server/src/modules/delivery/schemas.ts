import { Type } from "typebox";

const OptionalText = (max: number, description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: max }), Type.Null()], { description }));

export const SendCustomChannelMessageBody = Type.Object({
  customData: Type.Object({
    fromId: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "The contact's id on the external platform; delivered back as the event's toId",
    }),
    customChannel: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "Name of the custom channel; delivered as the event's channel",
    }),
    body: Type.String({ minLength: 1, maxLength: 10_000, description: "Text to send (not blank)" }),
    campaignId: OptionalText(255, "Campaign id, echoed in the event"),
    firstName: OptionalText(255, "Creates or updates the contact's first name"),
    lastName: OptionalText(255, "Creates or updates the contact's last name"),
    email: OptionalText(254, "Creates or updates the contact's e-mail"),
  }),
});

export const SendCustomChannelMessageResponse = Type.Object({
  success: Type.Boolean(),
  messageId: Type.String(),
  contactId: Type.String(),
  message: Type.String({ description: "Message queued for delivery" }),
});

export const MessageIdParams = Type.Object({ messageId: Type.String() });

export const ResendResponse = Type.Object({
  success: Type.Boolean(),
  messageId: Type.String(),
  status: Type.Literal("pending"),
});

export const ConversationIdParams = Type.Object({ conversationId: Type.String() });

export const HumanReplyBody = Type.Object({
  body: Type.String({ minLength: 1, maxLength: 10_000, description: "Reply text (not blank)" }),
});

// TypeBox schemas of the messaging routes. The incoming body schema documents the endpoint in
// OpenAPI; its rules are enforced by incoming-validation.ts, which names the offending field.
import { Type } from "typebox";
import { pageOf } from "../../platform/pagination.ts";
import { MAX_BODY_CHARS, MAX_ID_CHARS } from "./incoming-validation.ts";
import { MessageJson } from "./view.ts";

const Id = (description: string) => Type.String({ maxLength: MAX_ID_CHARS, description });
const OptionalText = (description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: MAX_ID_CHARS }), Type.Null()], { description }));

export const IncomingBody = Type.Object(
  {
    customData: Type.Object({
      messageSid: Type.Optional(
        Id("Unique message id in your system; a repeat is answered with the original messageId"),
      ),
      id: Type.Optional(Id("Alternative to messageSid (used when messageSid is absent)")),
      fromId: Id("Sender id in your system; the same fromId is always the same contact and conversation"),
      toId: Id("Business identifier; any text"),
      body: Type.String({
        minLength: 1,
        maxLength: MAX_BODY_CHARS,
        description: "Message text, not blank. For a reaction: the emoji",
      }),
      status: Type.Optional(
        Type.Union([Type.Literal("received"), Type.Literal("delivered"), Type.Literal("read"), Type.Null()], {
          description: "Default received",
        }),
      ),
      channel: OptionalText("Label of the source (a live chat, e-mail, CRM, …)"),
      campaignId: OptionalText("Routes the message to this campaign's bot configuration"),
      firstName: OptionalText("Used when the contact is created"),
      lastName: OptionalText("Used when the contact is created"),
      email: OptionalText("Used when the contact is created; must be a valid address"),
      reactionTo: OptionalText("For messageType reaction: the messageSid reacted to"),
      mediaUrl: Type.Optional(
        Type.Union([Type.String(), Type.Null()], {
          description:
            "Attachment: an http(s) URL the service downloads, or an embedded file " +
            "`data:<mime>;base64,<data>` (at most 16 MiB decoded; the request at most 25 MiB)",
        }),
      ),
      mediaContentType: Type.Optional(
        Type.Union([Type.String(), Type.Null()], {
          description: "MIME type of the attachment; required with mediaUrl and must match the real content",
        }),
      ),
    }),
    messageType: Type.Optional(
      Type.Union([Type.Literal("text"), Type.Literal("reaction"), Type.Null()], {
        description: "Omitted or text for a regular message; reaction for an emoji reaction",
      }),
    ),
  },
  { description: "customData.messageSid or customData.id is required" },
);

export const IncomingSuccess = Type.Object({
  success: Type.Literal(true),
  messageId: Type.String(),
  duplicate: Type.Optional(
    Type.Boolean({
      description: "true when this messageSid was already received; nothing was processed again",
    }),
  ),
});

export const MessageParams = Type.Object({ messageId: Type.String() });
/** The query of a signed media link (media/link.ts). */
export const SignedMediaQuery = Type.Object({
  account: Type.String({ maxLength: 64 }),
  expires: Type.Integer({ minimum: 0 }),
  signature: Type.String({ maxLength: 128 }),
});
export const ContactParams = Type.Object({ contactId: Type.String() });
export const MessagePage = pageOf(MessageJson);

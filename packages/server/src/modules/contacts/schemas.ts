// Contact request and response schemas: they drive validation, handler types and the OpenAPI document.
import { Type } from "typebox";

const NullableString = (options: { maxLength: number; description?: string }) =>
  Type.Union([Type.String(options), Type.Null()]);

export const ContactJson = Type.Object(
  {
    id: Type.String({ description: "Contact id (ct_…), sortable by creation time" }),
    firstName: Type.Union([Type.String(), Type.Null()]),
    lastName: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()], { description: "E.164, e.g. +14155550100" }),
    email: Type.Union([Type.String(), Type.Null()], { description: "Lower-cased" }),
    createdAt: Type.String({ description: "ISO 8601 UTC" }),
    updatedAt: Type.String({ description: "ISO 8601 UTC" }),
    botActive: Type.Boolean({ description: "Per-contact AI bot switch" }),
    labels: Type.Array(Type.String(), { description: "Free-form tags (extension)" }),
    smsOptedOutAt: Type.Union([Type.String(), Type.Null()], {
      description: "When the contact texted STOP on an SMS channel (ISO 8601 UTC); null: may be texted",
    }),
  },
  { description: "A contact" },
);

const PHONE_DESCRIPTION = "Phone number with its country code (leading +), any formatting; stored as E.164";

export const CreateContactBody = Type.Object({
  firstName: Type.Optional(NullableString({ maxLength: 255 })),
  lastName: Type.Optional(NullableString({ maxLength: 255 })),
  phone: Type.Optional(NullableString({ maxLength: 64, description: PHONE_DESCRIPTION })),
  phoneNumber: Type.Optional(NullableString({ maxLength: 64, description: "Alias of phone" })),
  email: Type.Optional(NullableString({ maxLength: 254 })),
  labels: Type.Optional(
    Type.Array(Type.String({ maxLength: 50 }), {
      maxItems: 20,
      description:
        "Free-form tags (extension): replaces the set; 1–50 characters each, no quotes, backslashes or commas",
    }),
  ),
});

export const UpdateContactBody = Type.Object({
  firstName: Type.Optional(NullableString({ maxLength: 255, description: "null clears" })),
  lastName: Type.Optional(NullableString({ maxLength: 255, description: "null clears" })),
  phone: Type.Optional(NullableString({ maxLength: 64, description: `${PHONE_DESCRIPTION}; null clears` })),
  phoneNumber: Type.Optional(NullableString({ maxLength: 64, description: "Alias of phone" })),
  email: Type.Optional(NullableString({ maxLength: 254, description: "null clears" })),
  botActive: Type.Optional(Type.Boolean()),
  labels: Type.Optional(
    Type.Array(Type.String({ maxLength: 50 }), {
      maxItems: 20,
      description:
        "Free-form tags (extension): replaces the set; 1–50 characters each, no quotes, backslashes or commas",
    }),
  ),
});

export const LookupQuery = Type.Object({
  phoneNumber: Type.Optional(
    Type.String({
      maxLength: 64,
      description: "Normalised before lookup; URL-encode the + as %2B (a leading space is read as +)",
    }),
  ),
  email: Type.Optional(Type.String({ maxLength: 254, description: "Case-insensitive" })),
  q: Type.Optional(
    Type.String({ maxLength: 200, description: "Listing: a substring of the name, phone, e-mail or fromId" }),
  ),
  label: Type.Optional(Type.String({ maxLength: 50, description: "Listing: contacts with this label" })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 200, description: "Listing: page size (default 50)" }),
  ),
  cursor: Type.Optional(
    Type.String({ maxLength: 200, description: "Listing: nextCursor of the previous page" }),
  ),
});

export const ContactPage = Type.Object(
  {
    data: Type.Array(ContactJson),
    hasMore: Type.Boolean(),
    nextCursor: Type.Union([Type.String(), Type.Null()]),
  },
  { description: "Without phoneNumber and email: a page of contacts, newest first" },
);

export const DeleteContactResponse = Type.Object({
  success: Type.Literal(true),
  contactId: Type.String(),
  deleted: Type.Object({
    conversations: Type.Integer({ description: "Conversations erased with the contact" }),
    messages: Type.Integer({ description: "Messages erased with the contact (and their attachments)" }),
  }),
});

export const LookupResponse = Type.Object({
  success: Type.Literal(true),
  contactId: Type.String(),
  contact: ContactJson,
});

export const ContactParams = Type.Object({
  contactId: Type.String({ maxLength: 64 }),
});

/** The ids of a bulk action: 1 to 500 per call (a repeated id counts once). */
export const BulkIds = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: 500,
  description: "1 to 500 ids of this account; others are reported in notFound and left alone",
});

export const BulkContactsBody = Type.Object({
  ids: BulkIds,
  action: Type.Union([Type.Literal("label"), Type.Literal("unlabel"), Type.Literal("delete")], {
    description:
      "label / unlabel: add or remove `label` on each contact; delete: erase each contact as DELETE " +
      "/v1/contacts/{contactId} does. To put contacts on a list: POST /v1/lists/{listId}/contacts/bulk",
  }),
  label: Type.Optional(Type.String({ maxLength: 50, description: "Required for label and unlabel" })),
});

export const BulkResponse = Type.Object({
  updated: Type.Integer({ description: "Rows the action applied to (already in that state included)" }),
  notFound: Type.Array(Type.String(), { description: "Ids that are not this account's: nothing done" }),
});

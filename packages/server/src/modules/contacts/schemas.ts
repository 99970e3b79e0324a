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
});

export const UpdateContactBody = Type.Object({
  firstName: Type.Optional(NullableString({ maxLength: 255, description: "null clears" })),
  lastName: Type.Optional(NullableString({ maxLength: 255, description: "null clears" })),
  phone: Type.Optional(NullableString({ maxLength: 64, description: `${PHONE_DESCRIPTION}; null clears` })),
  phoneNumber: Type.Optional(NullableString({ maxLength: 64, description: "Alias of phone" })),
  email: Type.Optional(NullableString({ maxLength: 254, description: "null clears" })),
  botActive: Type.Optional(Type.Boolean()),
});

export const LookupQuery = Type.Object({
  phoneNumber: Type.Optional(
    Type.String({
      maxLength: 64,
      description: "Normalised before lookup; URL-encode the + as %2B (a leading space is read as +)",
    }),
  ),
  email: Type.Optional(Type.String({ maxLength: 254, description: "Case-insensitive" })),
});

export const LookupResponse = Type.Object({
  success: Type.Literal(true),
  contactId: Type.String(),
  contact: ContactJson,
});

export const ContactParams = Type.Object({
  contactId: Type.String({ maxLength: 64 }),
});

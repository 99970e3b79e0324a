// List request and response schemas (validation, handler types, OpenAPI).
import { Type } from "typebox";

export const ListJson = Type.Object(
  {
    id: Type.String({ description: "List id (ls_…)" }),
    name: Type.String(),
    memberCount: Type.Integer({ minimum: 0 }),
    createdAt: Type.String({ description: "ISO 8601 UTC" }),
    updatedAt: Type.String({ description: "ISO 8601 UTC" }),
  },
  { description: "A contact list" },
);

export const CreateListBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
});

export const ListParams = Type.Object({
  listId: Type.String({ maxLength: 64 }),
});

export const MemberParams = Type.Object({
  listId: Type.String({ maxLength: 64 }),
  contactId: Type.String({ maxLength: 64 }),
});

export const AddMemberBody = Type.Object({
  contactId: Type.String({ minLength: 1, maxLength: 64, description: "Id of a contact of this account" }),
});

export const AddMemberResponse = Type.Object({
  success: Type.Literal(true),
  listId: Type.String(),
  contactId: Type.String(),
  added: Type.Boolean({ description: "false when the contact already was a member" }),
});

export const RemoveMemberResponse = Type.Object({
  success: Type.Literal(true),
  listId: Type.String(),
  contactId: Type.String(),
  removed: Type.Boolean({ description: "false when the contact was not a member" }),
});

export const DeleteListResponse = Type.Object({ success: Type.Literal(true), listId: Type.String() });

export const AddMembersBody = Type.Object({
  contactIds: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
    minItems: 1,
    maxItems: 500,
    description: "1 to 500 contact ids of this account; others are reported in notFound and left alone",
  }),
});

export const AddMembersResponse = Type.Object({
  success: Type.Literal(true),
  listId: Type.String(),
  added: Type.Integer({ description: "Contacts that became members" }),
  alreadyMembers: Type.Integer({ description: "Contacts that already were members (unchanged)" }),
  notFound: Type.Array(Type.String(), { description: "Ids that are not this account's contacts" }),
});

// Request and response schemas of agency assist and the audit log.
import { type TSchema, Type } from "typebox";
import { pageOf } from "../../platform/pagination.ts";

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** Who assists the signed-in browser's account right now (in the session JSON), or null. */
export const AssistJson = Type.Object({
  agencyName: Type.String(),
  clientId: Type.String(),
  clientName: Type.String(),
  expiresAt: Type.String(),
});

export const StartAssistBody = Type.Object({
  accountId: Type.String({ minLength: 1, maxLength: 100, description: "The client (sub-account) to assist" }),
});

export const AssistClientsQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
});

export const AssistClientsJson = Type.Object({
  data: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      balance: Type.Number(),
      /** Open conversations that need a human there. */
      needsHuman: Type.Integer(),
      suspended: Type.Boolean(),
    }),
  ),
});

export const AssistSettingsJson = Type.Object({ allowed: Type.Boolean() });
export const AssistSettingsBody = Type.Object({ allowed: Type.Boolean() });

export const AuditEntryJson = Type.Object({
  id: Type.String(),
  createdAt: Type.String(),
  actor: Type.Object({ userId: Type.String(), email: Type.String(), name: Nullable(Type.String()) }),
  agency: Type.Object({ id: Type.String(), name: Type.String() }),
  method: Type.String(),
  route: Type.String(),
  objectId: Nullable(Type.String()),
  status: Type.Integer(),
});

export const AuditPage = pageOf(AuditEntryJson);

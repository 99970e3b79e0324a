import { Type } from "typebox";

export const AccountSettings = Type.Object({
  accountId: Type.String(),
  name: Type.String(),
  email: Type.String(),
  kind: Type.Union([Type.Literal("standard"), Type.Literal("agency"), Type.Literal("subaccount")]),
  parentAccountId: Type.Union([Type.String(), Type.Null()]),
  credits: Type.Number(),
  botActive: Type.Boolean(),
  webhookUrl: Type.Union([Type.String(), Type.Null()]),
  webhookSecret: Type.String(),
  eventsWebhookUrl: Type.Union([Type.String(), Type.Null()]),
  llm: Type.Object({
    baseUrl: Type.Union([Type.String(), Type.Null()]),
    model: Type.Union([Type.String(), Type.Null()]),
    apiKeySet: Type.Boolean(),
  }),
  autoRecharge: Type.Union([Type.Object({ threshold: Type.Number(), amount: Type.Number() }), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

import { Type } from "typebox";

export const MAX_AMOUNT = 1_000_000;

const AMOUNT_RULES = `a JSON number > 0 and <= ${MAX_AMOUNT.toLocaleString("en-US")} with at most two decimals`;

export const AutoRechargeJson = Type.Union([
  Type.Object({
    threshold: Type.Number({ description: "A debit that takes the balance below this fires the event" }),
    rechargeAmount: Type.Number({ description: "Suggested grant, sent in the event as recharge_amount" }),
  }),
  Type.Null(),
]);

export const SubaccountJson = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  credits: Type.Number({ description: "Balance in credits (two decimals)" }),
  autoRecharge: AutoRechargeJson,
  status: Type.Union([Type.Literal("active"), Type.Literal("suspended")], {
    description: "suspended: its API key and sessions are refused and its bot is silent; nothing is deleted",
  }),
  suspendedAt: Type.Union([Type.String(), Type.Null()], { description: "ISO 8601 UTC; null while active" }),
  createdAt: Type.String({ description: "ISO 8601 UTC" }),
});

export const OwnerInviteJson = Type.Object(
  {
    url: Type.String({
      description: "The link the owner opens to choose a password (built from PUBLIC_URL)",
    }),
    expiresAt: Type.String({ description: "ISO 8601 UTC, 7 days after creation" }),
  },
  { description: "The sub-account owner's invite, shown only in this answer" },
);

export const CreatedSubaccountJson = Type.Object({
  ...SubaccountJson.properties,
  apiKey: Type.String({ description: "The sub-account's API key, shown only in this answer" }),
  ownerInvite: OwnerInviteJson,
});

export const CreateSubaccountBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  name: Type.Optional(Type.String({ maxLength: 200, description: "Defaults to the e-mail address" })),
});

export const RenameSubaccountBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, description: "The client's name, shown to the agency" }),
});

export const SubaccountParams = Type.Object({
  id: Type.String({ maxLength: 64, description: "Sub-account id (acc_…)" }),
});

export const GrantBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254, description: "E-mail of a sub-account of this agency" }),
  // Checked before schema validation (preValidation), so any bad amount is INVALID_AMOUNT.
  amount: Type.Number({ description: `Credits to grant: ${AMOUNT_RULES} (else 400 INVALID_AMOUNT)` }),
  description: Type.Optional(
    Type.Union([Type.String({ maxLength: 500 }), Type.Null()], {
      description: "Shown in the credit transaction history (at most 500 characters)",
    }),
  ),
});

export const GrantResponse = Type.Object({
  success: Type.Literal(true),
  sub_account_id: Type.String(),
  credits_added: Type.Number(),
  new_balance: Type.Number(),
});

export const AutoRechargeBody = Type.Object({
  threshold: Type.Number({ description: `Credits; ${AMOUNT_RULES}` }),
  rechargeAmount: Type.Number({ description: `Credits; ${AMOUNT_RULES}` }),
});

export const TransactionJson = Type.Object({
  id: Type.String(),
  amount: Type.Number({ description: "Signed: positive adds credits, negative takes them" }),
  balanceAfter: Type.Number(),
  description: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Union([Type.Literal("grant"), Type.Literal("bot_reply"), Type.Literal("adjustment")]),
  messageId: Type.Union([Type.String(), Type.Null()], { description: "The bot reply a bot_reply paid for" }),
  createdAt: Type.String({ description: "ISO 8601 UTC" }),
});

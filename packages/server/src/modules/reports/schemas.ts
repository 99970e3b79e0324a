import { type Static, Type } from "typebox";
import { MAX_DAYS } from "./service.ts";

export const UsageQuery = Type.Object(
  {
    days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_DAYS,
        default: 30,
        description: `How many UTC days, ending today (1–${MAX_DAYS}, default 30)`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type UsageQuery = Static<typeof UsageQuery>;

const UsageFigures = {
  messagesIn: Type.Integer({ description: "Messages the client's contacts sent" }),
  messagesOut: Type.Integer({ description: "Messages sent to contacts (bot, people and the API)" }),
  botReplies: Type.Integer({ description: "Of messagesOut, those the bot sent" }),
  creditsUsed: Type.Number({ description: "Credits the client's bot used (two decimals)" }),
  deliveriesSucceeded: Type.Integer({ description: "Outgoing messages sent (or delivered, or read)" }),
  deliveriesFailed: Type.Integer({ description: "Outgoing messages whose delivery failed for good" }),
};

export const UsageDayJson = Type.Object({
  date: Type.String({ description: "YYYY-MM-DD, a UTC day" }),
  ...UsageFigures,
});

export const UsageJson = Type.Object({
  from: Type.String({ description: "The first day, YYYY-MM-DD (UTC)" }),
  to: Type.String({ description: "The last day (today, UTC)" }),
  days: Type.Array(UsageDayJson, {
    description: "Every day of the period, oldest first (quiet days are zeros)",
  }),
  totals: Type.Object({
    ...UsageFigures,
    deliverySuccessRate: Type.Union([Type.Number(), Type.Null()], {
      description: "Percent of the period's finished deliveries that succeeded (one decimal); null when none",
    }),
  }),
});

export const UsageCsvFile = Type.String({
  description:
    "text/csv: a header row (date, messages_in, messages_out, bot_replies, credits_used, " +
    "deliveries_succeeded, deliveries_failed), then a row a day, oldest first",
});

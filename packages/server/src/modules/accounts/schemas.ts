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

// Business hours: the shape here, the rules (zone, times, overlaps, dates) in business-hours.ts, whose
// messages name the field (days.monday[1].close).
const OpeningRange = Type.Object({
  open: Type.String({ maxLength: 5, description: "HH:MM, 00:00 to 23:59, in the account's time zone" }),
  close: Type.String({
    maxLength: 5,
    description: "HH:MM after open, up to 24:00 (midnight at the day's end)",
  }),
});
const DayRanges = Type.Array(OpeningRange, {
  maxItems: 4,
  description: "Up to 4 ranges a day that do not overlap; an empty list (or a missing day): closed",
});

export const BusinessHoursObject = Type.Object(
  {
    timezone: Type.String({
      maxLength: 64,
      description: "An IANA time zone such as Europe/Berlin or America/New_York (daylight saving included)",
    }),
    days: Type.Object({
      monday: Type.Optional(DayRanges),
      tuesday: Type.Optional(DayRanges),
      wednesday: Type.Optional(DayRanges),
      thursday: Type.Optional(DayRanges),
      friday: Type.Optional(DayRanges),
      saturday: Type.Optional(DayRanges),
      sunday: Type.Optional(DayRanges),
    }),
    holidays: Type.Optional(
      Type.Array(Type.String({ maxLength: 10 }), {
        maxItems: 100,
        description: "Dates YYYY-MM-DD (in the account's zone) closed all day; up to 100",
      }),
    ),
  },
  { description: "At least one weekday has opening hours" },
);

export const BusinessHoursBody = Type.Object({
  businessHours: Type.Union([BusinessHoursObject, Type.Null()], {
    description: "The account's hours; null clears them (always open)",
  }),
});

const RangeJson = Type.Object({ open: Type.String(), close: Type.String() });
const DayJson = Type.Array(RangeJson);

export const BusinessHoursJson = Type.Object({
  businessHours: Type.Union(
    [
      Type.Object({
        timezone: Type.String(),
        days: Type.Object({
          monday: DayJson,
          tuesday: DayJson,
          wednesday: DayJson,
          thursday: DayJson,
          friday: DayJson,
          saturday: DayJson,
          sunday: DayJson,
        }),
        holidays: Type.Array(Type.String()),
      }),
      Type.Null(),
    ],
    { description: "null: not set, the account is always open" },
  ),
  openNow: Type.Boolean(),
  nextOpening: Type.String({ description: "ISO 8601 UTC: now when open" }),
  openingTime: Type.String({
    description:
      'The next opening in the account\'s zone as {{openingTime}} writes it ("Monday 09:00"), "now" when open',
  }),
});

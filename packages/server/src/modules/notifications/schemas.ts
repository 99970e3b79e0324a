// Request shapes of the notifications routes (/app/api: a person's bell and preferences).
import { Type } from "typebox";

export const BellQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  before: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});

export const MarkReadBody = Type.Object({
  /** The person's own notification ids; absent: all of them. */
  ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 500 })),
});

// Free-form JSON checked by the service (kinds and media named in the error); Unknown keeps the keys.
export const PreferencesBody = Type.Object({
  preferences: Type.Record(Type.String(), Type.Unknown()),
});

export const NotificationDefaultsBody = Type.Object({
  defaults: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  /** Whole credits (two decimals); null turns the warning off. */
  creditsLowThreshold: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1e12 }), Type.Null()])),
});

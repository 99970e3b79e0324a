// What Parley tells people about: the closed list of kinds, who hears of each by default, and how a
// digest of many names itself. The same names are the account events webhook's event types.

export const NOTIFICATION_KINDS = [
  "conversation.human_alert",
  "conversation.assigned",
  "credits.low",
  "campaign.finished",
  "campaign.paused",
  "delivery.failing",
  "note.mentioned",
] as const;

export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export type Medium = "email" | "app";
export type Preference = Record<Medium, boolean>;
export type Preferences = Record<NotificationKind, Preference>;

interface KindInfo {
  label: string;
  description: string;
  /** The subject of a digest of `n` (n > 1) of them. */
  digestSubject(n: number): string;
}

export const KINDS: Record<NotificationKind, KindInfo> = {
  "conversation.human_alert": {
    label: "A conversation needs a human",
    description:
      "The bot handed a conversation over (a customer asked for a person, or it could not answer). " +
      "Goes to the conversation's assignee, or to the whole team when nobody is assigned.",
    digestSubject: (n) => `${n} conversations need a human`,
  },
  "conversation.assigned": {
    label: "A conversation was assigned to you",
    description: "A teammate assigned a conversation to you.",
    digestSubject: (n) => `${n} conversations were assigned to you`,
  },
  "credits.low": {
    label: "Credits are low",
    description:
      "The balance fell below the account's warning threshold (agencies: also a client's). Owners and admins.",
    digestSubject: (n) => `${n} low-credit warnings`,
  },
  "campaign.finished": {
    label: "An outgoing campaign finished",
    description: "An outgoing campaign sent its last message. Owners and admins.",
    digestSubject: (n) => `${n} outgoing campaigns finished`,
  },
  "campaign.paused": {
    label: "An outgoing campaign paused",
    description:
      "An outgoing campaign stopped sending (paused by a person, or out of credits). Owners and admins.",
    digestSubject: (n) => `${n} outgoing campaigns paused`,
  },
  "delivery.failing": {
    label: "Deliveries keep failing",
    description:
      "Every delivery to the webhook or a channel failed for 10 minutes (at least 5 attempts). Owners and admins.",
    digestSubject: (n) => `${n} delivery failure warnings`,
  },
  "note.mentioned": {
    label: "You were mentioned in a note",
    description: "A teammate mentioned you (@name or @e-mail) in a private note in a conversation.",
    digestSubject: (n) => `${n} new mentions`,
  },
};

/** Everything on, for every kind, until an owner or the person says otherwise. */
export function builtinDefaults(): Preferences {
  return Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, { email: true, app: true }])) as Preferences;
}

export function isKind(value: string): value is NotificationKind {
  return (NOTIFICATION_KINDS as readonly string[]).includes(value);
}

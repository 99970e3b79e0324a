// Names of the channel types as people read them (the API's type ids are for machines).
import type { ChannelKind, ChannelType } from "./api-types.ts";

export const CHANNEL_TYPE_LABELS: Record<ChannelKind, string> = {
  custom: "Custom channel",
  web: "Website chat",
  whatsapp: "WhatsApp",
  telegram: "Telegram",
  twilio_sms: "SMS (Twilio)",
  messenger: "Messenger",
  instagram: "Instagram",
};

/** What the Add channel dialog offers, in this order. */
export const CHANNEL_CHOICES: { type: ChannelType; description: string; available: boolean }[] = [
  {
    type: "web",
    description: "A chat button on your website: paste one script tag, visitors chat with your bot and team.",
    available: true,
  },
  {
    type: "whatsapp",
    description: "A WhatsApp Business number through Meta's WhatsApp Cloud API.",
    available: true,
  },
  { type: "telegram", description: "A Telegram bot you create with BotFather.", available: true },
  { type: "twilio_sms", description: "Text messages to and from a Twilio phone number.", available: true },
  { type: "messenger", description: "Messages to your Facebook Page.", available: true },
  {
    type: "instagram",
    description: "Direct messages to the Instagram account linked to your Facebook Page.",
    available: true,
  },
];

/** The channel types a provider runs (everything but the website chat). */
export type ProviderType = Exclude<ChannelType, "web">;

export function isProvider(type: ChannelType): type is ProviderType {
  return type !== "web";
}

/** One setting of a provider channel, as the Add channel and Edit forms show it. */
export interface ProviderField {
  /** The key in the channel's `config`. */
  key: string;
  label: string;
  description: string;
  placeholder?: string;
  /** Stored encrypted and answered masked: a password input, left empty on edit to keep it. */
  secret?: boolean;
  /** A value Parley makes up for you to paste into the provider's console (Meta's verify token). */
  generated?: boolean;
  /** May be left empty (the server's default applies). */
  optional?: boolean;
  /** Twilio sends from a number or from a messaging service: only one of the pair is shown and sent. */
  sender?: "from" | "service";
  /** What is wrong with a value as typed (the server checks again), or null. */
  check?: (value: string) => string | null;
}

const E164 = /^\+[1-9]\d{6,14}$/;
const digits = (what: string) => (v: string) => (/^\d{5,30}$/.test(v) ? null : `Digits only: ${what}`);
const twilioSid = (prefix: "AC" | "MG") => (v: string) =>
  new RegExp(`^${prefix}[0-9a-f]{32}$`, "i").test(v) ? null : `${prefix} and 32 characters from 0-9 and a-f`;

const META_APP_SECRET: ProviderField = {
  key: "appSecret",
  label: "App secret",
  description:
    "Meta App Dashboard → App Settings → Basic → App secret: Parley checks Meta's signature with it.",
  secret: true,
};

const META_VERIFY_TOKEN: ProviderField = {
  key: "verifyToken",
  label: "Verify token",
  description:
    "Any value you choose, pasted into the webhook settings of your Meta app: Meta sends it back when it checks the callback URL. Parley made one up for you.",
  secret: true,
  generated: true,
};

export const PROVIDER_FIELDS: Record<ProviderType, ProviderField[]> = {
  whatsapp: [
    {
      key: "phoneNumberId",
      label: "Phone number ID",
      description: "Meta App Dashboard → WhatsApp → API Setup: the ID under your phone number (digits).",
      placeholder: "106540352242922",
      check: digits("the ID Meta shows, not the phone number itself"),
    },
    {
      key: "accessToken",
      label: "Access token",
      description:
        "A permanent token of a System User (Business Settings), or the temporary token of API Setup for a first try.",
      secret: true,
    },
    META_APP_SECRET,
    META_VERIFY_TOKEN,
    {
      key: "graphVersion",
      label: "Graph API version",
      description: "Leave empty for v21.0.",
      placeholder: "v21.0",
      optional: true,
      check: (v) => (/^v\d+\.\d+$/.test(v) ? null : "A version like v21.0"),
    },
  ],
  telegram: [
    {
      key: "botToken",
      label: "Bot token",
      description:
        "The token BotFather gives you after /newbot, like 123456789:AA…. Parley registers its webhook with Telegram itself.",
      secret: true,
      check: (v) => (/^\d{3,20}:[A-Za-z0-9_-]{30,60}$/.test(v) ? null : "A bot token like 123456789:AA…"),
    },
  ],
  twilio_sms: [
    {
      key: "accountSid",
      label: "Account SID",
      description: "Twilio Console → Account Info: starts with AC.",
      placeholder: "AC…",
      check: twilioSid("AC"),
    },
    {
      key: "authToken",
      label: "Auth token",
      description: "Twilio Console → Account Info, beside the Account SID.",
      secret: true,
      check: (v) => (/^[0-9a-f]{32}$/i.test(v) ? null : "32 characters from 0-9 and a-f, as Twilio shows it"),
    },
    {
      key: "from",
      label: "From number",
      description: "Your Twilio phone number in international format (E.164), like +14155550123.",
      placeholder: "+14155550123",
      sender: "from",
      check: (v) =>
        E164.test(v.replace(/[\s().-]/g, "")) ? null : "A number in international format, like +14155550123",
    },
    {
      key: "messagingServiceSid",
      label: "Messaging service SID",
      description: "Twilio Console → Messaging → Services: starts with MG.",
      placeholder: "MG…",
      sender: "service",
      check: twilioSid("MG"),
    },
  ],
  messenger: [
    {
      key: "pageId",
      label: "Page ID",
      description: "The ID of the Facebook Page people write to (digits).",
      placeholder: "104539872340001",
      check: digits("the Page's numeric ID"),
    },
    {
      key: "pageAccessToken",
      label: "Page access token",
      description: "Meta app → Messenger → settings: generate a token for your Page.",
      secret: true,
    },
    META_APP_SECRET,
    META_VERIFY_TOKEN,
  ],
  instagram: [
    {
      key: "pageId",
      label: "Page ID",
      description: "The ID of the Facebook Page your Instagram professional account is linked to (digits).",
      placeholder: "104539872340001",
      check: digits("the Page's numeric ID"),
    },
    {
      key: "pageAccessToken",
      label: "Page access token",
      description: "A token of that Page with the instagram_manage_messages permission.",
      secret: true,
    },
    META_APP_SECRET,
    META_VERIFY_TOKEN,
  ],
};

/** WhatsApp, Messenger and Instagram: Meta checks the callback URL with the verify token. */
export function isMeta(type: ChannelType): boolean {
  return type === "whatsapp" || type === "messenger" || type === "instagram";
}

/** A random verify token (URL-safe, 32 characters) for a Meta webhook. */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export function channelKindLabel(kind: ChannelKind | null): string {
  return kind ? CHANNEL_TYPE_LABELS[kind] : "Deleted channel";
}

/** Black or white text on a background colour (#rrggbb), whichever reads better (WCAG contrast). */
export function textOn(hex: string): "#000000" | "#ffffff" {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex.trim());
  if (!m) return "#ffffff";
  const lin = (c: string) => {
    const v = Number.parseInt(c, 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * lin(m[1]!) + 0.7152 * lin(m[2]!) + 0.0722 * lin(m[3]!);
  // Contrast against white (1.05 / (l + 0.05)) against black ((l + 0.05) / 0.05): take the larger.
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? "#ffffff" : "#000000";
}

/** The website chat's settings as the app edits them (a channel's `config` is free-form on the server). */
export interface WebChannelConfig {
  allowedOrigins: string[];
  title: string;
  greeting: string;
  color: string;
  position: "right" | "left";
  collectEmail: boolean;
  showAgentName: boolean;
}

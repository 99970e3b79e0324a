// Names of the channel types as people read them (the API's type ids are for machines).
import type { ChannelKind, ChannelType } from "./types.ts";

export const CHANNEL_TYPE_LABELS: Record<ChannelKind, string> = {
  custom: "Custom channel",
  web: "Website chat",
  whatsapp: "WhatsApp",
  telegram: "Telegram",
  twilio_sms: "SMS (Twilio)",
  messenger: "Messenger",
  instagram: "Instagram",
};

/** What the Add channel dialog offers: only `web` can be created in this version; the rest are shown as coming soon. */
export const CHANNEL_CHOICES: { type: ChannelType; description: string; available: boolean }[] = [
  {
    type: "web",
    description: "A chat button on your website: paste one script tag, visitors chat with your bot and team.",
    available: true,
  },
  { type: "whatsapp", description: "WhatsApp Business (Cloud API).", available: false },
  { type: "telegram", description: "A Telegram bot.", available: false },
  { type: "twilio_sms", description: "Text messages through Twilio.", available: false },
  { type: "messenger", description: "Facebook Messenger.", available: false },
  { type: "instagram", description: "Instagram direct messages.", available: false },
];

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

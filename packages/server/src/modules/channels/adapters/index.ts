// The built-in channel types Parley knows. A type missing here cannot be created (VALIDATION_ERROR);
// one with `available: false` is known but not built yet (CHANNEL_TYPE_NOT_AVAILABLE).
import type { ChannelType } from "../../../platform/db/schema.ts";
import { telegramAdapter } from "./telegram.ts";
import type { ChannelAdapter } from "./types.ts";
import { webAdapter } from "./web.ts";

export const CHANNEL_TYPES: readonly ChannelType[] = [
  "web",
  "whatsapp",
  "telegram",
  "twilio_sms",
  "messenger",
  "instagram",
];

const ADAPTERS: Partial<Record<ChannelType, ChannelAdapter>> = {
  web: webAdapter,
  telegram: telegramAdapter,
};

export function adapterOf(type: ChannelType): ChannelAdapter | undefined {
  return ADAPTERS[type];
}

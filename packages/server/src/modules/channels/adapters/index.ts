// The built-in channel types Parley knows. A type missing here cannot be created (VALIDATION_ERROR);
// one with `available: false` is known but not built yet (CHANNEL_TYPE_NOT_AVAILABLE).
import type { ChannelType } from "../../../platform/db/schema.ts";
import { instagramAdapter, messengerAdapter } from "./messenger.ts";
import { telegramAdapter } from "./telegram.ts";
import { twilioAdapter } from "./twilio.ts";
import type { ChannelAdapter } from "./types.ts";
import { webAdapter } from "./web.ts";
import { whatsappAdapter } from "./whatsapp.ts";

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
  twilio_sms: twilioAdapter,
  whatsapp: whatsappAdapter,
  messenger: messengerAdapter,
  instagram: instagramAdapter,
};

export function adapterOf(type: ChannelType): ChannelAdapter | undefined {
  return ADAPTERS[type];
}

// The built-in channel types Parley knows, each with its adapter (a type not listed in the schema is a
// VALIDATION_ERROR before it gets here).
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

const ADAPTERS: Record<ChannelType, ChannelAdapter> = {
  web: webAdapter,
  telegram: telegramAdapter,
  twilio_sms: twilioAdapter,
  whatsapp: whatsappAdapter,
  messenger: messengerAdapter,
  instagram: instagramAdapter,
};

export function adapterOf(type: ChannelType): ChannelAdapter | undefined {
  // undefined only for a row whose type this build does not know (written by a newer version).
  return ADAPTERS[type];
}

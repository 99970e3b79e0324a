// The `telegram` channel, part 1: its config is parsed (the bot token is a secret, so the generic
// encrypted-secrets path has a real type to carry), but it cannot be created until part 2 builds its
// provider side (400 CHANNEL_TYPE_NOT_AVAILABLE).
import { configObject, invalid } from "./fields.ts";
import type { ChannelAdapter } from "./types.ts";

export const telegramAdapter: ChannelAdapter = {
  type: "telegram",
  available: false,
  secretKeys: ["botToken"],
  parseConfig(input, previous) {
    const obj = configObject(input, ["botToken"]);
    const given = obj.botToken;
    if (given === undefined && previous?.secrets.botToken) {
      return { config: {}, secrets: { botToken: previous.secrets.botToken } };
    }
    // A token as BotFather gives it: "<bot id>:<35 characters>".
    if (typeof given !== "string" || !/^\d{3,20}:[A-Za-z0-9_-]{30,60}$/.test(given)) {
      throw invalid("config.botToken must be a Telegram bot token like 123456789:AA…");
    }
    return { config: {}, secrets: { botToken: given } };
  },
  async send() {
    return {
      ok: false,
      retryable: false,
      errorClass: "channel_unavailable",
      message: "telegram channels are not available yet",
    };
  },
};

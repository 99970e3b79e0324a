import { describe, expect, it } from "vitest";
import { channelIdOf, displayContactName } from "../src/lib/contact-name.ts";

describe("displayContactName", () => {
  it("uses the name when there is one, from either shape", () => {
    expect(displayContactName({ name: "Ana Ruiz", fromId: "web:vis_1", channelType: "web" })).toBe(
      "Ana Ruiz",
    );
    expect(displayContactName({ firstName: "Ana", lastName: null, phone: "+15551234567" })).toBe("Ana");
    expect(displayContactName({ firstName: " ", lastName: "Ruiz" })).toBe("Ruiz");
  });

  it("names a chat contact by its channel id and channel", () => {
    expect(displayContactName({ fromId: "web:vis_3f2a", channelType: "web" })).toBe(
      "Widget visitor · vis_3f2a",
    );
    // The prefix tells the channel when no conversation does.
    expect(displayContactName({ fromId: "web:vis_3f2a" })).toBe("Widget visitor · vis_3f2a");
    expect(displayContactName({ phone: "+15551234567", channelType: "whatsapp" })).toBe(
      "+15551234567 · WhatsApp",
    );
    expect(displayContactName({ fromId: "tg:42", channelType: "telegram" })).toBe("42 · Telegram");
    expect(displayContactName({ fromId: "ig:1789" })).toBe("1789 · Instagram");
    expect(displayContactName({ fromId: "maria-2001", channelType: "custom" })).toBe(
      "maria-2001 · Custom channel",
    );
  });

  it("falls back to the phone, the e-mail, then Unnamed contact", () => {
    expect(displayContactName({ phone: "+15551234567", channelType: null })).toBe("+15551234567");
    expect(displayContactName({ email: "a@example.com" })).toBe("a@example.com");
    expect(displayContactName({})).toBe("Unnamed contact");
  });
});

describe("channelIdOf", () => {
  it("strips a built-in channel's prefix and keeps a custom channel's id whole", () => {
    expect(channelIdOf("web:vis_1")).toEqual({ id: "vis_1", kind: "web" });
    expect(channelIdOf("fb:99")).toEqual({ id: "99", kind: "messenger" });
    expect(channelIdOf("shop:order-7")).toEqual({ id: "shop:order-7", kind: null });
    expect(channelIdOf(null)).toBeNull();
  });
});

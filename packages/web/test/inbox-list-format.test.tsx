import { describe, expect, it } from "vitest";
import { relativeTime } from "../src/lib/relative-time.ts";
import { previewAuthor } from "../src/pages/inbox/ConversationList.tsx";

describe("the list's relative time", () => {
  const now = new Date(2026, 10, 26, 14, 30);
  const at = (...p: [number, number, number, number, number]) => new Date(...p).toISOString();

  it("says now, minutes, hours today, yesterday, then a date", () => {
    expect(relativeTime(new Date(2026, 10, 26, 14, 29, 40).toISOString(), now)).toBe("now");
    expect(relativeTime(at(2026, 10, 26, 14, 28), now)).toBe("2 m");
    expect(relativeTime(at(2026, 10, 26, 11, 10), now)).toBe("3 h");
    expect(relativeTime(at(2026, 10, 25, 23, 50), now)).toBe("yesterday");
    expect(relativeTime(at(2026, 10, 24, 9, 0), now)).toMatch(/24/);
    expect(relativeTime(at(2025, 10, 24, 9, 0), now)).toMatch(/2025/);
    // A clock a little ahead, and nothing.
    expect(relativeTime(at(2026, 10, 26, 14, 31), now)).toBe("now");
    expect(relativeTime(null, now)).toBe("");
  });
});

describe("who wrote the preview", () => {
  const out = { body: "hi", direction: "outbound" as const, createdAt: "", userId: null, senderName: null };
  it("names the bot, a teammate by first name, and you", () => {
    expect(previewAuthor({ ...out, sender: "bot" }, "us_me")).toBe("Bot");
    expect(previewAuthor({ ...out, sender: "human", userId: "us_sam", senderName: "Sam Lee" }, "us_me")).toBe(
      "Sam",
    );
    expect(
      previewAuthor({ ...out, sender: "human", userId: "us_x", senderName: "jo@shop.test" }, "us_me"),
    ).toBe("jo");
    expect(
      previewAuthor({ ...out, sender: "human", userId: "us_me", senderName: "Me Myself" }, "us_me"),
    ).toBe("You");
    expect(previewAuthor({ ...out, direction: "inbound", sender: "contact" }, "us_me")).toBeNull();
  });
});

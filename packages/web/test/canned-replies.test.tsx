import { describe, expect, it } from "vitest";
import { fillPlaceholders, matchCannedReplies, typedShortcut } from "../src/pages/inbox/canned.ts";

describe("canned reply placeholders", () => {
  const values = {
    firstName: "Ada",
    lastName: "Lovelace",
    name: "Ada Lovelace",
    phone: "+14155550100",
    email: "ada@example.com",
    agentName: "Sam",
  };

  it("fills every known placeholder, spaces inside the braces allowed", () => {
    expect(
      fillPlaceholders(
        "Hi {{firstName}} {{ lastName }} ({{name}}, {{phone}}, {{email}}), {{agentName}} here.",
        values,
      ),
    ).toBe("Hi Ada Lovelace (Ada Lovelace, +14155550100, ada@example.com), Sam here.");
  });

  it("leaves an unknown placeholder as written and makes a missing value empty", () => {
    expect(fillPlaceholders("Hi {{firstName}}, order {{orderId}} {{ surname }}", {})).toBe(
      "Hi , order {{orderId}} {{ surname }}",
    );
    expect(fillPlaceholders("{{firstName}}|{{email}}", { firstName: null, email: "  " })).toBe("|");
  });

  it("repeats a placeholder as often as it is written", () => {
    expect(fillPlaceholders("{{firstName}}, {{firstName}}!", values)).toBe("Ada, Ada!");
  });
});

describe("the typed /shortcut", () => {
  it("is read only at the very start of the box, up to the caret", () => {
    expect(typedShortcut("/", 1)).toBe("");
    expect(typedShortcut("/Hou", 4)).toBe("hou");
    expect(typedShortcut("/hours and more", 6)).toBe("hours");
    expect(typedShortcut("/hours and more", 10)).toBeNull();
    expect(typedShortcut("see /hours", 10)).toBeNull();
    expect(typedShortcut("hello", 5)).toBeNull();
  });

  it("matches shortcuts that start with it first, then those that contain it or whose title does", () => {
    const replies = [
      { shortcut: "refund", title: "Refund policy" },
      { shortcut: "hours", title: "Opening hours" },
      { shortcut: "holiday-hours", title: "Holidays" },
      { shortcut: "thanks", title: "Thank you" },
    ];
    expect(matchCannedReplies(replies, "hou").map((r) => r.shortcut)).toEqual(["hours", "holiday-hours"]);
    expect(matchCannedReplies(replies, "").map((r) => r.shortcut)).toEqual([
      "refund",
      "hours",
      "holiday-hours",
      "thanks",
    ]);
    expect(matchCannedReplies(replies, "policy").map((r) => r.shortcut)).toEqual(["refund"]);
  });
});

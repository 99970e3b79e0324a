// "Did you mean" (issue 34): what the bot says when it offers choices, and how the customer's next
// message is read as a pick ("2", "the second one", a button's label, or the choice's own words).
import type { Suggestion } from "../messaging/suggestions.ts";
import type { BuiltinChoice } from "./engine-builtin.ts";

/** The choices as every channel can show them: numbered text (buttons come on top where they exist). */
export function choicesMessage(choices: Pick<BuiltinChoice, "title">[]): string {
  const lines = choices.map((c, i) => `${i + 1}. ${c.title}`);
  return `Did you mean:\n${lines.join("\n")}\nReply with the number, or ask in other words.`;
}

export function suggestionsFrom(choices: BuiltinChoice[]): Suggestion[] {
  return choices.map((c, i) => ({ id: String(i + 1), title: c.title, entry: c.entryIndex }));
}

const ORDINALS: Record<string, number> = { first: 1, second: 2, third: 3, "1st": 1, "2nd": 2, "3rd": 3 };

/** Lower case, accents and punctuation off, one space: how a pick and a title are compared. */
function plain(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * The suggestion the customer picked, or null when the message is not a pick (then it is a new
 * question). A button sends its label, which a channel may have shortened ("Opening hours on we…").
 */
export function readPick(body: string, suggestions: Suggestion[]): Suggestion | null {
  const text = plain(body);
  if (!text) return null;
  // "2", "#2", "option 2", "number 2 please", "the second one", "2nd"
  const number = text.match(
    /^(?:(?:it s|its|it is|i mean|i meant)\s+)?(?:(?:number|option|no|nr|choice)\s+)?(?:the\s+)?([1-9]|first|second|third|1st|2nd|3rd)(?:\s+one)?(?:\s+(?:please|pls|thanks|thank you|thx))?$/,
  );
  if (number) {
    const n = ORDINALS[number[1]!] ?? Number(number[1]);
    return suggestions.find((s) => s.id === String(n)) ?? null;
  }
  // The label, whole or as a channel cut it (at least 4 letters).
  const cut = plain(body.replace(/…\s*$/, ""));
  for (const s of suggestions) {
    const title = plain(s.title);
    if (title === text) return s;
    if (body.trim().endsWith("…") && cut.length >= 4 && title.startsWith(cut)) return s;
    // "1. Opening hours" (the numbered line copied back)
    if (text === `${s.id} ${title}`) return s;
  }
  return null;
}

// "Did you mean" choices on a bot message (issue 34): what the bot offers when it is unsure between a
// few knowledge entries. Stored as JSON on the message (messages.suggestions); every channel shows them
// its own way (numbered text everywhere, buttons where the channel has them) and the customer's next
// message may pick one.

import { cutText, oneLine } from "../../platform/text.ts";

export interface Suggestion {
  /** "1", "2", "3": what the customer may answer, and the button's id. */
  id: string;
  /** The entry's question (or a source passage's heading): the button's label. */
  title: string;
  /** The knowledge entry it stands for, in the campaign's knowledge as indexed when offered. */
  entry: number;
}

/** The stored choices, leniently: anything damaged reads as no choices. */
export function suggestionsOf(json: string | null | undefined): Suggestion[] {
  if (!json) return [];
  try {
    const parsed: unknown = JSON.parse(json);
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((s) =>
      s && typeof s.id === "string" && typeof s.title === "string" && Number.isInteger(s.entry)
        ? [{ id: s.id, title: s.title, entry: s.entry as number }]
        : [],
    );
  } catch {
    return [];
  }
}

/** A button label on one line, cut to a channel's limit (WhatsApp buttons 20, list rows 24, Messenger 20). */
export function shortTitle(title: string, max: number): string {
  return cutText(oneLine(title), max);
}

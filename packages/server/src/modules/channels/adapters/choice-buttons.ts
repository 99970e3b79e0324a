// A bot's "Did you mean" choices (messages.suggestions) as a provider's buttons: what each button says
// within the provider's limit, and how a press that comes back is read. The message's body lists the
// choices as numbered text on every channel; the buttons come on top where the provider has them.
import { oneLine } from "../../../platform/text.ts";
import { type Suggestion, shortTitle } from "../../messaging/suggestions.ts";

/** The common leading words of all the titles ("What are your opening hours" for two such questions). */
function commonLead(titles: string[]): number {
  const words = titles.map((t) => t.split(" "));
  let n = 0;
  while (words.every((w) => n < w.length - 1 && w[n]!.toLowerCase() === words[0]![n]!.toLowerCase())) n++;
  return n;
}

const distinct = (labels: string[]) => new Set(labels.map((l) => l.toLowerCase())).size === labels.length;

/**
 * One label per choice, at most `max` characters, all different: the title cut with "…" when it is
 * too long (shortTitle). When cutting makes two labels the same (two questions that start alike:
 * "What are your openi…" twice), the words all the titles start with are left out ("On weekdays?",
 * "At weekends?"), and as a last resort the labels are numbered as the body's list is ("2. What are…").
 * WhatsApp refuses a message whose button titles are not unique; elsewhere two equal buttons would
 * still leave the customer guessing.
 */
export function buttonLabels(suggestions: Pick<Suggestion, "id" | "title">[], max: number): string[] {
  const titles = suggestions.map((s) => oneLine(s.title));
  const plain = titles.map((t) => shortTitle(t, max));
  if (distinct(plain)) return plain;
  const lead = titles.length > 1 ? commonLead(titles) : 0;
  if (lead > 0) {
    const rest = titles.map((t) => {
      const tail = t.split(" ").slice(lead).join(" ");
      return shortTitle(tail.charAt(0).toUpperCase() + tail.slice(1), max);
    });
    if (distinct(rest)) return rest;
  }
  return suggestions.map((s, i) => shortTitle(`${s.id}. ${titles[i]}`, max));
}

/** A choice's id as Parley gives it to a button ("1" to "9"). */
const CHOICE_ID = /^[1-9]$/;

/**
 * What a button press is stored as: the choice's number, which readPick (bot/choices.ts) reads exactly,
 * whereas the label may be cut or shortened. A press on a button Parley did not make (another tool on
 * the same account) keeps the words the customer saw.
 */
export function pressedBody(id: string | null, label: string | null): string {
  const trimmed = id?.trim() ?? "";
  return CHOICE_ID.test(trimmed) ? trimmed : (label ?? "");
}

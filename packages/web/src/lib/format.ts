import type { ContactJson, Conversation } from "./api-types.ts";
import { displayContactName } from "./contact-name.ts";

const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const dayTime = new Intl.DateTimeFormat(undefined, {
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
});

/** A time for lists and threads: today's as "14:05", older ones with their day. */
export function shortTime(isoString: string | null | undefined): string {
  if (!isoString) return "";
  const d = new Date(isoString);
  if (Number.isNaN(d.getTime())) return "";
  const today = new Date();
  return d.toDateString() === today.toDateString() ? time.format(d) : dayTime.format(d);
}

export function fullTime(isoString: string | null | undefined): string {
  if (!isoString) return "";
  const d = new Date(isoString);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleString();
}

/** Credits as people read them: up to 2 decimals, grouped. */
export const credits = (n: number) =>
  n.toLocaleString(undefined, { minimumFractionDigits: 0, maximumFractionDigits: 2 });

/** How the inbox names a conversation's contact. */
export function contactLabel(c: Conversation["contact"]): string {
  return c.name ?? c.fromId ?? c.phone ?? c.email ?? "Unknown contact";
}

/** How the contact pages name a contact (the same rule as everywhere: lib/contact-name.ts). */
export const contactName = (c: Pick<ContactJson, "firstName" | "lastName" | "phone" | "email">): string =>
  displayContactName(c);

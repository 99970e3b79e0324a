// Small text rules shared by several modules.

// Pragmatic e-mail check (as HTML's input[type=email]): one @, a dotted domain, no spaces.
const EMAIL =
  /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isValidEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email);
}

/** The text on one line: every run of white space (newlines too) one space, none at the ends. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The text cut to `max` characters with "…" (never between the two halves of a surrogate pair). */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

// Canned replies in the reply box: the "/shortcut" being typed, the replies it matches, and the
// placeholders filled when one is inserted. Pure, so the unit tests cover them without a browser.

/** What a canned reply's placeholders are filled with; a missing value becomes empty. */
export interface PlaceholderValues {
  firstName?: string | null;
  lastName?: string | null;
  name?: string | null;
  phone?: string | null;
  email?: string | null;
  agentName?: string | null;
}

const KNOWN = new Set<string>(["firstName", "lastName", "name", "phone", "email", "agentName"]);

/**
 * `{{firstName}}`, `{{lastName}}`, `{{name}}`, `{{phone}}`, `{{email}}` and `{{agentName}}` (spaces
 * inside the braces allowed) become their values, or nothing when the value is missing. Any other
 * `{{…}}` is left as written, so a typo shows instead of silently vanishing.
 */
export function fillPlaceholders(text: string, values: PlaceholderValues): string {
  return text.replace(/\{\{\s*([A-Za-z]+)\s*\}\}/g, (whole, key: string) =>
    KNOWN.has(key) ? (values[key as keyof PlaceholderValues]?.trim() ?? "") : whole,
  );
}

/** The "/…" typed at the very start of the box, up to the caret: what the canned replies are filtered by. */
export function typedShortcut(text: string, caret: number): string | null {
  const m = /^\/([A-Za-z0-9_-]*)$/.exec(text.slice(0, caret));
  return m ? (m[1] as string).toLowerCase() : null;
}

/** Replies whose shortcut starts with the query first, then those whose shortcut or title contains it. */
export function matchCannedReplies<R extends { shortcut: string; title: string }>(
  replies: readonly R[],
  query: string,
): R[] {
  const q = query.toLowerCase();
  const starts = replies.filter((r) => r.shortcut.startsWith(q));
  const contains = replies.filter(
    (r) => !r.shortcut.startsWith(q) && (r.shortcut.includes(q) || r.title.toLowerCase().includes(q)),
  );
  return [...starts, ...contains];
}

// A time as a list reads it, short enough for a narrow row: "now", "2 m", "3 h", "yesterday", then a
// date ("24 Nov", with the year when it is not this year's). Intl only, no library.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const dayMonth = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" });
const dayMonthYear = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric" });

function startOfDay(d: Date): number {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** `now` is a parameter so that a test (or a ticking clock) can pass its own. */
export function relativeTime(isoString: string | null | undefined, now: Date = new Date()): string {
  if (!isoString) return "";
  const d = new Date(isoString);
  if (Number.isNaN(d.getTime())) return "";
  const ago = now.getTime() - d.getTime();
  // A clock a little ahead of the server's still says "now".
  if (ago < MINUTE) return "now";
  if (ago < HOUR) return `${Math.floor(ago / MINUTE)} m`;
  const today = startOfDay(now);
  if (d.getTime() >= today) return `${Math.floor(ago / HOUR)} h`;
  const yesterday = startOfDay(new Date(today - 1));
  if (d.getTime() >= yesterday) return "yesterday";
  return d.getFullYear() === now.getFullYear() ? dayMonth.format(d) : dayMonthYear.format(d);
}

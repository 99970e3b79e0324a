// "@Name" and "@e-mail" mentions of teammates in a private note, read the way the server reads them
// (conversations/notes.ts): "@" at the start or after a non-word character, then a name or e-mail
// address in any case, then the end or a non-word character; the longest match wins.

export interface Mentionable {
  id: string;
  name: string | null;
  email: string | null;
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** What a teammate is called in a note: their name as in the team list, else their e-mail address. */
export function mentionLabel(p: Mentionable): string {
  return p.name?.trim() || p.email || "";
}

function labelsOf(people: readonly Mentionable[]): string[] {
  return people
    .flatMap((p) => [p.name?.trim() ?? "", p.email ?? ""])
    .filter((l) => l.length > 0)
    .sort((a, b) => b.length - a.length);
}

export type Segment = { text: string; mention: boolean };

/** The text cut into plain parts and the mentions of these people ("@Sam Lee"), in order. */
export function splitMentions(text: string, people: readonly Mentionable[]): Segment[] {
  const labels = labelsOf(people);
  const out: Segment[] = [];
  let plainFrom = 0;
  let at = labels.length > 0 ? text.indexOf("@") : -1;
  while (at >= 0) {
    const before = text[at - 1];
    const boundary = before === undefined || !(WORD_CHAR.test(before) || before === "." || before === "@");
    const rest = text.slice(at + 1);
    const label = boundary
      ? labels.find((l) => {
          if (rest.slice(0, l.length).toLowerCase() !== l.toLowerCase()) return false;
          const after = rest[l.length];
          return after === undefined || !WORD_CHAR.test(after);
        })
      : undefined;
    if (label) {
      if (at > plainFrom) out.push({ text: text.slice(plainFrom, at), mention: false });
      out.push({ text: text.slice(at, at + 1 + label.length), mention: true });
      plainFrom = at + 1 + label.length;
      at = text.indexOf("@", plainFrom);
    } else {
      at = text.indexOf("@", at + 1);
    }
  }
  if (plainFrom < text.length) out.push({ text: text.slice(plainFrom), mention: false });
  return out;
}

/**
 * The mention being typed just before the caret: "@" at the start or after a space or punctuation,
 * then up to 40 characters without a line break or another "@" ("Sam L" of "hi @Sam L|").
 */
export function typedMention(text: string, caret: number): { start: number; query: string } | null {
  const head = text.slice(0, caret);
  const m = /(^|[^\p{L}\p{N}_.@])@([^@\n]{0,40})$/u.exec(head);
  if (!m) return null;
  const query = m[2] ?? "";
  return { start: head.length - query.length - 1, query };
}

/** Teammates whose name, a word of their name, or e-mail starts with what was typed (any case). */
export function matchTeammates<T extends Mentionable>(team: readonly T[], query: string): T[] {
  const q = query.toLowerCase();
  return team.filter((p) => {
    const name = p.name?.trim().toLowerCase() ?? "";
    return (
      name.startsWith(q) ||
      name.split(/\s+/).some((word) => word.length > 0 && word.startsWith(q)) ||
      (p.email?.toLowerCase().startsWith(q) ?? false)
    );
  });
}

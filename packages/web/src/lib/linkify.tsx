// Links in message text: only http(s) and mailto addresses written out become links (nothing else
// can turn into a javascript: or data: link); they open in a new tab without the opener.
import type { ReactNode } from "react";

const LINK = /\b(?:https?:\/\/|mailto:)[^\s<>"]+/gi;
/** Sentence punctuation after a URL ("see https://x.test/a.") is not part of it. */
const TRAILING = /[.,;:!?)\]}'"]+$/;

export function linkify(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    const url = match[0].replace(TRAILING, "");
    const start = match.index ?? 0;
    if (start > last) out.push(text.slice(last, start));
    out.push(
      <a key={start} href={url} target="_blank" rel="noopener noreferrer">
        {url}
      </a>,
    );
    last = start + url.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

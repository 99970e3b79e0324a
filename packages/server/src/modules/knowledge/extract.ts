// A knowledge source's bytes to passages: the format is checked (by magic bytes where it has them),
// the text taken out (PDF with unpdf, DOCX with mammoth, HTML with Readability over linkedom,
// Markdown and plain text as they are), then split on headings and paragraphs into passages of a few
// sentences. A file that cannot be read is a SourceProblem with a reason for people, never a crash.
import { fileTypeFromBuffer } from "file-type";
import type { PassageInput } from "./repo.ts";

// The readers are loaded on first use: together they take more than half a second to import, which
// every start of the server and of the CLI would otherwise pay.
const readers = {
  pdf: () => import("unpdf"),
  docx: async () => (await import("mammoth")).default,
  html: async () => ({
    parseHTML: (await import("linkedom")).parseHTML,
    Readability: (await import("@mozilla/readability")).Readability,
  }),
};

/** A problem with the source itself (shown on it as its error), not with the server. */
export class SourceProblem extends Error {}

export const FILE_TYPES = {
  "application/pdf": "PDF",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "DOCX",
  "text/markdown": "Markdown",
  "text/html": "HTML",
  "text/plain": "plain text",
} as const;

export type FileContentType = keyof typeof FILE_TYPES;

/** A passage aims at this many characters (a few sentences) and never goes over the maximum. */
export const PASSAGE_TARGET_CHARS = 600;
export const PASSAGE_MAX_CHARS = 1200;
/** A source keeps at most this many passages (a 20 MB text would make far more). */
export const MAX_PASSAGES_PER_SOURCE = 5000;
const HEADING_MAX_CHARS = 200;

export interface Block {
  kind: "heading" | "text";
  text: string;
}

/** The content type without parameters, lower case ("text/html; charset=utf-8" → "text/html"). */
export function baseType(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * Checks the bytes against the declared type: a PDF must start as one, a DOCX must be a zip with a
 * Word document in it, and the text types must be UTF-8 text (not a binary file with a text name).
 * Throws SourceProblem with the reason.
 */
export async function checkFileType(bytes: Buffer, contentType: FileContentType): Promise<void> {
  const found = await fileTypeFromBuffer(bytes);
  const label = FILE_TYPES[contentType];
  if (contentType === "application/pdf") {
    if (found?.mime !== "application/pdf") throw new SourceProblem(`not a PDF${foundLabel(found?.mime)}`);
    return;
  }
  if (contentType === "application/vnd.openxmlformats-officedocument.wordprocessingml.document") {
    if (found?.mime !== contentType) throw new SourceProblem(`not a DOCX file${foundLabel(found?.mime)}`);
    return;
  }
  if (found || !isText(bytes)) throw new SourceProblem(`not ${label}${foundLabel(found?.mime)}`);
}

function foundLabel(mime: string | undefined): string {
  return mime ? ` (the file is ${mime})` : "";
}

/** UTF-8 without NUL bytes: text. */
function isText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The blocks (headings and paragraphs) of a file of this type. */
export async function fileBlocks(bytes: Buffer, contentType: FileContentType): Promise<Block[]> {
  switch (contentType) {
    case "application/pdf":
      return pdfBlocks(bytes);
    case "application/vnd.openxmlformats-officedocument.wordprocessingml.document":
      return docxBlocks(bytes);
    case "text/html":
      return htmlBlocks(bytes.toString("utf8"));
    case "text/markdown":
      return markdownBlocks(bytes.toString("utf8"));
    default:
      return plainBlocks(bytes.toString("utf8"));
  }
}

async function pdfBlocks(bytes: Buffer): Promise<Block[]> {
  let pages: string[];
  const { extractText } = await readers.pdf();
  try {
    ({ text: pages } = await extractText(new Uint8Array(bytes), { mergePages: false }));
  } catch (err) {
    const message = err instanceof Error ? err.message : "";
    if (/password/i.test(message)) throw new SourceProblem("the PDF is protected by a password");
    throw new SourceProblem("the PDF could not be read (damaged or not a PDF)");
  }
  return pages.flatMap((page) => plainBlocks(page));
}

async function docxBlocks(bytes: Buffer): Promise<Block[]> {
  let html: string;
  const mammoth = await readers.docx();
  try {
    ({ value: html } = await mammoth.convertToHtml({ buffer: bytes }));
  } catch {
    throw new SourceProblem("the DOCX file could not be read (damaged or not a Word document)");
  }
  const { parseHTML } = await readers.html();
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  return elementBlocks(document.body);
}

/** A web page's main text (Readability), or its whole body when Readability finds no article. */
export async function htmlBlocks(html: string): Promise<Block[]> {
  const { parseHTML, Readability } = await readers.html();
  const { document } = parseHTML(html);
  // Menus and code are never what the bot should say.
  for (const el of document.querySelectorAll(NEVER_TEXT)) el.remove();
  let blocks: Block[] = [];
  try {
    // biome-ignore lint/suspicious/noExplicitAny: linkedom's Document is close enough for Readability
    const article = new Readability(document as any).parse();
    if (article?.content) {
      const { document: content } = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`);
      blocks = elementBlocks(content.body);
    }
  } catch {
    blocks = [];
  }
  if (blocks.some((b) => b.kind === "text")) return blocks;
  const { document: whole } = parseHTML(html);
  for (const el of whole.querySelectorAll(`${NEVER_TEXT}, header, footer`)) el.remove();
  return whole.body ? elementBlocks(whole.body) : [];
}

const NEVER_TEXT = "script, style, noscript, template, svg, nav";

const BLOCK_SELECTOR = "h1, h2, h3, h4, h5, h6, p, li, pre, blockquote, td, th, dt, dd, figcaption";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's element types
function elementBlocks(root: any): Block[] {
  const blocks: Block[] = [];
  const elements = [...root.querySelectorAll(BLOCK_SELECTOR)];
  for (const el of elements) {
    // The outermost block only: a <li> holding a <p> is one block.
    if (el.parentElement?.closest(BLOCK_SELECTOR)) continue;
    const text = clean(String(el.textContent ?? ""));
    if (!text) continue;
    blocks.push({ kind: /^H[1-6]$/i.test(el.tagName) ? "heading" : "text", text });
  }
  // A body with text outside any block element (a bare <div>…</div>) is read as plain text.
  if (blocks.length === 0) return plainBlocks(String(root.textContent ?? ""));
  return blocks;
}

function clean(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Markdown: ATX and setext headings, paragraphs between blank lines, the markup dropped. */
export function markdownBlocks(md: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let fenced = false;
  const flush = () => {
    const text = clean(paragraph.map(inlineMarkdown).join(" "));
    if (text) blocks.push({ kind: "text", text });
    paragraph = [];
  };
  const lines = md.replace(/\r\n?/g, "\n").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      paragraph.push(line);
      continue;
    }
    const atx = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (atx) {
      flush();
      const text = clean(inlineMarkdown(atx[1]!));
      if (text) blocks.push({ kind: "heading", text });
      continue;
    }
    const next = lines[i + 1];
    if (line.trim() && paragraph.length === 0 && next !== undefined && /^\s{0,3}(=+|-+)\s*$/.test(next)) {
      blocks.push({ kind: "heading", text: clean(inlineMarkdown(line)) });
      i++;
      continue;
    }
    if (!line.trim() || /^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      continue;
    }
    // A list item starts a paragraph of its own.
    if (/^\s*(?:[-*+]|\d+[.)])\s+/.test(line)) flush();
    paragraph.push(line.replace(/^\s*(?:[-*+]|\d+[.)]|>)\s*/, ""));
  }
  flush();
  return blocks;
}

function inlineMarkdown(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, " ")
    .replace(/(\*\*|__|\*|_|`|~~)(?=\S)(.+?)(?<=\S)\1/g, "$2")
    .replace(/^\s*\|/, "")
    .replace(/\|/g, " ");
}

/** Plain text: paragraphs between blank lines (a text without any keeps its lines as paragraphs). */
export function plainBlocks(text: string): Block[] {
  const normalised = text.replace(/\r\n?/g, "\n");
  const parts = /\n\s*\n/.test(normalised) ? normalised.split(/\n\s*\n/) : normalised.split("\n");
  return parts.map(clean).flatMap((t) => (t ? [{ kind: "text" as const, text: t }] : []));
}

/**
 * Blocks to passages: the text under a heading is gathered into passages of about
 * PASSAGE_TARGET_CHARS (whole paragraphs where they fit, long ones cut between sentences, never over
 * PASSAGE_MAX_CHARS), each with the heading it is under.
 */
export function toPassages(blocks: Block[]): PassageInput[] {
  const out: PassageInput[] = [];
  let heading: string | null = null;
  let current = "";
  const push = () => {
    if (current && out.length < MAX_PASSAGES_PER_SOURCE) out.push({ heading, text: current });
    current = "";
  };
  for (const block of blocks) {
    if (block.kind === "heading") {
      push();
      heading = block.text.slice(0, HEADING_MAX_CHARS);
      continue;
    }
    for (const piece of pieces(block.text)) {
      if (current && current.length + 1 + piece.length > PASSAGE_TARGET_CHARS) push();
      current = current ? `${current} ${piece}` : piece;
    }
    // A paragraph ends a passage once it is long enough; short ones are gathered.
    if (current.length >= PASSAGE_TARGET_CHARS / 2) push();
  }
  push();
  return out;
}

/** A paragraph cut between sentences into pieces of at most PASSAGE_MAX_CHARS. */
function pieces(text: string): string[] {
  if (text.length <= PASSAGE_MAX_CHARS) return [text];
  const sentences = text.split(/(?<=[.!?])\s+/);
  const out: string[] = [];
  let current = "";
  for (const sentence of sentences) {
    for (let i = 0; i < sentence.length; i += PASSAGE_MAX_CHARS) {
      const part = sentence.slice(i, i + PASSAGE_MAX_CHARS);
      if (current && current.length + 1 + part.length > PASSAGE_TARGET_CHARS) {
        out.push(current);
        current = "";
      }
      current = current ? `${current} ${part}` : part;
    }
  }
  if (current) out.push(current);
  return out;
}

/** The passages of a file, or SourceProblem("no text found"). */
export async function filePassages(bytes: Buffer, contentType: FileContentType): Promise<PassageInput[]> {
  await checkFileType(bytes, contentType);
  const passages = toPassages(await fileBlocks(bytes, contentType));
  if (passages.length === 0) throw new SourceProblem(noTextReason(contentType));
  return passages;
}

function noTextReason(contentType: FileContentType): string {
  return contentType === "application/pdf"
    ? "no text found (a scanned PDF holds images of text, which cannot be read)"
    : "no text found";
}

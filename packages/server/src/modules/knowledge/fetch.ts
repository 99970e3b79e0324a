// Web pages and sitemaps for knowledge sources, through the outbound guard (platform/safe-fetch.ts:
// private and loopback addresses refused unless OUTBOUND_ALLOW_CIDRS allows them, every redirect hop
// checked), with a timeout and a size cap. Every failure is a SourceProblem with a reason for people.
import { OutboundError, type SafeFetcher } from "../../platform/safe-fetch.ts";
import {
  type Block,
  baseType,
  htmlBlocks,
  markdownBlocks,
  plainBlocks,
  SourceProblem,
  toPassages,
} from "./extract.ts";
import type { PassageInput } from "./repo.ts";

/** A page or a sitemap: at most this many bytes, read within this time. */
export const MAX_PAGE_BYTES = 5 * 1024 * 1024;
export const PAGE_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 5;
/** A sitemap index: at most this many of its sitemaps are read (one level). */
const MAX_CHILD_SITEMAPS = 10;

export interface Fetched {
  passages: PassageInput[];
  bytes: number;
  /** The page's title, when it has one (a url source is named after it). */
  title: string | null;
}

async function get(fetcher: SafeFetcher, url: string, what: string, timeoutMs = PAGE_TIMEOUT_MS) {
  if (timeoutMs <= 0) throw new SourceProblem(`${what} could not be fetched in time`);
  let res: Awaited<ReturnType<SafeFetcher["request"]>>;
  try {
    res = await fetcher.request({
      url,
      method: "GET",
      headers: { accept: "text/html, application/xhtml+xml, application/xml, text/plain;q=0.8, */*;q=0.5" },
      maxBodyBytes: MAX_PAGE_BYTES,
      followRedirects: MAX_REDIRECTS,
      totalTimeoutMs: timeoutMs,
    });
  } catch (err) {
    throw new SourceProblem(`${what} could not be fetched: ${outboundReason(err)}`);
  }
  if (res.status < 200 || res.status >= 300) throw new SourceProblem(`${what} answered ${res.status}`);
  return res;
}

function outboundReason(err: unknown): string {
  if (!(err instanceof OutboundError)) return "the connection failed";
  switch (err.errorClass) {
    case "blocked_address":
      return "its address is private or local, which this server is not allowed to contact";
    case "dns":
      return "the host name was not found";
    case "timeout":
      return `no complete answer within ${PAGE_TIMEOUT_MS / 1000} s`;
    case "too_large":
      return `it is larger than ${MAX_PAGE_BYTES / 1024 / 1024} MB`;
    case "invalid_url":
      return "the address is not a valid http(s) URL";
    case "redirect":
      return "too many redirects";
    case "tls":
      return "its TLS certificate was refused";
    case "connection_refused":
      return "the connection was refused";
    default:
      return "the connection failed";
  }
}

function header(res: { headers: Record<string, string | string[] | undefined> }, name: string): string {
  const v = res.headers[name];
  return Array.isArray(v) ? (v[0] ?? "") : (v ?? "");
}

/** One page's blocks, by its content type (HTML, Markdown or plain text). */
async function pageBlocks(body: Buffer, contentType: string): Promise<Block[]> {
  const type = baseType(contentType);
  const text = body.toString("utf8");
  if (type === "text/html" || type === "application/xhtml+xml" || (!type && /<html[\s>]/i.test(text))) {
    return htmlBlocks(text);
  }
  if (type === "text/markdown") return markdownBlocks(text);
  if (type === "text/plain") return plainBlocks(text);
  throw new SourceProblem(`the page is ${type || "of an unknown type"}, not HTML or text`);
}

function titleOf(body: Buffer): string | null {
  const m = /<title[^>]*>([^<]{1,300})<\/title>/i.exec(body.toString("utf8"));
  const title = m?.[1]?.replace(/\s+/g, " ").trim();
  return title ? decodeEntities(title) : null;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#0*39;|&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

/** A web page's passages. */
export async function fetchPage(
  fetcher: SafeFetcher,
  url: string,
  timeoutMs = PAGE_TIMEOUT_MS,
): Promise<Fetched> {
  const res = await get(fetcher, url, "the page", timeoutMs);
  const passages = toPassages(await pageBlocks(res.body, header(res, "content-type")));
  if (passages.length === 0) throw new SourceProblem("no text found on the page");
  return { passages, bytes: res.body.length, title: titleOf(res.body) };
}

/** The <loc> addresses of a sitemap (or of a sitemap index's sitemaps), in order, without repeats. */
export function sitemapLocs(xml: string): { index: boolean; locs: string[] } {
  const index = /<sitemapindex[\s>]/i.test(xml);
  const locs: string[] = [];
  for (const m of xml.matchAll(/<loc>\s*(?:<!\[CDATA\[)?\s*([^<\]]+?)\s*(?:\]\]>)?\s*<\/loc>/gi)) {
    const loc = decodeEntities(m[1]!);
    if (/^https?:\/\//i.test(loc) && !locs.includes(loc)) locs.push(loc);
  }
  return { index, locs };
}

/** Pages of a sitemap fetched at once. */
const SITEMAP_CONCURRENCY = 6;

/**
 * A sitemap's pages (up to maxPages; a sitemap index is followed one level), each page's passages one
 * after the other in the sitemap's order. Pages are fetched a few at a time within `budgetMs` (the job
 * must end within its lease): pages that fail, or are not reached in time, are skipped; the source
 * fails only when none gives text.
 */
export async function fetchSitemap(
  fetcher: SafeFetcher,
  url: string,
  maxPages: number,
  budgetMs: number,
): Promise<Fetched> {
  const deadline = Date.now() + budgetMs;
  const left = () => Math.min(PAGE_TIMEOUT_MS, deadline - Date.now());
  const root = await get(fetcher, url, "the sitemap", left());
  let bytes = root.body.length;
  const parsed = sitemapLocs(root.body.toString("utf8"));
  let pages: string[] = [];
  if (parsed.index) {
    for (const child of parsed.locs.slice(0, MAX_CHILD_SITEMAPS)) {
      if (pages.length >= maxPages || left() <= 0) break;
      try {
        const res = await get(fetcher, child, "a sitemap of the index", left());
        bytes += res.body.length;
        for (const loc of sitemapLocs(res.body.toString("utf8")).locs) {
          if (!pages.includes(loc)) pages.push(loc);
        }
      } catch (err) {
        if (!(err instanceof SourceProblem)) throw err;
      }
    }
  } else pages = parsed.locs;
  if (pages.length === 0) throw new SourceProblem("the sitemap lists no pages (no <url><loc> entries)");
  pages = pages.slice(0, maxPages);
  const results: Array<Fetched | null> = pages.map(() => null);
  let failed: string | null = null;
  let next = 0;
  const worker = async () => {
    while (next < pages.length) {
      const i = next++;
      const timeout = left();
      if (timeout <= 0) {
        failed ??= "not every page could be read in time";
        return;
      }
      try {
        results[i] = await fetchPage(fetcher, pages[i]!, timeout);
      } catch (err) {
        if (!(err instanceof SourceProblem)) throw err;
        failed ??= `${pages[i]}: ${err.message}`;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SITEMAP_CONCURRENCY, pages.length) }, worker));
  const passages: PassageInput[] = [];
  for (const r of results) {
    if (!r) continue;
    bytes += r.bytes;
    passages.push(...r.passages);
  }
  if (passages.length === 0) {
    throw new SourceProblem(`no text found on the sitemap's pages${failed ? ` (${failed})` : ""}`);
  }
  return { passages, bytes, title: null };
}

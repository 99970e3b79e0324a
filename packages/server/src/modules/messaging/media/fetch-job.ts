// The media.fetch job: downloads a URL attachment through the outbound guard, checks it against the
// declared type and stores it, or marks it rejected with the reason. Transient failures (timeouts,
// connection errors, 5xx, 429) are retried a few times before the attachment is rejected.
import type { AppContext } from "../../../context.ts";
import type { JobHandler } from "../../../platform/jobs.ts";
import { OutboundError } from "../../../platform/safe-fetch.ts";
import { findMessageById, markMediaRejected, markMediaStored } from "../repo.ts";
import { MAX_MEDIA_BYTES, sniff } from "./sniff.ts";
import { storeBlob } from "./store.ts";

/** Delays before the 2nd, 3rd and 4th download attempt; after the 4th, a transient failure rejects. */
export const MEDIA_RETRY_DELAYS_MS = [10_000, 60_000, 300_000];
export const MEDIA_FETCH_TIMEOUT_MS = 30_000;
export const MEDIA_MAX_REDIRECTS = 3;

const TRANSIENT_CLASSES = new Set(["timeout", "dns", "connection_refused", "connection_error"]);
const TRANSIENT_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

type Outcome =
  | { ok: true; bytes: Buffer; contentType: string }
  | { ok: false; transient: boolean; reason: string };

/** Downloads and checks the attachment; never throws for anything the remote side does. */
async function download(ctx: AppContext, url: string, declared: string): Promise<Outcome> {
  let res: Awaited<ReturnType<AppContext["fetcher"]["request"]>>;
  try {
    res = await ctx.fetcher.request({
      url,
      method: "GET",
      headers: { accept: declared || "*/*", "user-agent": "Parley-Media" },
      maxBodyBytes: MAX_MEDIA_BYTES,
      followRedirects: MEDIA_MAX_REDIRECTS,
      totalTimeoutMs: MEDIA_FETCH_TIMEOUT_MS,
    });
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    const reason =
      err.errorClass === "too_large"
        ? `download failed: the attachment is larger than ${MAX_MEDIA_BYTES / 1024 / 1024} MiB`
        : `download failed (${err.errorClass}): ${err.message}`;
    return { ok: false, transient: TRANSIENT_CLASSES.has(err.errorClass), reason };
  }
  if (res.status < 200 || res.status > 299) {
    return {
      ok: false,
      transient: TRANSIENT_STATUSES.has(res.status),
      reason: `download failed: the server answered HTTP ${res.status}`,
    };
  }
  const check = await sniff(res.body, declared);
  if (!check.ok) return { ok: false, transient: false, reason: `content type mismatch: ${check.reason}` };
  return { ok: true, bytes: res.body, contentType: check.contentType };
}

export function mediaFetchHandler(ctx: AppContext): JobHandler<{ messageId: string }> {
  return async (p, job) => {
    if (!job.accountId) return { dead: true, error: "media.fetch job without an account" };
    const db = ctx.db.kysely;
    const message = await findMessageById(db, job.accountId, p.messageId);
    // Already settled (a repeat run), or gone: nothing to do.
    if (message?.media_state !== "pending" || !message.media_url) return undefined;

    const outcome = await download(ctx, message.media_url, message.media_content_type ?? "");
    if (outcome.ok) {
      const blob = await storeBlob(ctx.storage, outcome.bytes);
      const stored = await markMediaStored(db, job.accountId, message.id, {
        contentType: outcome.contentType,
        size: blob.size,
        sha256: blob.sha256,
      });
      // An autocommit write: the open inboxes are told after it.
      if (stored) ctx.live.publish(job.accountId, { conversationId: message.conversation_id });
      return undefined;
    }
    const retryIn = MEDIA_RETRY_DELAYS_MS[job.attempt - 1];
    if (outcome.transient && retryIn !== undefined) {
      job.log.info({ messageId: message.id, reason: outcome.reason }, "attachment download will be retried");
      return { retryAt: Date.now() + retryIn, error: outcome.reason };
    }
    if (await markMediaRejected(db, job.accountId, message.id, outcome.reason)) {
      ctx.live.publish(job.accountId, { conversationId: message.conversation_id });
    }
    job.log.info({ messageId: message.id, reason: outcome.reason }, "attachment rejected");
    return undefined;
  };
}

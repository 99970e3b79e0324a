// Knowledge sources (issue 34): files, web pages and sitemaps a campaign's bot answers from. Adding
// or re-syncing one records it as "processing" and queues a knowledge.sync job in the same
// transaction; the job reads the source (outside any transaction), then replaces its passages and
// sets its status in one write, so a crash repeats the job and never leaves half the passages. A
// failed sync (a 404, not a PDF, no text) is the source's status "error" with the reason, and keeps
// the passages of the last good sync. Deleting a source deletes its passages in the same transaction.
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../platform/db/index.ts";
import type { KnowledgeSourceRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import {
  defineJob,
  enqueueJobs,
  type JobContext,
  type JobResult,
  queueNextRun,
} from "../../platform/jobs.ts";
import { DEFAULT_PAGE_SIZE, decodeCursor, toPage } from "../../platform/pagination.ts";
import { iso } from "../../platform/text.ts";
import { findCampaign } from "../campaigns/repo.ts";
import {
  checkFileType,
  type FileContentType,
  filePassages,
  MAX_PASSAGES_PER_SOURCE,
  SourceProblem,
} from "./extract.ts";
import { type Fetched, fetchPage, fetchSitemap } from "./fetch.ts";
import * as repo from "./repo.ts";
import { DEFAULT_MAX_PAGES, FILE_CONTENT_TYPES, MAX_FILE_BYTES, MAX_MAX_PAGES } from "./schemas.ts";

export const DAY_MS = 24 * 60 * 60 * 1000;
/** How often the daily re-sync looks for due sources, and how many it queues per run. */
export const RESYNC_CHECK_MS = 60 * 60 * 1000;
const RESYNC_BATCH = 500;

/** The prefix of every stored source file's key (the orphan sweep lists it). */
export const KNOWLEDGE_PREFIX = "knowledge/";

export function sourceFileKey(sourceId: string): string {
  return `${KNOWLEDGE_PREFIX}${sourceId}`;
}

/** The source id a key names, or null for a key that is not a source file's. */
export function sourceIdOfKey(key: string): string | null {
  const m = /^knowledge\/(ks_[0-9a-z]+)$/.exec(key);
  return m ? m[1]! : null;
}

export const syncJob = defineJob("knowledge.sync", Type.Object({ sourceId: Type.String({ minLength: 1 }) }), {
  subject: (p) => p.sourceId,
  maxAttempts: 5,
});

export const dailyResyncJob = defineJob("knowledge.daily-resync", Type.Object({}));

export function sourceView(r: KnowledgeSourceRow) {
  return {
    id: r.id,
    campaignId: r.campaign_id,
    type: r.type,
    name: r.name,
    url: r.url,
    contentType: r.content_type,
    status: r.status,
    error: r.error,
    passages: Number(r.passages),
    bytes: Number(r.bytes),
    dailyResync: Number(r.daily_resync) === 1,
    lastSyncedAt: r.last_synced_at === null ? null : iso(Number(r.last_synced_at)),
    createdAt: iso(Number(r.created_at)),
    updatedAt: iso(Number(r.updated_at)),
  };
}

export type SourceView = ReturnType<typeof sourceView>;

export interface NewSource {
  type: "file" | "url" | "sitemap";
  name?: string;
  contentType?: string;
  data?: string;
  url?: string;
  maxPages?: number;
  dailyResync?: boolean;
}

function notFound(sourceId: string): AppError {
  return new AppError("SOURCE_NOT_FOUND", `knowledge source ${sourceId} not found`);
}

async function requireCampaignOf(db: Db, accountId: string, campaignId: string): Promise<void> {
  if (!(await findCampaign(db.kysely, accountId, campaignId))) {
    throw new AppError("CAMPAIGN_NOT_FOUND", `campaign ${campaignId} not found`);
  }
}

/** An http(s) address without credentials, as given (trimmed). */
function parseUrl(raw: string | undefined, field = "url"): string {
  const text = raw?.trim() ?? "";
  if (!text) throw new AppError("VALIDATION_ERROR", `${field} is required`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AppError("VALIDATION_ERROR", `${field} must be an http or https address`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AppError("VALIDATION_ERROR", `${field} must be an http or https address`);
  }
  if (url.username || url.password) {
    throw new AppError("VALIDATION_ERROR", `${field} must not hold a user name or password`);
  }
  return url.toString();
}

/** The file's bytes from base64: 413 over 20 MB, 400 when it is not base64. */
function decodeFile(data: string | undefined): Buffer {
  if (!data) throw new AppError("VALIDATION_ERROR", "data (the file, base64) is required");
  const compact = data.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) {
    throw new AppError("VALIDATION_ERROR", "data must be the file in base64");
  }
  if (Math.floor((compact.length * 3) / 4) > MAX_FILE_BYTES + 2) throw tooLarge();
  const bytes = Buffer.from(compact, "base64");
  if (bytes.length > MAX_FILE_BYTES) throw tooLarge();
  if (bytes.length === 0) throw new AppError("VALIDATION_ERROR", "the file is empty");
  return bytes;
}

function tooLarge(): AppError {
  return new AppError("PAYLOAD_TOO_LARGE", `the file is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB`);
}

/** Records the source and queues its first sync: the answer's status is "processing". */
export async function createSource(
  ctx: AppContext,
  accountId: string,
  campaignId: string,
  input: NewSource,
): Promise<KnowledgeSourceRow> {
  await requireCampaignOf(ctx.db, accountId, campaignId);
  const id = newId("knowledgeSource");
  const now = Date.now();
  const row: KnowledgeSourceRow = {
    id,
    account_id: accountId,
    campaign_id: campaignId,
    type: input.type,
    name: "",
    url: null,
    content_type: null,
    max_pages: null,
    file_key: null,
    status: "processing",
    error: null,
    passages: 0,
    bytes: 0,
    daily_resync: 0,
    next_sync_at: null,
    last_synced_at: null,
    created_at: now,
    updated_at: now,
  };
  if (input.type === "file") {
    const name = input.name?.trim();
    if (!name) throw new AppError("VALIDATION_ERROR", "name (the file's name) is required");
    const contentType = input.contentType;
    if (!contentType || !(FILE_CONTENT_TYPES as readonly string[]).includes(contentType)) {
      throw new AppError(
        "VALIDATION_ERROR",
        "contentType must be application/pdf, application/vnd.openxmlformats-officedocument." +
          "wordprocessingml.document, text/markdown, text/html or text/plain",
      );
    }
    if (input.dailyResync) {
      throw new AppError("VALIDATION_ERROR", "dailyResync is for url and sitemap sources, not files");
    }
    const bytes = decodeFile(input.data);
    // The type is checked now, so a wrong file is refused at once rather than failing in the job.
    try {
      await checkFileType(bytes, contentType as FileContentType);
    } catch (err) {
      if (err instanceof SourceProblem) {
        throw new AppError("UNSUPPORTED_MEDIA_TYPE", `${name}: ${err.message}`);
      }
      throw err;
    }
    row.name = name;
    row.content_type = contentType;
    row.bytes = bytes.length;
    row.file_key = sourceFileKey(id);
    // Stored before the row commits: a crash in between leaves an orphan the sweep removes.
    await ctx.storage.put(row.file_key, bytes, contentType);
  } else {
    row.url = parseUrl(input.url);
    row.name = row.url;
    if (input.type === "sitemap") {
      const maxPages = input.maxPages ?? DEFAULT_MAX_PAGES;
      if (!Number.isInteger(maxPages) || maxPages < 1 || maxPages > MAX_MAX_PAGES) {
        throw new AppError("VALIDATION_ERROR", `maxPages must be 1 to ${MAX_MAX_PAGES}`);
      }
      row.max_pages = maxPages;
    } else if (input.maxPages !== undefined) {
      throw new AppError("VALIDATION_ERROR", "maxPages is for sitemap sources");
    }
    row.daily_resync = input.dailyResync ? 1 : 0;
  }
  await ctx.db.write(async (trx) => {
    await repo.insertSource(trx, row);
    await enqueueJobs(trx, [syncJob.create({ sourceId: id }, { accountId })]);
  });
  return row;
}

export async function requireSource(
  db: Db,
  accountId: string,
  campaignId: string,
  sourceId: string,
): Promise<KnowledgeSourceRow> {
  await requireCampaignOf(db, accountId, campaignId);
  const row = await repo.findSource(db.kysely, accountId, campaignId, sourceId);
  if (!row) throw notFound(sourceId);
  return row;
}

export async function pageSources(
  db: Db,
  accountId: string,
  campaignId: string,
  query: { limit?: number; cursor?: string },
) {
  await requireCampaignOf(db, accountId, campaignId);
  const before = decodeCursor(query.cursor);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await repo.pageSources(db.kysely, accountId, campaignId, before, limit + 1);
  return toPage(rows, limit, (r) => r.id, sourceView);
}

/** Turns the daily re-sync on or off (url and sitemap sources). */
export async function updateSource(
  db: Db,
  accountId: string,
  campaignId: string,
  sourceId: string,
  input: { dailyResync: boolean },
): Promise<KnowledgeSourceRow> {
  await requireCampaignOf(db, accountId, campaignId);
  return db.write(async (trx) => {
    const current = await repo.findSource(trx, accountId, campaignId, sourceId);
    if (!current) throw notFound(sourceId);
    if (current.type === "file" && input.dailyResync) {
      throw new AppError("VALIDATION_ERROR", "dailyResync is for url and sitemap sources, not files");
    }
    const now = Date.now();
    const changes = {
      daily_resync: input.dailyResync ? 1 : 0,
      next_sync_at: input.dailyResync ? Number(current.last_synced_at ?? now) + DAY_MS : null,
      updated_at: now,
    };
    await repo.updateSource(trx, accountId, sourceId, changes);
    return { ...current, ...changes };
  });
}

/** Reads the source again (the stored file, or the page / sitemap fetched again). */
export async function resyncSource(
  db: Db,
  accountId: string,
  campaignId: string,
  sourceId: string,
): Promise<KnowledgeSourceRow> {
  await requireCampaignOf(db, accountId, campaignId);
  return db.write(async (trx) => {
    const current = await repo.findSource(trx, accountId, campaignId, sourceId);
    if (!current) throw notFound(sourceId);
    const changes = { status: "processing" as const, error: null, updated_at: Date.now() };
    await repo.updateSource(trx, accountId, sourceId, changes);
    await enqueueJobs(trx, [syncJob.create({ sourceId }, { accountId })]);
    return { ...current, ...changes };
  });
}

/** Deletes the source and its passages at once (the bot stops using them), then its stored file. */
export async function deleteSource(
  ctx: AppContext,
  accountId: string,
  campaignId: string,
  sourceId: string,
): Promise<void> {
  await requireCampaignOf(ctx.db, accountId, campaignId);
  const fileKey = await ctx.db.write(async (trx) => {
    const current = await repo.findSource(trx, accountId, campaignId, sourceId);
    if (!current) throw notFound(sourceId);
    await repo.deleteSource(trx, accountId, sourceId);
    return current.file_key;
  });
  // A file that stays (a failed delete) is removed by the orphan sweep.
  if (fileKey) await ctx.storage.delete(fileKey).catch(() => undefined);
}

/** The source's passages, read now: a SourceProblem when the source itself is the problem. */
async function readSource(ctx: AppContext, source: KnowledgeSourceRow): Promise<Fetched> {
  if (source.type === "file") {
    const bytes = source.file_key ? await ctx.storage.getBytes(source.file_key) : null;
    if (!bytes) throw new SourceProblem("the uploaded file is missing from the file storage");
    try {
      return {
        passages: await filePassages(bytes, source.content_type as FileContentType),
        bytes: bytes.length,
        title: null,
      };
    } catch (err) {
      if (err instanceof SourceProblem) throw err;
      throw new SourceProblem("the file could not be read");
    }
  }
  try {
    if (source.type === "sitemap") {
      // Within three quarters of the job's lease, so no other worker takes the job over meanwhile.
      const budgetMs = Math.max(5_000, Math.floor(ctx.config.jobLeaseMs * 0.75));
      return await fetchSitemap(
        ctx.fetcher,
        source.url!,
        Number(source.max_pages ?? DEFAULT_MAX_PAGES),
        budgetMs,
      );
    }
    return await fetchPage(ctx.fetcher, source.url!);
  } catch (err) {
    if (err instanceof SourceProblem) throw err;
    // A page that breaks the HTML reader is the page's problem, not a reason to retry.
    ctx.log.warn({ err, sourceId: source.id }, "a knowledge page could not be read");
    throw new SourceProblem("the page could not be read");
  }
}

/** The knowledge.sync job: reads the source and records the outcome (passages, or the error). */
export function syncHandler(ctx: AppContext) {
  return async (payload: { sourceId: string }, job: JobContext): Promise<JobResult> => {
    const accountId = job.accountId;
    if (!accountId) return undefined;
    const source = await repo.findSourceById(ctx.db.kysely, accountId, payload.sourceId);
    if (!source) return undefined; // deleted meanwhile
    let outcome: { ok: true; fetched: Fetched } | { ok: false; reason: string };
    try {
      outcome = { ok: true, fetched: await readSource(ctx, source) };
    } catch (err) {
      if (!(err instanceof SourceProblem)) {
        // The last attempt: the source shows the failure instead of staying "processing" for ever.
        if (job.attempt >= job.maxAttempts) {
          await ctx.db
            .write((trx) =>
              repo.updateSource(trx, accountId, source.id, {
                status: "error",
                error: "the source could not be read (a server error; try Re-sync later)",
                updated_at: Date.now(),
              }),
            )
            .catch(() => undefined);
        }
        throw err;
      }
      outcome = { ok: false, reason: err.message };
    }
    await ctx.db.write(async (trx) => {
      const now = Date.now();
      const current = await repo.findSourceById(trx, accountId, source.id);
      if (current) {
        const daily = Number(current.daily_resync) === 1 && current.type !== "file";
        const next_sync_at = daily ? now + DAY_MS : null;
        if (outcome.ok) {
          const passages = outcome.fetched.passages.slice(0, MAX_PASSAGES_PER_SOURCE);
          await repo.replacePassages(trx, accountId, current, passages);
          const title = current.type === "url" ? outcome.fetched.title : null;
          await repo.updateSource(trx, accountId, current.id, {
            status: "ready",
            error: null,
            passages: passages.length,
            bytes: outcome.fetched.bytes,
            ...(title && current.name === current.url ? { name: title.slice(0, 255) } : {}),
            last_synced_at: now,
            next_sync_at,
            updated_at: now,
          });
        } else {
          await repo.updateSource(trx, accountId, current.id, {
            status: "error",
            error: outcome.reason,
            next_sync_at,
            updated_at: now,
          });
        }
      }
      await job.finishIn(trx);
    });
    return undefined;
  };
}

/** The daily re-sync: queues a sync of every url and sitemap source whose day has passed. */
export function dailyResyncHandler(ctx: AppContext) {
  return async (_payload: unknown, job: JobContext): Promise<JobResult> => {
    const now = Date.now();
    const due = await repo.dueForResync(ctx.db.kysely, now, RESYNC_BATCH);
    await ctx.db.write(async (trx) => {
      for (const source of due) {
        await repo.updateSource(trx, source.account_id, source.id, {
          status: "processing",
          error: null,
          updated_at: now,
        });
      }
      if (due.length > 0) {
        await enqueueJobs(
          trx,
          due.map((s) => syncJob.create({ sourceId: s.id }, { accountId: s.account_id })),
        );
      }
      // A full batch: more may be due, so look again soon.
      const runAt = now + (due.length === RESYNC_BATCH ? 60_000 : RESYNC_CHECK_MS);
      await queueNextRun(trx, job, dailyResyncJob.create({}, { accountId: null, runAt }));
    });
    return undefined;
  };
}

/** A deleted campaign's sources go with it (called in the campaign's delete transaction). */
export { deleteCampaignSources } from "./repo.ts";

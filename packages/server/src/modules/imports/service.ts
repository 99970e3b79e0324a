// CSV contact imports: an upload is checked and stored, then processed by a background job in slices
// of rows. Each slice upserts its contacts (dedupe by phone, then fromId, then e-mail), adds them to
// the list, and records its progress, its rejected rows and, when rows remain, the next slice's job,
// all in one transaction: a crash repeats at most the slice it interrupted, and nothing twice.
import { parse } from "csv-parse";
import { type CountryCode, parsePhoneNumberFromString } from "libphonenumber-js";
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import { csvText } from "../../platform/csv-out.ts";
import type { ContactRow, ImportRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { defineJob, enqueueJobs, type JobContext, type JobResult } from "../../platform/jobs.ts";
import type { ObjectStorage } from "../../platform/storage.ts";
import { iso } from "../../platform/text.ts";
import * as contacts from "../contacts/repo.ts";
import { labelsOf, parseEmail, parseLabels, parsePhone } from "../contacts/service.ts";
import { addMembers } from "../lists/repo.ts";
import { requireList } from "../lists/service.ts";
import {
  checkMapping,
  guessMapping,
  type ImportMode,
  type Mapping,
  parseDefaultCountry,
  parseMappingText,
  parseMode,
  scanCsv,
} from "./csv.ts";
import * as repo from "./repo.ts";

/** Rows per slice: one transaction, well within a job's lease. */
export const SLICE_ROWS = 2000;

export const importJob = defineJob(
  "contacts.import",
  Type.Object({ importId: Type.String({ minLength: 1 }) }),
  {
    subject: (p) => p.importId,
  },
);

/** The prefix every uploaded file's key starts with (the orphan sweep lists it). */
export const IMPORTS_PREFIX = "imports/";

/** The uploaded file's key in the file storage (DATA_DIR or the bucket). */
export function importKey(importId: string): string {
  return `${IMPORTS_PREFIX}${importId}.csv`;
}

/** The import id a key names, or null for a key that is not an uploaded file's. */
export function importIdOfKey(key: string): string | null {
  const m = /^imports\/([A-Za-z0-9_]+)\.csv$/.exec(key);
  return m ? m[1]! : null;
}

export function importView(r: ImportRow) {
  return {
    importId: r.id,
    status: r.status,
    fileName: r.file_name,
    listId: r.list_id,
    mapping: JSON.parse(r.mapping) as Mapping,
    total: r.total,
    done: r.done,
    created: r.created,
    updated: r.updated,
    unchanged: r.unchanged,
    rejected: r.rejected,
    mode: r.mode,
    defaultCountry: r.default_country,
    error: r.error,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export interface NewImport {
  bytes: unknown;
  fileName?: string | null;
  listId?: string | null;
  /** `column=field,…` over the guess from the header. */
  map?: string | null;
  /** fill (the default) or overwrite: what a row does to an existing contact's fields. */
  mode?: string | null;
  /** A two-letter country for phone numbers without a country code. */
  defaultCountry?: string | null;
}

/** The request body as the CSV's bytes, or a 400 when there is none (no body, or not text/csv). */
export function csvBytes(body: unknown): Buffer {
  if (!Buffer.isBuffer(body)) {
    throw new AppError(
      "VALIDATION_ERROR",
      "send the CSV file as the request body, with Content-Type: text/csv",
    );
  }
  return body;
}

/** Checks and stores the file, records the import, queues its first slice. */
export async function createImport(ctx: AppContext, accountId: string, input: NewImport) {
  const mode = parseMode(input.mode);
  const defaultCountry = parseDefaultCountry(input.defaultCountry);
  const scanned = await scanCsv(csvBytes(input.bytes));
  const mapping = {
    ...guessMapping(scanned.header),
    ...(input.map ? parseMappingText(input.map, scanned.header) : {}),
  };
  checkMapping(mapping, scanned.header);
  if (input.listId) await requireList(ctx.db, accountId, input.listId);
  const id = newId("import");
  // Stored before the import's row commits: a crash in between leaves an orphan the sweep removes.
  await ctx.storage.put(importKey(id), csvBytes(input.bytes), "text/csv");
  const now = Date.now();
  const row: ImportRow = {
    id,
    account_id: accountId,
    status: scanned.total === 0 ? "done" : "running",
    file_name: input.fileName ?? null,
    list_id: input.listId ?? null,
    header: JSON.stringify(scanned.header),
    mapping: JSON.stringify(mapping),
    total: scanned.total,
    done: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    rejected: 0,
    mode,
    default_country: defaultCountry,
    byte_offset: scanned.dataOffset,
    error: null,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.write(async (trx) => {
    await repo.insertImport(trx, row);
    if (row.status === "running") await enqueueJobs(trx, [importJob.create({ importId: id }, { accountId })]);
  });
  return { ...importView(row), preview: scanned.sample };
}

export async function requireImport(
  ctx: AppContext,
  accountId: string,
  importId: string,
): Promise<ImportRow> {
  const row = await repo.findImport(ctx.db.kysely, accountId, importId);
  if (!row) throw new AppError("NOT_FOUND", `No import ${importId} in this account`);
  return row;
}

/** The next `limit` records from `offset`, and where the one after them starts. */
async function readSlice(storage: ObjectStorage, key: string, offset: number, limit: number) {
  const records: string[][] = [];
  let end = offset;
  const stored = await storage.get(key, offset);
  if (!stored) throw new Error(`the uploaded file ${key} is missing from the file storage`);
  const stream = stored.body;
  const parser = stream.pipe(
    parse({ skip_empty_lines: true, relax_column_count_less: true, info: true, trim: true }),
  );
  let more = false;
  for await (const r of parser) {
    const { record, info } = r as { record: string[]; info: { bytes: number } };
    if (records.length === limit) {
      more = true;
      break;
    }
    records.push(record);
    end = offset + info.bytes;
  }
  stream.destroy();
  return { records, end, more };
}

type Outcome = "created" | "updated" | "unchanged";

/** A row's fields as validated with the rules of POST /v1/contacts. */
interface ValidRow {
  phone: string | null;
  email: string | null;
  externalId: string | null;
  firstName: string | null;
  lastName: string | null;
  labels: string[];
}

/** A row's phone: with its country code as everywhere, or local to `country` when one is given. */
function rowPhone(raw: string, country: CountryCode | null): string {
  if (country && !raw.startsWith("+") && !raw.startsWith("00")) {
    const parsed = parsePhoneNumberFromString(raw, country);
    if (parsed?.isValid()) return parsed.number;
    throw new AppError(
      "INVALID_PHONE",
      `"${raw}" is not a valid phone number in ${country} (defaultCountry), nor one with a country code`,
    );
  }
  return parsePhone(raw);
}

function validateRow(fields: Partial<Record<string, string>>, country: CountryCode | null): ValidRow {
  const given = (v: string | undefined) => (v && v.trim() !== "" ? v.trim() : null);
  const rawPhone = given(fields.phone);
  const rawEmail = given(fields.email);
  const externalId = given(fields.externalId);
  if (!rawPhone && !rawEmail && !externalId)
    throw new AppError("MISSING_IDENTIFIER", "no phone, email or custom channel id");
  return {
    phone: rawPhone ? rowPhone(rawPhone, country) : null,
    email: rawEmail ? parseEmail(rawEmail) : null,
    externalId,
    firstName: given(fields.firstName),
    lastName: given(fields.lastName),
    // Commas too: a spreadsheet writes "vip,wedding" in one quoted cell (a label never holds one).
    labels: fields.labels ? parseLabels(fields.labels.split(/[,;|]/)) : [],
  };
}

/**
 * A slice's contacts as the rows leave them, resolved in memory in file order exactly as one look-up
 * and one write per row would (dedupe by phone, then custom channel id, then e-mail for rows without a
 * phone), then written in a few statements: a round trip per row is what made imports slow on
 * PostgreSQL.
 */
class SliceContacts {
  private readonly byPhone = new Map<string, ContactRow>();
  private readonly byExternalId = new Map<string, ContactRow>();
  /** Every contact that has had each e-mail; the oldest that still has it is the match (findContactByEmail). */
  private readonly byEmail = new Map<string, ContactRow[]>();
  private readonly created = new Map<string, ContactRow>();
  private readonly changed = new Map<string, contacts.ContactPatch>();

  constructor(existing: ContactRow[]) {
    for (const c of existing) this.index(c);
  }

  private index(c: ContactRow) {
    if (c.phone) this.byPhone.set(c.phone, c);
    if (c.external_id) this.byExternalId.set(c.external_id, c);
    if (!c.email) return;
    const holders = this.byEmail.get(c.email) ?? [];
    if (!holders.includes(c)) holders.push(c);
    this.byEmail.set(c.email, holders);
  }

  private oldestWithEmail(email: string): ContactRow | undefined {
    let oldest: ContactRow | undefined;
    for (const c of this.byEmail.get(email) ?? []) {
      if (c.email !== email) continue;
      if (
        !oldest ||
        c.created_at < oldest.created_at ||
        (c.created_at === oldest.created_at && c.id < oldest.id)
      )
        oldest = c;
    }
    return oldest;
  }

  apply(row: ValidRow, now: number, mode: ImportMode): { contactId: string; outcome: Outcome } {
    const existing =
      (row.phone ? this.byPhone.get(row.phone) : undefined) ??
      (row.externalId ? this.byExternalId.get(row.externalId) : undefined) ??
      (!row.phone && row.email ? this.oldestWithEmail(row.email) : undefined);
    if (!existing) {
      const contact: ContactRow = {
        id: newId("contact"),
        account_id: "",
        first_name: row.firstName,
        last_name: row.lastName,
        phone: row.phone,
        email: row.email,
        external_id: row.externalId,
        bot_active: 1,
        labels: JSON.stringify(row.labels),
        sms_opted_out_at: null,
        created_at: now,
        updated_at: now,
      };
      this.created.set(contact.id, contact);
      this.index(contact);
      return { contactId: contact.id, outcome: "created" };
    }
    // Fill in what the file gives and the contact lacks (mode fill) or has differently (overwrite);
    // labels are added either way.
    const patch: contacts.ContactPatch = {};
    const takes = (had: string | null, given: string | null): given is string =>
      given !== null && given !== had && (mode === "overwrite" || had === null);
    if (takes(existing.first_name, row.firstName)) patch.first_name = row.firstName;
    if (takes(existing.last_name, row.lastName)) patch.last_name = row.lastName;
    if (takes(existing.email, row.email)) patch.email = row.email;
    if (row.phone && existing.phone === null) patch.phone = row.phone;
    if (row.externalId && existing.external_id === null) patch.external_id = row.externalId;
    const had = labelsOf(existing);
    const merged = [
      ...had,
      ...row.labels.filter((l) => !had.some((h) => h.toLowerCase() === l.toLowerCase())),
    ];
    if (merged.length !== had.length) patch.labels = JSON.stringify(parseLabels(merged));
    if (Object.keys(patch).length === 0) return { contactId: existing.id, outcome: "unchanged" };
    patch.updated_at = Math.max(now, existing.updated_at);
    Object.assign(existing, patch);
    if (!this.created.has(existing.id))
      this.changed.set(existing.id, { ...this.changed.get(existing.id), ...patch });
    this.index(existing);
    return { contactId: existing.id, outcome: "updated" };
  }

  /** Writes the slice's new and changed contacts; false when another writer took a phone or id meanwhile. */
  async write(
    trx: Parameters<typeof contacts.insertContactsIfAbsent>[0],
    accountId: string,
  ): Promise<boolean> {
    const fresh = [...this.created.values()].map(({ account_id: _, ...c }) => c);
    const written = await contacts.insertContactsIfAbsent(trx, accountId, fresh);
    if (written.size !== fresh.length) return false;
    for (const [id, patch] of this.changed) await contacts.updateContact(trx, accountId, id, patch);
    return true;
  }
}

/** Thrown inside a slice's transaction to roll it back: the job runs the slice again. */
class ContactsChangedMeanwhile extends Error {}

/** Processes the next slice of an import; answers whether rows remain. */
export async function runSlice(ctx: AppContext, accountId: string, importId: string, enqueueNext = true) {
  const imp = await repo.findImport(ctx.db.kysely, accountId, importId);
  if (imp?.status !== "running") return false;
  const header = JSON.parse(imp.header) as string[];
  const mapping = JSON.parse(imp.mapping) as Mapping;
  const country = imp.default_country as CountryCode | null;
  let slice: Awaited<ReturnType<typeof readSlice>>;
  try {
    slice = await readSlice(ctx.storage, importKey(importId), imp.byte_offset, SLICE_ROWS);
  } catch (err) {
    // The stored file is gone or unreadable (another node without the shared DATA_DIR, a disk error).
    const message = err instanceof Error ? err.message : String(err);
    await ctx.db.write((trx) =>
      repo.saveProgress(
        trx,
        accountId,
        importId,
        { ...imp, status: "failed", error: `the file could not be read: ${message}` },
        Date.now(),
      ),
    );
    return false;
  }
  const rejections: Array<{ rowNumber: number; reason: string; record: string[] }> = [];
  const valid: ValidRow[] = [];
  for (const [i, record] of slice.records.entries()) {
    const fields: Partial<Record<string, string>> = {};
    for (const [column, field] of Object.entries(mapping)) fields[field] = record[header.indexOf(column)];
    try {
      valid.push(validateRow(fields, country));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      rejections.push({ rowNumber: imp.done + i + 1, reason: err.message, record });
    }
  }
  const writeSlice = () =>
    ctx.db.write(async (trx) => {
      // Another run of this import (a job re-claimed after a crash, next to its successor) may have
      // done this slice meanwhile: then this one writes nothing.
      const fresh = await repo.findImportLocked(trx, ctx.db.dialect, accountId, importId);
      if (fresh?.status !== "running" || fresh.byte_offset !== imp.byte_offset || fresh.done !== imp.done) {
        return false;
      }
      const counts = {
        created: imp.created,
        updated: imp.updated,
        unchanged: imp.unchanged,
        rejected: imp.rejected + rejections.length,
      };
      const known = new SliceContacts(
        await contacts.findContactsByKeys(trx, accountId, {
          phones: valid.flatMap((v) => (v.phone ? [v.phone] : [])),
          externalIds: valid.flatMap((v) => (v.externalId ? [v.externalId] : [])),
          emails: valid.flatMap((v) => (v.email && !v.phone ? [v.email] : [])),
        }),
      );
      const now = Date.now();
      const members: string[] = [];
      for (const row of valid) {
        const { contactId, outcome } = known.apply(row, now, imp.mode);
        counts[outcome]++;
        members.push(contactId);
      }
      // A contact created by someone else (an incoming message) since the look-up: start the slice again.
      if (!(await known.write(trx, accountId))) throw new ContactsChangedMeanwhile();
      if (imp.list_id) await addMembers(trx, accountId, imp.list_id, members);
      await repo.insertRejections(trx, accountId, importId, rejections);
      const finished = !slice.more;
      await repo.saveProgress(
        trx,
        accountId,
        importId,
        {
          ...counts,
          done: imp.done + slice.records.length,
          byte_offset: slice.end,
          status: finished ? "done" : "running",
          error: null,
        },
        Date.now(),
      );
      if (!finished && enqueueNext) await enqueueJobs(trx, [importJob.create({ importId }, { accountId })]);
      return true;
    });
  for (let attempt = 1; ; attempt++) {
    try {
      return (await writeSlice()) && slice.more;
    } catch (err) {
      // After a few tries the error reaches the job, which is retried later.
      if (!(err instanceof ContactsChangedMeanwhile) || attempt === 3) throw err;
    }
  }
}

export function importHandler(ctx: AppContext) {
  return async (payload: { importId: string }, job: JobContext): Promise<JobResult> => {
    if (!job.accountId) return { dead: true, error: "contacts.import job without an account" };
    await runSlice(ctx, job.accountId, payload.importId);
    return undefined;
  };
}

/**
 * The rejected rows as CSV: the file's columns, then the row number and the reason; written by
 * csvText, so a cell (or a reason quoting one) that a spreadsheet would run as a formula is not.
 */
export async function rejectedCsv(ctx: AppContext, accountId: string, importId: string): Promise<string> {
  const imp = await requireImport(ctx, accountId, importId);
  const header = JSON.parse(imp.header) as string[];
  const rows: string[][] = [[...header, "row", "reason"]];
  for (const r of await repo.rejectionsOf(ctx.db.kysely, accountId, importId)) {
    const record = JSON.parse(r.record) as string[];
    rows.push([...header.map((_, i) => record[i] ?? ""), String(r.row_number), r.reason]);
  }
  return csvText(rows);
}

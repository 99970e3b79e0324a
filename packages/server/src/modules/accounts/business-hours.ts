// An account's business hours: a time zone, opening ranges per weekday and holidays. All zone and
// daylight-saving arithmetic goes through luxon; a local time that does not exist (the hour skipped
// in spring) moves forward as luxon moves it, and a range that vanishes that way is skipped.
import type { Kysely } from "kysely";
import { DateTime, IANAZone } from "luxon";
import type { Db } from "../../platform/db/index.ts";
import type { Database } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { updateAccount } from "./repo.ts";

export const WEEKDAYS = [
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
  "sunday",
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface OpeningRange {
  open: string;
  close: string;
}

export interface BusinessHours {
  timezone: string;
  days: Record<Weekday, OpeningRange[]>;
  /** YYYY-MM-DD in the account's zone: closed all day. */
  holidays: string[];
}

export const MAX_RANGES_PER_DAY = 4;
export const MAX_HOLIDAYS = 100;

const TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function minutesOf(time: string): number {
  const [h, m] = time.split(":").map(Number) as [number, number];
  return h * 60 + m;
}

function invalid(field: string, message: string): AppError {
  return new AppError("VALIDATION_ERROR", `${field}: ${message}`);
}

/**
 * Checks and normalises business hours given by a client (a missing day is closed; ranges and
 * holidays sorted, holidays de-duplicated). Throws VALIDATION_ERROR naming the field.
 */
export function validateBusinessHours(input: unknown): BusinessHours {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw invalid("businessHours", "must be an object");
  const raw = input as { timezone?: unknown; days?: unknown; holidays?: unknown };
  if (typeof raw.timezone !== "string" || !IANAZone.isValidZone(raw.timezone))
    throw invalid("timezone", "must be an IANA time zone such as Europe/Berlin");
  const daysIn = raw.days ?? {};
  if (typeof daysIn !== "object" || daysIn === null || Array.isArray(daysIn))
    throw invalid("days", "must be an object with a list of ranges per weekday");
  const days = {} as Record<Weekday, OpeningRange[]>;
  let anyOpen = false;
  for (const day of WEEKDAYS) {
    const rangesIn = (daysIn as Record<string, unknown>)[day] ?? [];
    if (!Array.isArray(rangesIn)) throw invalid(`days.${day}`, "must be a list of {open, close}");
    if (rangesIn.length > MAX_RANGES_PER_DAY)
      throw invalid(`days.${day}`, `at most ${MAX_RANGES_PER_DAY} ranges a day`);
    const ranges: OpeningRange[] = [];
    rangesIn.forEach((r: unknown, i) => {
      const field = `days.${day}[${i}]`;
      const range = (typeof r === "object" && r !== null ? r : {}) as { open?: unknown; close?: unknown };
      for (const key of ["open", "close"] as const) {
        const v = range[key];
        if (typeof v !== "string" || !TIME.test(v))
          throw invalid(`${field}.${key}`, "must be a time HH:MM between 00:00 and 24:00");
      }
      const open = range.open as string;
      const close = range.close as string;
      if (minutesOf(open) >= minutesOf(close)) throw invalid(field, "open must be before close");
      ranges.push({ open, close });
    });
    ranges.sort((a, b) => minutesOf(a.open) - minutesOf(b.open));
    for (let i = 1; i < ranges.length; i++) {
      if (minutesOf(ranges[i]!.open) < minutesOf(ranges[i - 1]!.close))
        throw invalid(`days.${day}`, "ranges overlap");
    }
    if (ranges.length > 0) anyOpen = true;
    days[day] = ranges;
  }
  if (!anyOpen) throw invalid("days", "at least one weekday needs opening hours");
  const holidaysIn = raw.holidays ?? [];
  if (!Array.isArray(holidaysIn)) throw invalid("holidays", "must be a list of dates YYYY-MM-DD");
  if (holidaysIn.length > MAX_HOLIDAYS) throw invalid("holidays", `at most ${MAX_HOLIDAYS} dates`);
  holidaysIn.forEach((d: unknown, i) => {
    if (typeof d !== "string" || !DATE.test(d) || !DateTime.fromISO(d, { zone: "utc" }).isValid)
      throw invalid(`holidays[${i}]`, "must be a date YYYY-MM-DD");
  });
  const holidays = [...new Set(holidaysIn as string[])].sort();
  return { timezone: raw.timezone, days, holidays };
}

/** The opening intervals (epoch ms, [start, end)) of one local date, in order. */
function intervalsOn(hours: BusinessHours, date: DateTime): [number, number][] {
  const iso = date.toISODate();
  if (iso && hours.holidays.includes(iso)) return [];
  const ranges = hours.days[WEEKDAYS[date.weekday - 1]!] ?? [];
  const at = (time: string): number => {
    const minutes = minutesOf(time);
    if (minutes === 24 * 60) return date.plus({ days: 1 }).startOf("day").toMillis();
    return DateTime.fromObject(
      {
        year: date.year,
        month: date.month,
        day: date.day,
        hour: Math.floor(minutes / 60),
        minute: minutes % 60,
      },
      { zone: hours.timezone },
    ).toMillis();
  };
  const out: [number, number][] = [];
  for (const r of ranges) {
    const start = at(r.open);
    const end = at(r.close);
    if (end > start) out.push([start, end]);
  }
  return out;
}

/** Epoch ms of the next opening; `at` itself when open at `at` or when no hours are set. */
export function nextOpening(hours: BusinessHours | null, at: number): number {
  if (!hours) return at;
  // Starting a day early catches a range of the previous local date still running at `at`.
  let date = DateTime.fromMillis(at, { zone: hours.timezone }).startOf("day").minus({ days: 1 });
  // Validation keeps at least one open weekday, so a week per holiday (plus two) always finds one.
  const horizon = 7 * (hours.holidays.length + 2) + 2;
  for (let i = 0; i < horizon; i++) {
    for (const [start, end] of intervalsOn(hours, date)) {
      if (end > at) return Math.max(start, at);
    }
    date = date.plus({ days: 1 });
  }
  return at;
}

export function isOpen(hours: BusinessHours | null, at: number): boolean {
  return nextOpening(hours, at) === at;
}

/** The next opening in the account's zone, e.g. "Monday 09:00" (with the date a week or more away); "now" when open. */
export function formatOpeningTime(hours: BusinessHours | null, at: number): string {
  const next = nextOpening(hours, at);
  if (!hours || next === at) return "now";
  const local = DateTime.fromMillis(next, { zone: hours.timezone }).setLocale("en");
  const soon = next - at < 6 * 24 * 3600_000;
  return local.toFormat(soon ? "cccc HH:mm" : "cccc d LLLL HH:mm");
}

/** Parses the stored column; null = not set. */
export function parseBusinessHours(stored: string | null | undefined): BusinessHours | null {
  if (!stored) return null;
  return JSON.parse(stored) as BusinessHours;
}

export async function loadBusinessHours(
  db: Kysely<Database>,
  accountId: string,
): Promise<BusinessHours | null> {
  const row = await db
    .selectFrom("accounts")
    .select("business_hours")
    .where("id", "=", accountId)
    .executeTakeFirst();
  return parseBusinessHours(row?.business_hours);
}

/** The placeholders business hours add to a message's template (contacts/placeholders.ts render). */
export function hoursPlaceholders(hours: BusinessHours | null, at: number): { openingTime: string } {
  return { openingTime: formatOpeningTime(hours, at) };
}

/** The answer of GET/PUT /v1/account/business-hours (and the web app's twins). */
export function businessHoursView(hours: BusinessHours | null, at = Date.now()) {
  const next = nextOpening(hours, at);
  return {
    businessHours: hours,
    openNow: next === at,
    nextOpening: new Date(next).toISOString(),
    openingTime: formatOpeningTime(hours, at),
  };
}

export async function getBusinessHours(db: Db, accountId: string) {
  return businessHoursView(await loadBusinessHours(db.kysely, accountId));
}

/** Validates first (400 naming the field, nothing written); null clears them (always open). */
export async function saveBusinessHours(db: Db, accountId: string, input: unknown) {
  const hours = input === null ? null : validateBusinessHours(input);
  await db.write((trx) =>
    updateAccount(trx, accountId, { business_hours: hours === null ? null : JSON.stringify(hours) }),
  );
  return businessHoursView(hours);
}

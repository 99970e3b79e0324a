// The dashboard: the last N days' messages (in and out), delivery outcomes, bot answers against
// fallbacks and credits used, per UTC day, and the open conversations waiting for a person.
//
// A day that ended more than SETTLED_DAYS ago no longer changes (deliveries retry for about 28 h), so
// its figures are computed once from the messages (an index on account and time) and kept in
// dashboard_days; only the last days are counted live. The dashboard's cost therefore does not grow
// with the account's history.
import type { AppContext } from "../../context.ts";
import { csvText } from "../../platform/csv-out.ts";
import { functionCallStats, tokenTotals } from "../bot/repo.ts";
import { listAllChannels } from "../channels/repo.ts";
import { countWaitingForPerson } from "../conversations/repo.ts";
import { botSpendByDay } from "../credits/repo.ts";
import { messageCountsByDay } from "../messaging/repo.ts";
import * as repo from "./repo.ts";

export const DAY_MS = 86_400_000;
const SETTLED_DAYS = 2;
/** The live days of an account are counted at most this often per process (a dashboard open in
 * several tabs, refreshed, or polled, costs one count). */
const LIVE_TTL_MS = 15_000;
const LIVE_CACHE_SIZE = 1000;
/**
 * Live figures counted up to this long ago still answer (with the messages written since counted on
 * top) while a recount runs in the background: a delivery outcome that changed since shows on the
 * next call, not this one.
 */
const LIVE_STALE_MS = 10 * 60_000;
/** The hourly job's count of the live days answers a first call for this long (one missed run). */
const LIVE_AHEAD_MAX_AGE_MS = 2 * 60 * 60_000;
export const MAX_DAYS = 90;

export interface DayFigures {
  inbound: number;
  outbound: number;
  sent: number;
  failed: number;
  botAnswers: number;
  botFallbacks: number;
  /** Credits the bot used (credits, two decimals). */
  creditsUsed: number;
  /**
   * Every message the bot sent (answers, fallbacks, hand-overs, follow-ups, away messages, outgoing
   * campaigns). Days cached before it was counted lack it: their answers and fallbacks stand in.
   */
  botReplies?: number;
  /**
   * The message figures split by channel ('' = the custom channel, else a channel id). Days cached
   * before channels existed lack it: all their messages were on the custom channel.
   */
  channels?: Record<string, ChannelFigures>;
}

export interface ChannelFigures {
  inbound: number;
  outbound: number;
  sent: number;
  failed: number;
  botAnswers: number;
  botFallbacks: number;
}

const NO_CHANNEL_FIGURES: ChannelFigures = {
  inbound: 0,
  outbound: 0,
  sent: 0,
  failed: 0,
  botAnswers: 0,
  botFallbacks: 0,
};

function addFigures(into: ChannelFigures, f: ChannelFigures): void {
  into.inbound += f.inbound;
  into.outbound += f.outbound;
  into.sent += f.sent;
  into.failed += f.failed;
  into.botAnswers += f.botAnswers;
  into.botFallbacks += f.botFallbacks;
}

/** A day's figures by channel (a day cached before channels: all of it on the custom channel). */
function channelsOf(f: DayFigures): Record<string, ChannelFigures> {
  if (f.channels) return f.channels;
  const { inbound, outbound, sent, failed, botAnswers, botFallbacks } = f;
  return { "": { inbound, outbound, sent, failed, botAnswers, botFallbacks } };
}

const EMPTY: DayFigures = {
  inbound: 0,
  outbound: 0,
  sent: 0,
  failed: 0,
  botAnswers: 0,
  botFallbacks: 0,
  creditsUsed: 0,
};

/**
 * The figures of the days [fromDay, toDay), of the messages (and credits) written from `createdFrom`
 * and before `createdBefore` (the whole days unless given).
 */
async function computeDays(
  ctx: AppContext,
  accountId: string,
  fromDay: number,
  toDay: number,
  createdFrom = fromDay * DAY_MS,
  createdBefore = toDay * DAY_MS,
): Promise<Map<number, DayFigures>> {
  const figures = new Map<number, DayFigures>();
  for (let d = fromDay; d < toDay; d++) figures.set(d, { ...EMPTY, botReplies: 0, channels: {} });
  if (toDay <= fromDay) return figures;
  // An account without built-in channels (most) is counted without reading conversations; its
  // messages are all the custom channel's (except those of channels deleted since, which then count
  // as custom too).
  const split = (await listAllChannels(ctx.db.kysely, accountId)).length > 0;
  const [counts, spend] = await Promise.all([
    messageCountsByDay(ctx.db.kysely, accountId, createdFrom, createdBefore, split),
    botSpendByDay(ctx.db.kysely, accountId, createdFrom, createdBefore),
  ]);
  for (const r of counts) {
    const f = figures.get(r.day);
    if (!f) continue;
    const c = { ...NO_CHANNEL_FIGURES };
    if (r.direction === "inbound") c.inbound += r.n;
    else {
      c.outbound += r.n;
      // A provider's delivered and read replies were sent first.
      if (r.status === "sent" || r.status === "delivered" || r.status === "read") c.sent += r.n;
      if (r.status === "failed") c.failed += r.n;
      if (r.sender === "bot" && r.bot_outcome === "answer") c.botAnswers += r.n;
      if (r.sender === "bot" && r.bot_outcome === "fallback") c.botFallbacks += r.n;
    }
    addFigures(f, c);
    if (r.direction === "outbound" && r.sender === "bot") f.botReplies = (f.botReplies ?? 0) + r.n;
    const channels = f.channels ?? {};
    f.channels = channels;
    const split = channels[r.channel_id] ?? { ...NO_CHANNEL_FIGURES };
    channels[r.channel_id] = split;
    addFigures(split, c);
  }
  for (const s of spend) {
    const f = figures.get(s.day);
    if (f) f.creditsUsed = s.spent / 100;
  }
  return figures;
}

/**
 * The stored figures of the finished days in [from, to), counting and storing the days not stored
 * yet (in one count; with `oneDayAtATime`, a day per count, so a background run never holds the
 * database or the event loop for long), all stored in one write.
 */
export async function settleDays(
  ctx: AppContext,
  accountId: string,
  from: number,
  to: number,
  now: number,
  oneDayAtATime = false,
) {
  const cached = await repo.cachedDays(ctx.db.kysely, accountId, from, to);
  const missing: number[] = [];
  for (let d = from; d < to; d++) if (!cached.has(d)) missing.push(d);
  const computed = new Map<number, DayFigures>();
  const runs = oneDayAtATime ? missing.map((d) => [d]) : missing.length > 0 ? [missing] : [];
  for (const run of runs) {
    const fresh = await computeDays(ctx, accountId, run[0]!, run.at(-1)! + 1);
    for (const d of run) computed.set(d, fresh.get(d) ?? { ...EMPTY });
    if (oneDayAtATime) await new Promise((r) => setImmediate(r));
  }
  if (missing.length > 0) {
    await ctx.db.write((trx) =>
      repo.storeDays(
        trx,
        accountId,
        missing.map((d) => ({ day: d, figures: JSON.stringify(computed.get(d)) })),
        now,
      ),
    );
  }
  return { cached, computed };
}

/** The last `days` UTC days up to today's: the first, the first not finished (settled) yet, today. */
export function dayWindow(now: number, days: number) {
  const today = Math.floor(now / DAY_MS);
  return { first: today - days + 1, settledBefore: today - SETTLED_DAYS + 1, today };
}

type DaysFigures = Map<number, DayFigures>;

/** Live days' figures: those of the messages written before `asOf`. */
interface Counted {
  asOf: number;
  key: string;
  days: DaysFigures;
}

/** A day's figures and `more` added together (a copy; channel by channel). */
function sumFigures(a: DayFigures, more: DayFigures): DayFigures {
  const channels: Record<string, ChannelFigures> = {};
  for (const f of [a, more]) {
    for (const [id, c] of Object.entries(channelsOf(f))) {
      channels[id] ??= { ...NO_CHANNEL_FIGURES };
      addFigures(channels[id], c);
    }
  }
  const sum: DayFigures = { ...NO_CHANNEL_FIGURES, creditsUsed: 0, channels };
  for (const f of [a, more]) {
    addFigures(sum, f);
    sum.creditsUsed = Math.round((sum.creditsUsed + f.creditsUsed) * 100) / 100;
    sum.botReplies = (sum.botReplies ?? 0) + (f.botReplies ?? f.botAnswers + f.botFallbacks);
  }
  return sum;
}

function sumDays(a: DaysFigures, more: DaysFigures): DaysFigures {
  const sum = new Map(a);
  for (const [d, f] of more) sum.set(d, sumFigures(sum.get(d) ?? { ...EMPTY }, f));
  return sum;
}

/**
 * The hourly job's count of the live days (reports.settle_days): the days of [from, to) from it, when
 * it is recent and starts no later. A day after its last one (a new UTC day since the run) began after
 * it was counted, so it is all in what came since (zero here).
 */
async function countedAhead(
  ctx: AppContext,
  accountId: string,
  from: number,
  to: number,
  now: number,
): Promise<Counted | undefined> {
  const ahead = await repo.liveSnapshot(ctx.db.kysely, accountId);
  if (!ahead || ahead.fromDay > from) return undefined;
  if (now < ahead.asOf || now - ahead.asOf > LIVE_AHEAD_MAX_AGE_MS) return undefined;
  const stored = JSON.parse(ahead.figures) as Record<string, DayFigures>;
  const days: DaysFigures = new Map();
  for (let d = from; d < to; d++) days.set(d, stored[d] ?? { ...EMPTY });
  return { asOf: ahead.asOf, key: `${from}:${to}`, days };
}

/**
 * The figures of the days [from, to) of the messages written before `before`, a day per count, so a
 * count in the background never holds the database or the event loop for long.
 */
async function countDayByDay(ctx: AppContext, accountId: string, from: number, to: number, before: number) {
  const days: DaysFigures = new Map();
  for (let d = from; d < to; d++) {
    const day = await computeDays(ctx, accountId, d, d + 1, d * DAY_MS, Math.min(before, (d + 1) * DAY_MS));
    days.set(d, day.get(d) ?? { ...EMPTY });
    await new Promise((r) => setImmediate(r));
  }
  return days;
}

/** Counts an account's live days ahead (the hourly job, after the finished days). */
export async function countLiveDaysAhead(ctx: AppContext, accountId: string, now: number): Promise<void> {
  const { settledBefore, today } = dayWindow(now, SETTLED_DAYS);
  const days = await countDayByDay(ctx, accountId, settledBefore, today + 1, now);
  await ctx.db.write((trx) =>
    repo.storeLiveSnapshot(trx, accountId, {
      fromDay: settledBefore,
      toDay: today + 1,
      figures: JSON.stringify(Object.fromEntries(days)),
      asOf: now,
    }),
  );
}

/**
 * The live days' figures [from, to): counted at most every LIVE_TTL_MS per account in this process.
 * Past that, figures counted earlier (this process's, up to LIVE_STALE_MS old, or the hourly job's)
 * answer with the messages written since counted on top, and the recount runs after the answer, so a
 * person never waits for a day and a half of messages to be counted; with neither, the count is awaited.
 */
async function liveDays(ctx: AppContext, accountId: string, from: number, to: number, now: number) {
  const cache = ctx.caches.get("reports.live", () => new Map<string, Counted>());
  const key = `${from}:${to}`;
  const hit = cache.get(accountId);
  const usable = hit && hit.key === key && now >= hit.asOf ? hit : undefined;
  if (usable && now - usable.asOf < LIVE_TTL_MS) return usable.days;
  const earlier =
    (usable && now - usable.asOf < LIVE_STALE_MS ? usable : undefined) ??
    (await countedAhead(ctx, accountId, from, to, now));
  if (!earlier) {
    const days = await computeDays(ctx, accountId, from, to, from * DAY_MS, now);
    remember(cache, accountId, { asOf: now, key, days });
    return days;
  }
  recountLater(ctx, accountId, from, to, now);
  const since = await computeDays(ctx, accountId, from, to, Math.max(earlier.asOf, from * DAY_MS));
  return sumDays(earlier.days, since);
}

function remember(cache: Map<string, Counted>, accountId: string, counted: Counted): void {
  cache.delete(accountId);
  cache.set(accountId, counted);
  if (cache.size > LIVE_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
}

/** The recounts in flight in this process: a closing app waits for them before its database closes. */
const recountsInFlight = new Set<Promise<void>>();

export async function recountsDone(): Promise<void> {
  await Promise.allSettled([...recountsInFlight]);
}

/** One recount at a time per account, started after the current answer (SQLite counts on this thread). */
function recountLater(ctx: AppContext, accountId: string, from: number, to: number, now: number): void {
  const running = ctx.caches.get("reports.live.recounts", () => new Set<string>());
  if (running.has(accountId)) return;
  running.add(accountId);
  const recount = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => countDayByDay(ctx, accountId, from, to, now))
    .then((days) => {
      const cache = ctx.caches.get("reports.live", () => new Map<string, Counted>());
      remember(cache, accountId, { asOf: now, key: `${from}:${to}`, days });
    })
    .catch((err: unknown) => ctx.log.warn({ err }, "recounting the dashboard's live days failed"))
    .finally(() => {
      running.delete(accountId);
      recountsInFlight.delete(recount);
    });
  recountsInFlight.add(recount);
}

/**
 * The figures of each of the last `days` UTC days up to today's (zeros for a quiet day), from the
 * cache of finished days where it has them, and the period's message figures per channel.
 */
async function dailyFigures(ctx: AppContext, accountId: string, days: number, now: number) {
  const { first, settledBefore, today } = dayWindow(now, days);
  const { cached, computed } = await settleDays(ctx, accountId, first, settledBefore, now);
  const live = await liveDays(ctx, accountId, Math.max(first, settledBefore), today + 1, now);
  const series: Array<{ date: string; figures: DayFigures }> = [];
  const perChannel = new Map<string, ChannelFigures>([["", { ...NO_CHANNEL_FIGURES }]]);
  for (let d = first; d <= today; d++) {
    const stored = cached.get(d);
    const f = stored
      ? ({ ...EMPTY, ...(JSON.parse(stored) as DayFigures) } as DayFigures)
      : (computed.get(d) ?? live.get(d) ?? EMPTY);
    for (const [channelId, c] of Object.entries(channelsOf(f))) {
      if (!perChannel.has(channelId)) perChannel.set(channelId, { ...NO_CHANNEL_FIGURES });
      addFigures(perChannel.get(channelId)!, c);
    }
    series.push({ date: new Date(d * DAY_MS).toISOString().slice(0, 10), figures: f });
  }
  return { first, today, series, perChannel };
}

export async function dashboard(ctx: AppContext, accountId: string, days: number, now = Date.now()) {
  const { first, today, series: figures, perChannel } = await dailyFigures(ctx, accountId, days, now);
  const series = figures.map(({ date, figures: f }) => {
    const { channels: _split, botReplies: _usageOnly, ...day } = f;
    return { date, ...day };
  });
  const total = series.reduce(
    (t, d) => ({
      inbound: t.inbound + d.inbound,
      outbound: t.outbound + d.outbound,
      sent: t.sent + d.sent,
      failed: t.failed + d.failed,
      botAnswers: t.botAnswers + d.botAnswers,
      botFallbacks: t.botFallbacks + d.botFallbacks,
      creditsUsed: Math.round((t.creditsUsed + d.creditsUsed) * 100) / 100,
    }),
    { ...EMPTY },
  );
  const delivered = total.sent + total.failed;
  return {
    days: series,
    totals: {
      ...total,
      deliverySuccessRate: delivered === 0 ? null : Math.round((total.sent / delivered) * 1000) / 10,
    },
    waitingForPerson: await countWaitingForPerson(ctx.db.kysely, accountId),
    byChannel: await byChannel(ctx, accountId, perChannel),
    // Calls of the bot's custom functions and the LLM's tokens in the period (read live: both are small).
    botFunctions: await functionCallStats(ctx.db.kysely, accountId, first * DAY_MS, (today + 1) * DAY_MS),
    llmTokens: await tokenTotals(ctx.db.kysely, accountId, first * DAY_MS, (today + 1) * DAY_MS),
  };
}

/**
 * The period's figures per channel: the custom channel first, then every channel of the account (with
 * zeros when quiet), then deleted channels that still had messages (type and name null).
 */
async function byChannel(ctx: AppContext, accountId: string, perChannel: Map<string, ChannelFigures>) {
  const channels = await listAllChannels(ctx.db.kysely, accountId);
  const known = new Set(channels.map((c) => c.id));
  const of = (id: string) => perChannel.get(id) ?? { ...NO_CHANNEL_FIGURES };
  return [
    { channelId: null, channelType: "custom" as const, name: null, ...of("") },
    ...channels.map((c) => ({ channelId: c.id, channelType: c.type, name: c.name, ...of(c.id) })),
    ...[...perChannel.keys()]
      .filter((id) => id !== "" && !known.has(id))
      .map((id) => ({ channelId: id, channelType: null, name: null, ...of(id) })),
  ];
}

export interface UsageDay {
  date: string;
  messagesIn: number;
  messagesOut: number;
  botReplies: number;
  creditsUsed: number;
  deliveriesSucceeded: number;
  deliveriesFailed: number;
}

/**
 * A sub-account's usage for its agency (issue 38): the dashboard's figures of the last `days` UTC
 * days under the names the agency reads them by, with the period's totals. The same cache serves
 * both, so the agency's numbers are the client's own dashboard numbers.
 */
export async function usage(ctx: AppContext, accountId: string, days: number, now = Date.now()) {
  const { series } = await dailyFigures(ctx, accountId, days, now);
  const rows: UsageDay[] = series.map(({ date, figures: f }) => ({
    date,
    messagesIn: f.inbound,
    messagesOut: f.outbound,
    botReplies: f.botReplies ?? f.botAnswers + f.botFallbacks,
    creditsUsed: f.creditsUsed,
    deliveriesSucceeded: f.sent,
    deliveriesFailed: f.failed,
  }));
  const totals = rows.reduce(
    (t, d) => ({
      messagesIn: t.messagesIn + d.messagesIn,
      messagesOut: t.messagesOut + d.messagesOut,
      botReplies: t.botReplies + d.botReplies,
      creditsUsed: Math.round((t.creditsUsed + d.creditsUsed) * 100) / 100,
      deliveriesSucceeded: t.deliveriesSucceeded + d.deliveriesSucceeded,
      deliveriesFailed: t.deliveriesFailed + d.deliveriesFailed,
    }),
    {
      messagesIn: 0,
      messagesOut: 0,
      botReplies: 0,
      creditsUsed: 0,
      deliveriesSucceeded: 0,
      deliveriesFailed: 0,
    },
  );
  const delivered = totals.deliveriesSucceeded + totals.deliveriesFailed;
  return {
    from: rows[0]!.date,
    to: rows.at(-1)!.date,
    days: rows,
    totals: {
      ...totals,
      deliverySuccessRate:
        delivered === 0 ? null : Math.round((totals.deliveriesSucceeded / delivered) * 1000) / 10,
    },
  };
}

export const USAGE_CSV_COLUMNS = [
  "date",
  "messages_in",
  "messages_out",
  "bot_replies",
  "credits_used",
  "deliveries_succeeded",
  "deliveries_failed",
] as const;

/** The usage as CSV: a row a day, oldest first (cells through platform/csv-out.ts). */
export function usageCsv(days: UsageDay[]): string {
  return csvText([
    USAGE_CSV_COLUMNS,
    ...days.map((d) => [
      d.date,
      d.messagesIn,
      d.messagesOut,
      d.botReplies,
      d.creditsUsed.toFixed(2),
      d.deliveriesSucceeded,
      d.deliveriesFailed,
    ]),
  ]);
}

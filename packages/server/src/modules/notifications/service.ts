// Telling people (issue 35, docs/automation.md#notifications). `notify` runs in the transaction of
// what happened: it queues the account event for the events webhook, writes each recipient's bell
// row, and an e-mail row for those who want e-mail, all in that one commit. E-mails go out as digests:
// one `notifications.digest` job per person and kind takes every waiting row at once, at most one
// e-mail per person per kind per NOTIFICATION_DIGEST_SECONDS (10 minutes), sent a minute after the first
// thing it tells (NOTIFICATION_GATHER_SECONDS) so that a burst is one e-mail, and queues it as an `email.send` job (platform/mail.ts)
// in the same commit, so a failing SMTP server is retried there and never blocks anything.
import type { Kysely, Transaction } from "kysely";
import { type Static, Type } from "typebox";
import type { Config } from "../../config.ts";
import type { Db } from "../../platform/db/index.ts";
import type { Database, UserRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { defineJob, enqueueJobs, type JobHandler, type JobResult } from "../../platform/jobs.ts";
import { enqueueEmail } from "../../platform/mail.ts";
import { linkBase } from "../../platform/public-url.ts";
import { loadBusinessHours, nextOpening } from "../accounts/business-hours.ts";
import { findAccountById } from "../accounts/repo.ts";
import { findUser, listUsers } from "../accounts/users-repo.ts";
import { enqueueAccountEvent } from "../delivery/outbound.ts";
import {
  builtinDefaults,
  isKind,
  KINDS,
  type Medium,
  NOTIFICATION_KINDS,
  type NotificationKind,
  type Preferences,
} from "./kinds.ts";
import * as repo from "./repo.ts";

type Q = Kysely<Database> | Transaction<Database>;

/** A digest lists this many notifications, then "and N more". */
const DIGEST_LINES = 20;

/** Who hears of it when the caller does not name the people. */
export type Audience = "team" | "managers";

export interface NotificationEvent {
  accountId: string;
  kind: NotificationKind;
  /** One line: the bell's title and a single e-mail's subject. */
  title: string;
  body: string;
  /** An app path (`/inbox/cv_…`), or null. */
  link: string | null;
  /** The people to tell; empty or absent: the audience. */
  userIds?: string[];
  audience?: Audience;
  /** The events webhook's payload (its `type` is the kind); null: no webhook event. */
  webhook: Record<string, unknown> | null;
  /** Told once an hour per key (periodic checks). */
  dedupeKey?: string;
  at: number;
}

/** Held until this time (a "needs a human" alert outside business hours). */
const DeferredPayload = Type.Object({
  accountId: Type.String(),
  kind: Type.String(),
  title: Type.String(),
  body: Type.String(),
  link: Type.Union([Type.String(), Type.Null()]),
  userIds: Type.Array(Type.String()),
  audience: Type.Union([Type.Literal("team"), Type.Literal("managers")]),
  webhook: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
});

export const deferredJob = defineJob("notifications.notify", DeferredPayload);

export const digestJob = defineJob(
  "notifications.digest",
  Type.Object({ userId: Type.String(), kind: Type.String() }),
  { subject: (p) => p.userId },
);

/**
 * Tells the people of an account, in the caller's transaction. A "needs a human" alert raised outside
 * the account's business hours waits for the next opening (the inbox shows it at once).
 */
export async function notify(trx: Q, event: NotificationEvent): Promise<void> {
  if (event.kind === "conversation.human_alert") {
    const opensAt = nextOpening(await loadBusinessHours(trx, event.accountId), event.at);
    if (opensAt > event.at) {
      await enqueueJobs(trx, [
        deferredJob.create(
          {
            accountId: event.accountId,
            kind: event.kind,
            title: event.title,
            body: event.body,
            link: event.link,
            userIds: event.userIds ?? [],
            audience: event.audience ?? "team",
            webhook: event.webhook,
          },
          { accountId: event.accountId, runAt: opensAt },
        ),
      ]);
      return;
    }
  }
  await fanOut(trx, event);
}

async function fanOut(trx: Q, event: NotificationEvent): Promise<void> {
  const { accountId, kind, at } = event;
  if (event.dedupeKey && (await repo.raisedSince(trx, accountId, event.dedupeKey, at - 3_600_000))) return;
  if (event.webhook) {
    const account = await findAccountById(trx, accountId);
    if (account?.events_webhook_url) await enqueueAccountEvent(trx, accountId, kind, event.webhook, at);
  }
  const recipients = await recipientsOf(trx, event);
  if (recipients.length === 0) return;
  const prefs = await preferencesOf(
    trx,
    accountId,
    recipients.map((u) => u.id),
  );
  const bell: repo.NotificationRow[] = [];
  const mail: repo.NotificationEmailRow[] = [];
  for (const user of recipients) {
    const p = prefs.get(user.id)?.[kind] ?? { email: true, app: true };
    if (p.app) {
      bell.push({
        id: newId("notification"),
        account_id: accountId,
        user_id: user.id,
        kind,
        title: event.title,
        body: event.body,
        link: event.link,
        dedupe_key: event.dedupeKey ?? null,
        created_at: at,
        read_at: null,
      });
    }
    if (p.email) {
      mail.push({
        id: newId("notificationEmail"),
        account_id: accountId,
        user_id: user.id,
        kind,
        title: event.title,
        body: event.body,
        link: event.link,
        created_at: at,
        batch_id: null,
        batched_at: null,
      });
    }
  }
  // A periodic check told nobody in the app (all switched off): still keep its key, once, so it is not
  // raised again every minute. The row is written read for the first recipient.
  if (event.dedupeKey && bell.length === 0 && recipients[0]) {
    bell.push({
      id: newId("notification"),
      account_id: accountId,
      user_id: recipients[0].id,
      kind,
      title: event.title,
      body: event.body,
      link: event.link,
      dedupe_key: event.dedupeKey,
      created_at: at,
      read_at: at,
    });
  }
  await repo.insertNotifications(trx, bell);
  await queueDigests(trx, accountId, kind, mail, at);
}

/** One digest job per person and kind: only the first waiting e-mail queues it. */
async function queueDigests(
  trx: Q,
  accountId: string,
  kind: NotificationKind,
  rows: repo.NotificationEmailRow[],
  at: number,
): Promise<void> {
  if (rows.length === 0) return;
  // A digest job already waiting for someone's earlier ones takes this one too.
  const waiting = await repo.peopleWithWaitingEmails(
    trx,
    accountId,
    rows.map((r) => r.user_id),
    kind,
  );
  const jobs = rows
    .filter((row) => !waiting.has(row.user_id))
    .map((row) => digestJob.create({ userId: row.user_id, kind }, { accountId, runAt: at }));
  await repo.insertEmails(trx, rows);
  await enqueueJobs(trx, jobs);
}

async function recipientsOf(trx: Q, event: NotificationEvent): Promise<UserRow[]> {
  const users = await listUsers(trx, event.accountId);
  if (event.userIds && event.userIds.length > 0) {
    const wanted = new Set(event.userIds);
    return users.filter((u) => wanted.has(u.id));
  }
  if ((event.audience ?? "managers") === "team") return users;
  return users.filter((u) => u.role === "owner" || u.role === "admin");
}

// ---- preferences ---------------------------------------------------------------------------------

function parsePrefs(
  json: string | undefined,
): Partial<Record<NotificationKind, Partial<Record<Medium, boolean>>>> {
  if (!json) return {};
  try {
    const v = JSON.parse(json) as unknown;
    return typeof v === "object" && v !== null
      ? (v as Record<NotificationKind, Record<Medium, boolean>>)
      : {};
  } catch {
    return {};
  }
}

function merge(base: Preferences, over: ReturnType<typeof parsePrefs>): Preferences {
  const out = structuredClone(base);
  for (const kind of NOTIFICATION_KINDS) {
    const o = over[kind];
    if (!o) continue;
    if (typeof o.email === "boolean") out[kind].email = o.email;
    if (typeof o.app === "boolean") out[kind].app = o.app;
  }
  return out;
}

/** Each person's effective preferences: their own over the account's defaults over everything on. */
export async function preferencesOf(
  db: Q,
  accountId: string,
  userIds: string[],
): Promise<Map<string, Preferences>> {
  const rows = await repo.settingsOf(db, accountId, userIds);
  const accountRow = rows.find((r) => r.scope === repo.ACCOUNT_SCOPE);
  const defaults = merge(builtinDefaults(), parsePrefs(accountRow?.prefs));
  const out = new Map<string, Preferences>();
  for (const id of userIds) {
    const own = rows.find((r) => r.scope === id);
    out.set(id, merge(defaults, parsePrefs(own?.prefs)));
  }
  return out;
}

export async function accountDefaults(db: Q, accountId: string) {
  const rows = await repo.settingsOf(db, accountId, []);
  const row = rows.find((r) => r.scope === repo.ACCOUNT_SCOPE);
  return {
    defaults: merge(builtinDefaults(), parsePrefs(row?.prefs)),
    creditsLowThreshold:
      row?.credits_low_threshold === null || row?.credits_low_threshold === undefined
        ? null
        : Number(row.credits_low_threshold) / 100,
  };
}

/** Checks a `{kind: {email?, app?}}` patch; errors name the field. */
export function checkPrefsPatch(value: Record<string, unknown>): ReturnType<typeof parsePrefs> {
  const out: ReturnType<typeof parsePrefs> = {};
  for (const [kind, v] of Object.entries(value)) {
    if (!isKind(kind)) {
      throw new AppError(
        "VALIDATION_ERROR",
        `preferences: unknown kind "${kind}" (one of ${NOTIFICATION_KINDS.join(", ")})`,
      );
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      throw new AppError("VALIDATION_ERROR", `preferences.${kind} must be an object {email, app}`);
    }
    const entry: Partial<Record<Medium, boolean>> = {};
    for (const [medium, on] of Object.entries(v as Record<string, unknown>)) {
      if (medium !== "email" && medium !== "app") {
        throw new AppError("VALIDATION_ERROR", `preferences.${kind}.${medium}: only email and app`);
      }
      if (typeof on !== "boolean") {
        throw new AppError("VALIDATION_ERROR", `preferences.${kind}.${medium} must be true or false`);
      }
      entry[medium] = on;
    }
    out[kind] = entry;
  }
  return out;
}

/** Applies a patch over the stored row of this scope (a person, or the account's defaults). */
export async function updatePreferences(
  db: Db,
  accountId: string,
  scope: string,
  patch: Record<string, unknown>,
  creditsLowThreshold?: number | null,
): Promise<void> {
  const checked = checkPrefsPatch(patch);
  if (
    creditsLowThreshold !== undefined &&
    creditsLowThreshold !== null &&
    (!Number.isFinite(creditsLowThreshold) ||
      creditsLowThreshold < 0 ||
      Math.round(creditsLowThreshold * 100) !== creditsLowThreshold * 100)
  ) {
    throw new AppError(
      "VALIDATION_ERROR",
      "creditsLowThreshold must be a number of credits >= 0 with at most two decimals, or null",
    );
  }
  await db.write(async (trx) => {
    const rows = await repo.settingsOf(trx, accountId, scope === repo.ACCOUNT_SCOPE ? [] : [scope]);
    const current = parsePrefs(rows.find((r) => r.scope === scope)?.prefs);
    for (const [kind, v] of Object.entries(checked)) {
      current[kind as NotificationKind] = { ...current[kind as NotificationKind], ...v };
    }
    await repo.upsertSettings(
      trx,
      accountId,
      scope,
      {
        prefs: JSON.stringify(current),
        ...(creditsLowThreshold === undefined
          ? {}
          : {
              creditsLowThreshold:
                creditsLowThreshold === null ? null : Math.round(creditsLowThreshold * 100),
            }),
      },
      Date.now(),
    );
  });
}

// ---- the bell ------------------------------------------------------------------------------------

export async function bellOf(
  db: Q,
  accountId: string,
  userId: string,
  page: { limit: number; before: string | null },
) {
  const [rows, unreadCount] = await Promise.all([
    repo.listNotifications(db, accountId, userId, { limit: page.limit + 1, before: page.before }),
    repo.countUnread(db, accountId, userId),
  ]);
  const more = rows.length > page.limit;
  const data = rows.slice(0, page.limit).map((r) => ({
    id: r.id,
    kind: r.kind,
    title: r.title,
    body: r.body,
    link: r.link,
    createdAt: new Date(Number(r.created_at)).toISOString(),
    readAt: r.read_at === null ? null : new Date(Number(r.read_at)).toISOString(),
  }));
  return { data, unreadCount, nextCursor: more ? (data.at(-1)?.id ?? null) : null };
}

export async function markBellRead(
  db: Db,
  accountId: string,
  userId: string,
  ids: string[] | null,
): Promise<void> {
  await db.write((trx) => repo.markRead(trx, accountId, userId, ids, Date.now()));
}

export function kindsView() {
  return NOTIFICATION_KINDS.map((kind) => ({
    kind,
    label: KINDS[kind].label,
    description: KINDS[kind].description,
  }));
}

// ---- jobs ------------------------------------------------------------------------------------------

export function deferredHandler(db: Db): JobHandler<Static<typeof DeferredPayload>> {
  return async (p) => {
    if (!isKind(p.kind)) return { dead: true, error: `unknown notification kind ${p.kind}` };
    await db.write((trx) =>
      fanOut(trx, {
        accountId: p.accountId,
        kind: p.kind as NotificationKind,
        title: p.title,
        body: p.body,
        link: p.link,
        userIds: p.userIds,
        audience: p.audience,
        webhook: p.webhook,
        at: Date.now(),
      }),
    );
    return undefined;
  };
}

/** The digest: takes every waiting e-mail of the person and kind, and queues one e-mail for them. */
export function digestHandler(db: Db, config: Config): JobHandler<{ userId: string; kind: string }> {
  return async ({ userId, kind }, job) => {
    const accountId = job.accountId;
    if (!accountId || !isKind(kind)) return { dead: true, error: "digest without an account or kind" };
    const gap = config.notificationDigestMs;
    return db.write(async (trx): Promise<JobResult> => {
      const now = Date.now();
      await repo.lockPerson(trx, accountId, userId, now);
      const { lastBatchedAt: last, oldestWaitingAt: oldest } = await repo.digestClock(
        trx,
        accountId,
        userId,
        kind,
      );
      // Too soon after the last e-mail of this kind: everything waiting goes in one, once the gap is over.
      if (last !== null && now < last + gap) return { retryAt: last + gap };
      // A burst is gathered: the e-mail waits a little after the first thing it tells.
      if (oldest === null) return undefined;
      if (now < oldest + config.notificationGatherMs)
        return { retryAt: oldest + config.notificationGatherMs };
      const user = await findUser(trx, accountId, userId);
      const batch = await repo.takeBatch(trx, accountId, userId, kind, newId("notificationEmail"), now);
      await repo.deleteOldBatched(trx, accountId, userId, kind, now - gap);
      // A removed teammate's waiting e-mails are dropped with the batch.
      if (user && batch.length > 0)
        await enqueueEmail(trx, accountId, digestEmail(config, user, kind, batch));
      return undefined;
    });
  };
}

function digestEmail(
  config: Config,
  user: UserRow,
  kind: NotificationKind,
  batch: repo.NotificationEmailRow[],
): { to: string; subject: string; text: string } {
  const base = linkBase(config, undefined, undefined);
  const url = (link: string | null) => (link ? `${base}${link}` : null);
  const greeting = `Hello${user.name ? ` ${user.name}` : ""},`;
  const footer = `\n--\nParley. Choose what you are told about on your account page: ${base}/account`;
  const first = batch[0];
  if (batch.length === 1 && first) {
    const link = url(first.link);
    return {
      to: user.email,
      subject: first.title,
      text: `${greeting}\n\n${first.body}\n${link ? `\nOpen it: ${link}\n` : ""}${footer}\n`,
    };
  }
  const lines = batch.slice(0, DIGEST_LINES).map((r) => {
    const link = url(r.link);
    return `- ${r.title}${link ? `\n  ${link}` : ""}`;
  });
  const more = batch.length > DIGEST_LINES ? `\nand ${batch.length - DIGEST_LINES} more.\n` : "";
  return {
    to: user.email,
    subject: KINDS[kind].digestSubject(batch.length),
    text: `${greeting}\n\n${KINDS[kind].digestSubject(batch.length)} since the last e-mail:\n\n${lines.join("\n")}\n${more}${footer}\n`,
  };
}

// ---- credits -------------------------------------------------------------------------------------

const credits = (hundredths: number) => (hundredths / 100).toFixed(2);

/**
 * In a debit's transaction: a balance that went from at or above a threshold to below it warns the
 * account's owners and admins (its own threshold) and its agency's (the agency's threshold). Each
 * crossing warns once; the balance must climb back above the threshold to warn again.
 */
export async function warnIfCreditsLow(
  trx: Q,
  accountId: string,
  before: number,
  after: number,
): Promise<void> {
  const watching = await repo.thresholdsWatching(trx, accountId);
  const at = Date.now();
  const crossed = (threshold: number) => before >= threshold && after < threshold;
  if (watching.own !== null && crossed(watching.own)) {
    await notify(trx, {
      accountId,
      kind: "credits.low",
      title: `Credits are low: ${credits(after)} left`,
      body: `The balance fell below ${credits(watching.own)} credits. Bot replies stop when it reaches zero.`,
      link: "/dashboard",
      audience: "managers",
      webhook: { account_id: accountId, balance: credits(after), threshold: credits(watching.own) },
      at,
    });
  }
  if (watching.agency && crossed(watching.agency.threshold)) {
    const { id, threshold, clientName } = watching.agency;
    await notify(trx, {
      accountId: id,
      kind: "credits.low",
      title: `${clientName} is low on credits: ${credits(after)} left`,
      body: `The client's balance fell below ${credits(threshold)} credits. Grant credits from the agency page.`,
      link: `/agency/${accountId}`,
      audience: "managers",
      webhook: {
        account_id: id,
        subaccount_id: accountId,
        balance: credits(after),
        threshold: credits(threshold),
      },
      at,
    });
  }
}

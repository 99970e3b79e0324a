// The notifications module's tables: notifications (the bell), notification_settings (preferences),
// notification_emails (waiting for their digest). Account id first in every function.
import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { Database, NotificationEmailsTable, NotificationsTable } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;

export type NotificationRow = Selectable<NotificationsTable>;
export type NotificationEmailRow = Selectable<NotificationEmailsTable>;

export const ACCOUNT_SCOPE = "account";

export async function insertNotifications(db: Q, rows: NotificationRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto("notifications").values(rows).execute();
}

/** Newest first, ids are time-ordered; `before` is the last id of the previous page. */
export async function listNotifications(
  db: Q,
  accountId: string,
  userId: string,
  page: { limit: number; before: string | null },
): Promise<NotificationRow[]> {
  let q = db
    .selectFrom("notifications")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("user_id", "=", userId);
  if (page.before) q = q.where("id", "<", page.before);
  return q.orderBy("id", "desc").limit(page.limit).execute();
}

export async function countUnread(db: Q, accountId: string, userId: string): Promise<number> {
  const row = await db
    .selectFrom("notifications")
    .select(sql<number>`count(*)`.as("n"))
    .where("account_id", "=", accountId)
    .where("user_id", "=", userId)
    .where("read_at", "is", null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Marks the person's own notifications read (all when ids is null); another's ids change nothing. */
export async function markRead(
  db: Q,
  accountId: string,
  userId: string,
  ids: string[] | null,
  at: number,
): Promise<void> {
  let q = db
    .updateTable("notifications")
    .set({ read_at: at })
    .where("account_id", "=", accountId)
    .where("user_id", "=", userId)
    .where("read_at", "is", null);
  if (ids) {
    if (ids.length === 0) return;
    q = q.where("id", "in", ids);
  }
  await q.execute();
}

/** Whether a notification with this key was raised in the account since `since`. */
export async function raisedSince(
  db: Q,
  accountId: string,
  dedupeKey: string,
  since: number,
): Promise<boolean> {
  const row = await db
    .selectFrom("notifications")
    .select("id")
    .where("account_id", "=", accountId)
    .where("dedupe_key", "=", dedupeKey)
    .where("created_at", ">=", since)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

// ---- preferences -----------------------------------------------------------------------------

export interface SettingsRow {
  scope: string;
  prefs: string;
  credits_low_threshold: number | null;
}

/** The account's row and the given people's rows (those that exist). */
export async function settingsOf(db: Q, accountId: string, scopes: string[]): Promise<SettingsRow[]> {
  return db
    .selectFrom("notification_settings")
    .select(["scope", "prefs", "credits_low_threshold"])
    .where("account_id", "=", accountId)
    .where("scope", "in", [ACCOUNT_SCOPE, ...scopes])
    .execute();
}

export async function upsertSettings(
  db: Q,
  accountId: string,
  scope: string,
  values: { prefs: string; creditsLowThreshold?: number | null },
  at: number,
): Promise<void> {
  const threshold =
    values.creditsLowThreshold === undefined ? {} : { credits_low_threshold: values.creditsLowThreshold };
  await db
    .insertInto("notification_settings")
    .values({ account_id: accountId, scope, prefs: values.prefs, updated_at: at, ...threshold })
    .onConflict((oc) =>
      oc.columns(["account_id", "scope"]).doUpdateSet({ prefs: values.prefs, updated_at: at, ...threshold }),
    )
    .execute();
}

/** The low-credits thresholds (hundredths) of these accounts, where set. */
export async function creditThresholds(db: Q, accountIds: string[]): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("notification_settings")
    .select(["account_id", "credits_low_threshold"])
    .where("account_id", "in", accountIds)
    .where("scope", "=", ACCOUNT_SCOPE)
    .where("credits_low_threshold", "is not", null)
    .execute();
  return new Map(rows.map((r) => [r.account_id, Number(r.credits_low_threshold)]));
}

// ---- e-mail digests ----------------------------------------------------------------------------

export async function insertEmails(db: Q, rows: NotificationEmailRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto("notification_emails").values(rows).execute();
}

/** Of these people, those who already have e-mails of this kind waiting (a digest job is queued). */
export async function peopleWithWaitingEmails(
  db: Q,
  accountId: string,
  userIds: string[],
  kind: string,
): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("notification_emails")
    .select("user_id")
    .distinct()
    .where("account_id", "=", accountId)
    .where("user_id", "in", userIds)
    .where("kind", "=", kind)
    .where("batch_id", "is", null)
    .execute();
  return new Set(rows.map((r) => r.user_id));
}

/**
 * A digest's clock, in one read: when the person's last digest of this kind was taken, and when the
 * oldest e-mail still waiting was written (null: never / none waits).
 */
export async function digestClock(
  db: Q,
  accountId: string,
  userId: string,
  kind: string,
): Promise<{ lastBatchedAt: number | null; oldestWaitingAt: number | null }> {
  const row = await db
    .selectFrom("notification_emails")
    .select([
      sql<number | null>`max(batched_at)`.as("last"),
      sql<number | null>`min(case when batch_id is null then created_at end)`.as("oldest"),
    ])
    .where("account_id", "=", accountId)
    .where("user_id", "=", userId)
    .where("kind", "=", kind)
    .executeTakeFirst();
  const num = (v: number | null | undefined) => (v === null || v === undefined ? null : Number(v));
  return { lastBatchedAt: num(row?.last), oldestWaitingAt: num(row?.oldest) };
}

/**
 * Takes every waiting e-mail of the person and kind into one batch (a conditional update: of two
 * digest runs, each row goes to one) and returns them, oldest first.
 */
export async function takeBatch(
  db: Q,
  accountId: string,
  userId: string,
  kind: string,
  batchId: string,
  at: number,
): Promise<NotificationEmailRow[]> {
  await db
    .updateTable("notification_emails")
    .set({ batch_id: batchId, batched_at: at })
    .where("account_id", "=", accountId)
    .where("user_id", "=", userId)
    .where("kind", "=", kind)
    .where("batch_id", "is", null)
    .execute();
  return db
    .selectFrom("notification_emails")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("batch_id", "=", batchId)
    .orderBy("id")
    .execute();
}

/** Batched rows older than `before` were sent (or given up): the newest batch alone keeps the clock. */
export async function deleteOldBatched(
  db: Q,
  accountId: string,
  userId: string,
  kind: string,
  before: number,
): Promise<void> {
  await db
    .deleteFrom("notification_emails")
    .where("account_id", "=", accountId)
    .where("user_id", "=", userId)
    .where("kind", "=", kind)
    .where("batched_at", "<", before)
    .execute();
}

/**
 * The low-credits thresholds that watch this account: its own, and its agency's (an agency's threshold
 * also watches each of its sub-accounts). One read, on the debit path.
 */
export async function thresholdsWatching(
  db: Q,
  accountId: string,
): Promise<{ own: number | null; agency: { id: string; threshold: number; clientName: string } | null }> {
  const rows = await db
    .selectFrom("accounts as a")
    .leftJoin("notification_settings as own", (j) =>
      j.onRef("own.account_id", "=", "a.id").on("own.scope", "=", ACCOUNT_SCOPE),
    )
    .leftJoin("notification_settings as parent", (j) =>
      j.onRef("parent.account_id", "=", "a.parent_account_id").on("parent.scope", "=", ACCOUNT_SCOPE),
    )
    .select([
      "a.name",
      "a.parent_account_id",
      "own.credits_low_threshold as own",
      "parent.credits_low_threshold as agency",
    ])
    .where("a.id", "=", accountId)
    .execute();
  const r = rows[0];
  if (!r) return { own: null, agency: null };
  return {
    own: r.own === null ? null : Number(r.own),
    agency:
      r.agency === null || r.parent_account_id === null
        ? null
        : { id: r.parent_account_id, threshold: Number(r.agency), clientName: r.name },
  };
}

/**
 * Locks the person's settings row (made if missing) until the transaction ends: two digests of one
 * person then run one after the other, and the second sees the first's batch (PostgreSQL; SQLite has
 * one writer anyway).
 */
export async function lockPerson(db: Q, accountId: string, userId: string, at: number): Promise<void> {
  await db
    .insertInto("notification_settings")
    .values({ account_id: accountId, scope: userId, prefs: "{}", updated_at: at })
    .onConflict((oc) => oc.columns(["account_id", "scope"]).doUpdateSet({ scope: userId }))
    .execute();
}

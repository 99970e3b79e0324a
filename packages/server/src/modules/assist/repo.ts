// Assist SQL: grants on agency sessions, the client's assist switch and its audit log. Every function
// takes the account id first (the agency's for grants, the client's for settings and the log).
import type { Kysely, Transaction } from "kysely";
import type { AccountRow, Database } from "../../platform/db/schema.ts";

type Q = Kysely<Database> | Transaction<Database>;
type AssistGrantRow = Database["assist_grants"];
type AuditRow = Database["audit_log"];

/** The agency session's live grant, if any. */
export async function findGrant(db: Q, agencyId: string, sessionId: string, now: number) {
  return db
    .selectFrom("assist_grants")
    .selectAll()
    .where("agency_account_id", "=", agencyId)
    .where("session_id", "=", sessionId)
    .where("expires_at", ">", now)
    .executeTakeFirst();
}

/** Starts or moves the session's assist (one client at a time); drops expired grants on the way. */
export async function putGrant(trx: Transaction<Database>, agencyId: string, grant: AssistGrantRow) {
  await trx.deleteFrom("assist_grants").where("expires_at", "<=", grant.created_at).execute();
  await trx
    .deleteFrom("assist_grants")
    .where("agency_account_id", "=", agencyId)
    .where("session_id", "=", grant.session_id)
    .execute();
  await trx.insertInto("assist_grants").values(grant).execute();
}

export async function deleteGrant(trx: Transaction<Database>, agencyId: string, sessionId: string) {
  await trx
    .deleteFrom("assist_grants")
    .where("agency_account_id", "=", agencyId)
    .where("session_id", "=", sessionId)
    .execute();
}

/** Turning assist off ends every assist running in the account. */
export async function deleteGrantsInto(trx: Transaction<Database>, accountId: string) {
  await trx.deleteFrom("assist_grants").where("account_id", "=", accountId).execute();
}

export async function isAssistAllowed(db: Q, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom("assist_settings")
    .select("allowed")
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return row ? Number(row.allowed) === 1 : true;
}

export async function setAssistAllowed(
  trx: Transaction<Database>,
  accountId: string,
  allowed: boolean,
  now: number,
) {
  const values = { allowed: allowed ? (1 as const) : (0 as const), updated_at: now };
  await trx
    .insertInto("assist_settings")
    .values({ account_id: accountId, ...values })
    .onConflict((oc) => oc.column("account_id").doUpdateSet(values))
    .execute();
}

export async function insertAuditEntry(trx: Transaction<Database>, accountId: string, entry: AuditRow) {
  await trx
    .insertInto("audit_log")
    .values({ ...entry, account_id: accountId })
    .execute();
}

/** Newest first: ids are time-sortable, so the page continues below the cursor's id. */
export async function listAuditEntries(
  db: Q,
  accountId: string,
  page: { before: string | null; limit: number },
): Promise<AuditRow[]> {
  let q = db.selectFrom("audit_log").selectAll().where("account_id", "=", accountId);
  if (page.before) q = q.where("id", "<", page.before);
  return q
    .orderBy("id", "desc")
    .limit(page.limit + 1)
    .execute();
}

/** The agency's clients (sub-accounts) whose name matches `search`, by name. */
export async function listClients(
  db: Q,
  agencyId: string,
  search: string,
  limit: number,
): Promise<Array<Pick<AccountRow, "id" | "name" | "credits" | "suspended_at">>> {
  let q = db
    .selectFrom("accounts")
    .select(["id", "name", "credits", "suspended_at"])
    .where("parent_account_id", "=", agencyId)
    .where("kind", "=", "subaccount");
  if (search) {
    const like = `%${search.toLowerCase().replace(/[%_\\]/g, "")}%`;
    q = q.where((eb) => eb(eb.fn("lower", ["name"]), "like", like));
  }
  return q.orderBy("name", "asc").orderBy("id", "asc").limit(limit).execute();
}

/** Open conversations that need a human, per client of `agencyId`. */
export async function countNeedsHuman(db: Q, agencyId: string, clientIds: string[]) {
  if (clientIds.length === 0) return new Map<string, number>();
  const rows = await db
    .selectFrom("conversations")
    .innerJoin("accounts", "accounts.id", "conversations.account_id")
    .select(["conversations.account_id as accountId", (eb) => eb.fn.countAll<number>().as("n")])
    .where("accounts.parent_account_id", "=", agencyId)
    .where("conversations.account_id", "in", clientIds)
    .where("conversations.human_alert", "=", 1)
    .where("conversations.status", "=", "open")
    .groupBy("conversations.account_id")
    .execute();
  return new Map(rows.map((r) => [r.accountId, Number(r.n)]));
}

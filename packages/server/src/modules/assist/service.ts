// Agency assist (issue 38): an agency owner or admin works inside one of its clients from the same
// signed-in browser. Assist is a short-lived grant on the agency session (one client at a time), never
// a second password or cookie: the session hook reads the grant and, on every route except the few
// that belong to the agency person (switcher, end, sign-out), acts as an admin of that client only.
// Every state-changing request made so is written to the client's audit log, which the client reads;
// the client can refuse assist altogether.
import type { AppContext } from "../../context.ts";
import type { AccountRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { newId } from "../../platform/ids.ts";
import { DEFAULT_PAGE_SIZE, decodeCursor, toPage } from "../../platform/pagination.ts";
import { findAccountById } from "../accounts/repo.ts";
import { isSuspended, suspendedError } from "../accounts/service.ts";
import type { SessionInfo } from "../accounts/sessions.ts";
import { requireManager } from "../accounts/team.ts";
import * as repo from "./repo.ts";

/** Who is assisting, shown in the banner and written in every audit entry. */
export interface Assist {
  agencyAccountId: string;
  agencyName: string;
  userId: string;
  userEmail: string;
  userName: string | null;
  clientId: string;
  clientName: string;
  expiresAt: number;
}

const canAssist = (info: SessionInfo) =>
  info.account.kind === "agency" && (info.user.role === "owner" || info.user.role === "admin");

/**
 * The session as it acts while assisting a client, or null when it assists no one (or the grant ran
 * out, the client turned assist off, left the agency, or the person lost their owner/admin role).
 * The person acts as an admin of the client, under their own user id and e-mail.
 */
export async function resolveAssist(
  ctx: AppContext,
  info: SessionInfo,
): Promise<{ info: SessionInfo; assist: Assist } | null> {
  if (!canAssist(info)) return null;
  const grant = await repo.findGrant(ctx.db.kysely, info.account.id, info.session.id, Date.now());
  if (!grant) return null;
  const client = await findAccountById(ctx.db.kysely, grant.account_id);
  if (!client || client.parent_account_id !== info.account.id || client.kind !== "subaccount") return null;
  // A client suspended meanwhile ends the assist: the person is back in the agency, not locked out.
  if (isSuspended(client)) return null;
  if (!(await repo.isAssistAllowed(ctx.db.kysely, client.id))) return null;
  return {
    info: {
      account: client,
      session: { ...info.session, account_id: client.id },
      user: { ...info.user, account_id: client.id, role: "admin" },
    },
    assist: {
      agencyAccountId: info.account.id,
      agencyName: info.account.name,
      userId: info.user.id,
      userEmail: info.user.email,
      userName: info.user.name,
      clientId: client.id,
      clientName: client.name,
      expiresAt: Number(grant.expires_at),
    },
  };
}

/** The agency's own client, or SUBACCOUNT_NOT_FOUND (another agency's is not told apart). */
async function clientOf(ctx: AppContext, agencyId: string, clientId: string): Promise<AccountRow> {
  const client = await findAccountById(ctx.db.kysely, clientId);
  if (!client || client.parent_account_id !== agencyId || client.kind !== "subaccount") {
    throw new AppError("SUBACCOUNT_NOT_FOUND", `No sub-account ${clientId} in this agency`);
  }
  return client;
}

function requireAssistant(info: SessionInfo): void {
  if (info.account.kind !== "agency") {
    throw new AppError("NOT_AGENCY", "Only agency accounts can assist their clients");
  }
  if (!canAssist(info))
    throw new AppError("FORBIDDEN", "Only the agency's owner and admins can assist clients");
}

/** Starts assisting `clientId`, or moves the running assist there; the entry opens the client's log. */
export async function startAssist(ctx: AppContext, info: SessionInfo, clientId: string): Promise<Assist> {
  requireAssistant(info);
  const client = await clientOf(ctx, info.account.id, clientId);
  if (isSuspended(client)) throw suspendedError();
  if (!(await repo.isAssistAllowed(ctx.db.kysely, client.id))) {
    throw new AppError("FORBIDDEN", `${client.name} turned agency assist off in its settings`);
  }
  const now = Date.now();
  const expiresAt = now + ctx.config.assistTtlMs;
  const assist: Assist = {
    agencyAccountId: info.account.id,
    agencyName: info.account.name,
    userId: info.user.id,
    userEmail: info.user.email,
    userName: info.user.name,
    clientId: client.id,
    clientName: client.name,
    expiresAt,
  };
  await ctx.db.write(async (trx) => {
    await repo.putGrant(trx, info.account.id, {
      session_id: info.session.id,
      account_id: client.id,
      agency_account_id: info.account.id,
      agency_user_id: info.user.id,
      created_at: now,
      expires_at: expiresAt,
    });
    await repo.insertAuditEntry(trx, client.id, auditRow(assist, "POST", "assist started", null, 200, now));
  });
  return assist;
}

export async function endAssist(ctx: AppContext, info: SessionInfo): Promise<void> {
  await ctx.db.write((trx) => repo.deleteGrant(trx, info.account.id, info.session.id));
}

/** The switcher's list: the agency's clients with their balance and what needs a human there. */
export async function listClients(ctx: AppContext, info: SessionInfo, search: string) {
  requireAssistant(info);
  const clients = await repo.listClients(ctx.db.kysely, info.account.id, search.trim(), 200);
  const needs = await repo.countNeedsHuman(
    ctx.db.kysely,
    info.account.id,
    clients.map((c) => c.id),
  );
  return clients.map((c) => ({
    id: c.id,
    name: c.name,
    balance: Number(c.credits) / 100,
    needsHuman: needs.get(c.id) ?? 0,
    suspended: isSuspended(c),
  }));
}

export async function assistAllowed(ctx: AppContext, info: SessionInfo): Promise<boolean> {
  requireManager(info);
  return repo.isAssistAllowed(ctx.db.kysely, info.account.id);
}

/** The client's switch; off ends every assist running in the account at once. */
export async function setAssistAllowed(
  ctx: AppContext,
  info: SessionInfo,
  allowed: boolean,
): Promise<boolean> {
  requireManager(info);
  await ctx.db.write(async (trx) => {
    await repo.setAssistAllowed(trx, info.account.id, allowed, Date.now());
    if (!allowed) await repo.deleteGrantsInto(trx, info.account.id);
  });
  return allowed;
}

function auditRow(
  assist: Assist,
  method: string,
  route: string,
  objectId: string | null,
  status: number,
  now: number,
) {
  return {
    id: newId("auditEntry"),
    account_id: assist.clientId,
    created_at: now,
    actor_user_id: assist.userId,
    actor_email: assist.userEmail,
    actor_name: assist.userName,
    agency_account_id: assist.agencyAccountId,
    agency_name: assist.agencyName,
    method,
    route,
    object_id: objectId,
    status,
  };
}

/** One state-changing request made while assisting, into the client's log. */
export async function recordAudit(
  ctx: AppContext,
  assist: Assist,
  what: { method: string; route: string; objectId: string | null; status: number },
): Promise<void> {
  const row = auditRow(assist, what.method, what.route, what.objectId, what.status, Date.now());
  await ctx.db.write((trx) => repo.insertAuditEntry(trx, assist.clientId, row));
}

export async function pageAudit(
  ctx: AppContext,
  accountId: string,
  query: { limit?: number; cursor?: string },
) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await repo.listAuditEntries(ctx.db.kysely, accountId, {
    before: decodeCursor(query.cursor),
    limit,
  });
  return toPage(
    rows,
    limit,
    (r) => r.id,
    (r) => ({
      id: r.id,
      createdAt: new Date(Number(r.created_at)).toISOString(),
      actor: { userId: r.actor_user_id, email: r.actor_email, name: r.actor_name },
      agency: { id: r.agency_account_id, name: r.agency_name },
      method: r.method,
      route: r.route,
      objectId: r.object_id,
      status: Number(r.status),
    }),
  );
}

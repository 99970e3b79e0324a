// The incoming hot path on PostgreSQL: concurrent requests' messages are written by ONE statement in
// one round trip (a data-modifying CTE over arrays, a named prepared statement planned once per
// connection), so a burst costs one commit and one conversation update instead of one each. It takes
// the common case only: a text message without attachment from a sender whose contact and custom-
// channel conversation (channel_id '') exist. Every other message, a repeated messageSid, and any
// batch that fails take the general path (service.ts), which answers exactly as before.
import type { AppContext } from "../../context.ts";
import { Batcher } from "../../platform/db/batcher.ts";
import { takesBatchedPath } from "../../platform/db/index.ts";
import { newId } from "../../platform/ids.ts";
import { JOBS_ENQUEUED, pgInsertJobsFrom } from "../../platform/jobs.ts";
import { pgTouchConversationsFrom } from "../conversations/repo.ts";
import { BOT_REPLY_JOB } from "./jobs.ts";

export interface BatchedIncoming {
  accountId: string;
  messageSid: string;
  fromId: string;
  toId: string;
  body: string;
  status: string;
  channel: string | null;
  campaignId: string | null;
}

const COLUMNS = [
  ["id", "text"],
  ["account_id", "text"],
  ["external_id", "text"],
  ["from_id", "text"],
  ["to_id", "text"],
  ["body", "text"],
  ["status", "text"],
  ["channel", "text"],
  ["campaign_id", "text"],
  ["job_id", "text"],
  ["at", "bigint"],
  ["ord", "int"],
] as const;

const STATEMENT = {
  name: "parley_incoming_batch_v3",
  text: `
    with input as (
      select * from unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(", ")})
        as t(${COLUMNS.map(([name]) => name).join(", ")})
    ),
    matched as (
      select i.*, c.id as contact_id, cv.id as conversation_id
      from input i
      join contacts c on c.account_id = i.account_id and c.external_id = i.from_id
      join conversations cv on cv.account_id = i.account_id and cv.contact_id = c.id and cv.channel_id = ''
    ),
    inserted as (
      insert into messages (id, account_id, conversation_id, contact_id, direction, type, sender, body,
        status, channel, campaign_id, external_id, from_id, to_id, created_at, updated_at)
      select id, account_id, conversation_id, contact_id, 'inbound', 'text', 'contact', body, status,
        channel, campaign_id, external_id, from_id, to_id, at, at
      from matched
      order by ord
      on conflict do nothing
      returning id, account_id, conversation_id, created_at as at
    ),
    touched as (${pgTouchConversationsFrom("inserted")}),
    queued as (${pgInsertJobsFrom(`(
      select m.job_id as id, '${BOT_REPLY_JOB}' as type, ins.account_id, ins.id as subject_id,
        '{"messageId":"' || ins.id || '"}' as payload, ins.at as run_at
      from inserted ins join matched m on m.id = ins.id) as bot_jobs`)})
    select ins.id, ins.conversation_id from inserted ins`,
};

type Outcome = { messageId: string; conversationId: string } | null;

/** The app's batcher: the message id when the batch stored it, null when the general path must. */
function batcherOf(ctx: AppContext): Batcher<BatchedIncoming, Outcome> & { clear(): void } {
  return ctx.caches.get("messaging.pgIncoming", () => {
    const batcher = new Batcher<BatchedIncoming, Outcome>(async (items) => {
      const now = Date.now();
      const ids = items.map(() => newId("message"));
      const columns: unknown[][] = COLUMNS.map(() => []);
      items.forEach((m, i) => {
        const row = [
          ids[i],
          m.accountId,
          m.messageSid,
          m.fromId,
          m.toId,
          m.body,
          m.status,
          m.channel,
          m.campaignId,
          newId("job"),
          now,
          i,
        ];
        row.forEach((v, c) => {
          columns[c]!.push(v);
        });
      });
      const rows = await ctx.db.runNamed!<{ id: string; conversation_id: string }>(STATEMENT, columns, [
        JOBS_ENQUEUED,
      ]);
      const stored = new Map(rows.map((r) => [r.id, r.conversation_id]));
      return ids.map((id) => {
        const conversationId = stored.get(id!);
        return conversationId === undefined ? null : { messageId: id!, conversationId };
      });
    });
    return Object.assign(batcher, { clear: () => {} });
  });
}

/** True when this message may take the batched path. */
export function batchable(ctx: AppContext): boolean {
  return takesBatchedPath(ctx.db);
}

/** Stores the message through the batch: its id, or null when the general path must take it. */
export async function storeBatched(ctx: AppContext, message: BatchedIncoming): Promise<string | null> {
  try {
    const stored = await batcherOf(ctx).submit(message);
    if (!stored) return null;
    // Written in autocommit (outside db.write), so the inbox is told here, after the commit.
    ctx.live.publish(message.accountId, { conversationId: stored.conversationId });
    return stored.messageId;
  } catch {
    // The batch failed as a whole (a deadlock with another node, a lost connection): every message
    // of it retries alone on the general path, so only a message that fails there fails its request.
    return null;
  }
}

/** Batches run, messages they held and batches that failed, in this app (zero on SQLite). */
export function pgIncomingStats(ctx: AppContext): { batches: number; items: number; failed: number } {
  return batchable(ctx) ? { ...batcherOf(ctx).stats } : { batches: 0, items: 0, failed: 0 };
}

// The bot's records (function calls, replies, summaries) and the bot job's reads; the campaigns table
// is the campaigns module's (campaigns/repo.ts). Account id first everywhere.
import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { Dialect } from "../../platform/db/index.ts";
import type {
  BotFunctionCallsTable,
  BotRepliesTable,
  ConversationSummariesTable,
  Database,
  MessageRow,
} from "../../platform/db/schema.ts";

export type BotFunctionCallRow = Selectable<BotFunctionCallsTable>;
export type ConversationSummaryRow = Selectable<ConversationSummariesTable>;

type Q = Kysely<Database> | Transaction<Database>;

/** What the reply job reads about its inbound message before it decides anything. */
export interface ReplyInput {
  message: MessageRow;
  /** A reply to it exists already (external id "bot:<message id>"): a twin run answered it. */
  replied: boolean;
  /** The campaign whose outgoing first message reached this contact last (routing goes there). */
  outgoingCampaignId: string | null;
  /**
   * The choices of the bot's "Did you mean" when that is the text right before this message in the
   * conversation (the customer may be picking one), else null: anything said in between (a person's
   * reply, another customer message) makes the choices stale.
   */
  pendingSuggestions: string | null;
}

/**
 * The inbound message by id (the job payload carries no account id of its own) with what the reply
 * needs about its past, in one statement: each part is an indexed look-up (messages_external_uq,
 * outgoing_sends_contact_idx, the contact's messages by id).
 */
export async function readReplyInput(db: Q, messageId: string): Promise<ReplyInput | undefined> {
  return (await readReplyInputs(db, [messageId])).get(messageId);
}

/**
 * readReplyInput for several messages (replies due together) in one statement, by message id. The
 * sub-queries' constants are literals: SQLite plans correlated sub-queries with bound limits slower.
 */
export async function readReplyInputs(db: Q, messageIds: string[]): Promise<Map<string, ReplyInput>> {
  const inputs = new Map<string, ReplyInput>();
  if (messageIds.length === 0) return inputs;
  const rows = await db
    .selectFrom("messages as m")
    .selectAll("m")
    .select((eb) => [
      eb
        .exists(
          eb
            .selectFrom("messages as r")
            .select("r.id")
            .whereRef("r.account_id", "=", "m.account_id")
            .where("r.external_id", "=", sql<string>`'bot:' || m.id`),
        )
        .as("reply_exists"),
      eb
        .selectFrom("outgoing_sends as o")
        .select("o.campaign_id")
        .whereRef("o.account_id", "=", "m.account_id")
        .whereRef("o.contact_id", "=", "m.contact_id")
        .where("o.outcome", "=", sql.lit("sent"))
        .orderBy("o.created_at", "desc")
        .limit(sql.lit(1))
        .as("outgoing_campaign_id"),
      eb
        .selectFrom("messages as p")
        .select(sql<string | null>`case when p.sender = 'bot' then p.suggestions end`.as("s"))
        .whereRef("p.account_id", "=", "m.account_id")
        .whereRef("p.contact_id", "=", "m.contact_id")
        .whereRef("p.conversation_id", "=", "m.conversation_id")
        .whereRef("p.id", "<", "m.id")
        .where("p.type", "=", sql.lit("text"))
        .orderBy("p.id", "desc")
        .limit(sql.lit(1))
        .as("pending_suggestions"),
    ])
    .where((eb) =>
      messageIds.length === 1 ? eb("m.id", "=", messageIds[0] as string) : eb("m.id", "in", messageIds),
    )
    .execute();
  for (const row of rows) {
    const { reply_exists, outgoing_campaign_id, pending_suggestions, ...message } = row;
    inputs.set(message.id, {
      message,
      replied: Boolean(Number(reply_exists)),
      outgoingCampaignId: outgoing_campaign_id ?? null,
      pendingSuggestions: pending_suggestions ?? null,
    });
  }
  return inputs;
}

/**
 * True while a conversation's fallback still waits for an answer: its last outbound message is a bot
 * fallback and its human alert is up (a person clearing the alert, replying, or the bot answering ends
 * the run). Called inside the reply's transaction before a fallback is written. On PostgreSQL the
 * conversation row is locked first, so concurrent replies in one conversation (several jobs, several
 * workers) decide one after the other, and each statement after the lock sees what the one before
 * committed (READ COMMITTED); SQLite has one writer at a time.
 */
export async function fallbackAwaitsAnswer(
  trx: Transaction<Database>,
  dialect: Dialect,
  accountId: string,
  conversationId: string,
): Promise<boolean> {
  const q = trx
    .selectFrom("conversations")
    .select(["contact_id", "human_alert"])
    .where("account_id", "=", accountId)
    .where("id", "=", conversationId);
  const conversation = await (dialect === "postgres" ? q.forUpdate() : q).executeTakeFirst();
  if (!conversation || Number(conversation.human_alert) !== 1) return false;
  // A conversation's messages are its contact's (messages_contact_idx orders them by id).
  const last = await trx
    .selectFrom("messages")
    .select(["sender", "bot_outcome"])
    .where("account_id", "=", accountId)
    .where("contact_id", "=", conversation.contact_id)
    .where("conversation_id", "=", conversationId)
    .where("direction", "=", "outbound")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return last?.sender === "bot" && last.bot_outcome === "fallback";
}

/**
 * The last `limit` text messages of a conversation up to and including `uptoId`, oldest first, read
 * through its contact's index (messages_contact_idx).
 */
export async function recentHistory(
  db: Q,
  accountId: string,
  contactId: string,
  uptoId: string,
  limit: number,
  conversationId: string,
): Promise<Pick<MessageRow, "id" | "direction" | "body">[]> {
  const rows = await db
    .selectFrom("messages")
    .select(["id", "direction", "body"])
    .where("account_id", "=", accountId)
    .where("contact_id", "=", contactId)
    // A contact has a conversation per channel: only this one's messages are its history.
    .where("conversation_id", "=", conversationId)
    .where("id", "<=", uptoId)
    .where("type", "=", "text")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.reverse();
}

// --- Function calls, token use per reply, hand-over summaries (all keyed by account first) ---

export async function insertFunctionCall(db: Q, row: Insertable<BotFunctionCallsTable>): Promise<void> {
  await db.insertInto("bot_function_calls").values(row).execute();
}

/** A conversation's function calls, the newest `limit`, oldest first. */
export async function listFunctionCalls(
  db: Q,
  accountId: string,
  conversationId: string,
  limit: number,
): Promise<BotFunctionCallRow[]> {
  const rows = await db
    .selectFrom("bot_function_calls")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("conversation_id", "=", conversationId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.reverse();
}

/** Calls and failures per function name since `from`. */
export async function functionCallStats(
  db: Q,
  accountId: string,
  from: number,
  to: number,
): Promise<{ name: string; calls: number; failures: number }[]> {
  const rows = await db
    .selectFrom("bot_function_calls")
    .select((eb) => [
      "name",
      eb.fn.countAll<number | string>().as("calls"),
      eb.fn
        .sum<number | string | null>(eb.case().when("status", "!=", "ok").then(1).else(0).end())
        .as("failures"),
    ])
    .where("account_id", "=", accountId)
    .where("created_at", ">=", from)
    .where("created_at", "<", to)
    .groupBy("name")
    .orderBy("name")
    .execute();
  return rows.map((r) => ({ name: r.name, calls: Number(r.calls), failures: Number(r.failures ?? 0) }));
}

export async function insertBotReply(db: Q, row: Insertable<BotRepliesTable>): Promise<void> {
  await db.insertInto("bot_replies").values(row).execute();
}

/** Input and output tokens of the LLM's bot replies since `from`. */
export async function tokenTotals(
  db: Q,
  accountId: string,
  from: number,
  to: number,
): Promise<{ input: number; output: number }> {
  const row = await db
    .selectFrom("bot_replies")
    .select((eb) => [
      eb.fn.sum<number | string | null>("input_tokens").as("input"),
      eb.fn.sum<number | string | null>("output_tokens").as("output"),
    ])
    .where("account_id", "=", accountId)
    .where("created_at", ">=", from)
    .where("created_at", "<", to)
    .executeTakeFirst();
  return { input: Number(row?.input ?? 0), output: Number(row?.output ?? 0) };
}

/** Token use of these bot replies, by message id. */
export async function tokensOfReplies(
  db: Q,
  accountId: string,
  messageIds: string[],
): Promise<Map<string, { input: number; output: number }>> {
  const out = new Map<string, { input: number; output: number }>();
  if (messageIds.length === 0) return out;
  const rows = await db
    .selectFrom("bot_replies")
    .select(["message_id", "input_tokens", "output_tokens"])
    .where("account_id", "=", accountId)
    .where("message_id", "in", messageIds)
    .execute();
  for (const r of rows) out.set(r.message_id, { input: r.input_tokens, output: r.output_tokens });
  return out;
}

export async function findSummary(
  db: Q,
  accountId: string,
  conversationId: string,
): Promise<ConversationSummaryRow | undefined> {
  return db
    .selectFrom("conversation_summaries")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("conversation_id", "=", conversationId)
    .executeTakeFirst();
}

/** One summary per conversation: a newer one replaces it. */
export async function saveSummary(db: Q, row: Insertable<ConversationSummariesTable>): Promise<void> {
  await db
    .insertInto("conversation_summaries")
    .values(row)
    .onConflict((oc) =>
      oc.column("conversation_id").doUpdateSet({
        engine: row.engine,
        summary: row.summary ?? null,
        questions: row.questions ?? "[]",
        reason: row.reason ?? null,
        up_to_message_id: row.up_to_message_id ?? null,
        created_at: row.created_at,
      }),
    )
    .execute();
}

/** An erased contact's conversations take their calls, usage and summaries with them. */
export async function deleteBotRecordsOfConversations(
  db: Q,
  accountId: string,
  conversationIds: string[],
): Promise<void> {
  if (conversationIds.length === 0) return;
  for (const table of ["bot_function_calls", "bot_replies", "conversation_summaries"] as const) {
    await db
      .deleteFrom(table)
      .where("account_id", "=", accountId)
      .where("conversation_id", "in", conversationIds)
      .execute();
  }
}

export type ThreadMessage = Pick<MessageRow, "id" | "direction" | "sender" | "body" | "bot_outcome">;

/** A conversation's last `limit` text messages, oldest first (through its contact's index). */
export async function lastTextMessages(
  db: Q,
  accountId: string,
  conversation: { id: string; contact_id: string },
  limit: number,
): Promise<ThreadMessage[]> {
  const rows = await db
    .selectFrom("messages")
    .select(["id", "direction", "sender", "body", "bot_outcome"])
    .where("account_id", "=", accountId)
    .where("contact_id", "=", conversation.contact_id)
    .where("conversation_id", "=", conversation.id)
    .where("type", "=", "text")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.reverse();
}

// --- Follow-ups (follow-ups.ts) ---

export type ConversationMessage = Pick<
  MessageRow,
  "id" | "direction" | "sender" | "bot_outcome" | "channel" | "to_id" | "created_at"
>;

const CONVERSATION_MESSAGE = [
  "id",
  "direction",
  "sender",
  "bot_outcome",
  "channel",
  "to_id",
  "created_at",
] as const;

/** A conversation's newest message of any kind (through its contact's index, messages_contact_idx). */
export async function newestMessageOf(
  db: Q,
  accountId: string,
  conversation: { id: string; contact_id: string },
): Promise<ConversationMessage | undefined> {
  return db
    .selectFrom("messages")
    .select(CONVERSATION_MESSAGE)
    .where("account_id", "=", accountId)
    .where("contact_id", "=", conversation.contact_id)
    .where("conversation_id", "=", conversation.id)
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/**
 * Who started a run of follow-ups: the newest outbound message of the conversation that is not itself a
 * follow-up, up to `uptoId` (its sender: "bot" for a bot reply, "human" for a person's reply).
 */
export async function followUpRootOf(
  db: Q,
  accountId: string,
  conversation: { id: string; contact_id: string },
  uptoId: string,
): Promise<ConversationMessage | undefined> {
  return db
    .selectFrom("messages")
    .select(CONVERSATION_MESSAGE)
    .where("account_id", "=", accountId)
    .where("contact_id", "=", conversation.contact_id)
    .where("conversation_id", "=", conversation.id)
    .where("id", "<=", uptoId)
    .where("direction", "=", "outbound")
    .where((eb) => eb.or([eb("bot_outcome", "is", null), eb("bot_outcome", "!=", "follow_up")]))
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** When the customer last wrote in the conversation (the 24-hour window of WhatsApp and Meta starts there). */
export async function lastInboundAt(
  db: Q,
  accountId: string,
  conversation: { id: string; contact_id: string },
): Promise<number | null> {
  const row = await db
    .selectFrom("messages")
    .select("created_at")
    .where("account_id", "=", accountId)
    .where("contact_id", "=", conversation.contact_id)
    .where("conversation_id", "=", conversation.id)
    .where("direction", "=", "inbound")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.created_at) : null;
}

/**
 * A campaign's follow-ups (through messages_follow_up_idx, whose condition is written as a literal so
 * both planners use it) and how many were answered: the next message of the conversation is inbound.
 */
export async function followUpFigures(
  db: Q,
  accountId: string,
  campaignId: string,
): Promise<{ sent: number; answered: number }> {
  const row = await db
    .selectFrom("messages as f")
    .select([
      sql<number | string>`count(*)`.as("sent"),
      sql<number | string | null>`sum(case when (
          select n.direction from messages n
          where n.account_id = f.account_id and n.contact_id = f.contact_id
            and n.conversation_id = f.conversation_id and n.id > f.id
          order by n.id limit 1) = 'inbound' then 1 else 0 end)`.as("answered"),
    ])
    .where("f.account_id", "=", accountId)
    .where("f.campaign_id", "=", campaignId)
    .where("f.bot_outcome", "=", sql.lit("follow_up"))
    .executeTakeFirstOrThrow();
  return { sent: Number(row.sent ?? 0), answered: Number(row.answered ?? 0) };
}

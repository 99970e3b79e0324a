// Exports (issue 38): an account's contacts (with labels and lists) and conversations (with their
// messages) as CSV or JSON Lines, produced page by page as the client reads them, so memory stays
// flat whatever the account's size. Cells go through platform/csv-out.ts (spreadsheet-safe).
import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { csvText } from "../../platform/csv-out.ts";
import type { Db } from "../../platform/db/index.ts";
import type { MessageRow } from "../../platform/db/schema.ts";
import { iso } from "../../platform/text.ts";
import { contactView } from "../contacts/service.ts";
import { messageView } from "../messaging/view.ts";
import * as repo from "./repo.ts";

export type ExportKind = "contacts" | "conversations";
export type ExportFormat = "csv" | "jsonl";

const CONTACTS_PER_PAGE = 1_000;
const CONVERSATIONS_PER_PAGE = 100;
const MESSAGES_PER_READ = 2_000;

const CONTACT_COLUMNS = [
  "id",
  "firstName",
  "lastName",
  "phone",
  "email",
  "channelId",
  "labels",
  "lists",
  "botActive",
  "smsOptedOutAt",
  "createdAt",
  "updatedAt",
];

const CONVERSATION_COLUMNS = [
  "conversationId",
  "contactId",
  "contactName",
  "contactPhone",
  "contactEmail",
  "contactChannelId",
  "channel",
  "channelId",
  "status",
  "assigneeId",
  "conversationCreatedAt",
  "messageId",
  "messageCreatedAt",
  "direction",
  "sender",
  "type",
  "body",
  "messageStatus",
  "mediaContentType",
  "mediaUrl",
];

/** Labels and list names in one CSV cell each: "; " between them (labels cannot hold a comma). */
const joined = (items: string[]) => items.join("; ");

export async function* contactLines(db: Db, accountId: string, format: ExportFormat): AsyncGenerator<string> {
  if (format === "csv") yield csvText([CONTACT_COLUMNS]);
  let after: string | null = null;
  for (;;) {
    const page = await repo.contactsAfter(db.kysely, accountId, after, CONTACTS_PER_PAGE);
    if (page.length === 0) return;
    const lists = await repo.listsOfContacts(
      db.kysely,
      accountId,
      page.map((c) => c.id),
    );
    let chunk = "";
    for (const c of page) {
      const view = { ...contactView(c), channelId: c.external_id, lists: lists.get(c.id) ?? [] };
      chunk +=
        format === "jsonl"
          ? `${JSON.stringify(view)}\n`
          : csvText([
              [
                view.id,
                view.firstName,
                view.lastName,
                view.phone,
                view.email,
                view.channelId,
                joined(view.labels),
                joined(view.lists.map((l) => l.name)),
                view.botActive ? "true" : "false",
                view.smsOptedOutAt,
                view.createdAt,
                view.updatedAt,
              ],
            ]);
    }
    yield chunk;
    if (page.length < CONTACTS_PER_PAGE) return;
    after = page[page.length - 1]!.id;
  }
}

/** The export's message JSON: the API's message without its delivery attempts. */
function exportedMessage(m: MessageRow) {
  const { deliveryAttempts: _attempts, ...message } = messageView(m);
  return message;
}

export async function* conversationLines(
  db: Db,
  accountId: string,
  format: ExportFormat,
): AsyncGenerator<string> {
  if (format === "csv") yield csvText([CONVERSATION_COLUMNS]);
  let after: string | null = null;
  for (;;) {
    const page = await repo.conversationsAfter(db.kysely, accountId, after, CONVERSATIONS_PER_PAGE);
    if (page.length === 0) return;
    // The page's messages, a bounded read at a time, grouped by conversation.
    const messages = new Map<string, MessageRow[]>();
    let cursor: { conversationId: string; id: string } | null = null;
    for (;;) {
      const read = await repo.messagesOfConversations(db.kysely, accountId, page, cursor, MESSAGES_PER_READ);
      for (const m of read) {
        const list = messages.get(m.conversation_id) ?? [];
        list.push(m);
        messages.set(m.conversation_id, list);
      }
      if (read.length < MESSAGES_PER_READ) break;
      const last = read[read.length - 1]!;
      cursor = { conversationId: last.conversation_id, id: last.id };
    }
    let chunk = "";
    for (const c of page) {
      const own = messages.get(c.id) ?? [];
      const contact = {
        firstName: c.contact_first_name,
        lastName: c.contact_last_name,
        phone: c.contact_phone,
        email: c.contact_email,
        channelId: c.contact_external_id,
      };
      const conversation = {
        id: c.id,
        contactId: c.contact_id,
        contact,
        channel: c.channel,
        channelId: c.channel_id === "" ? null : c.channel_id,
        campaignId: c.campaign_id,
        status: c.status,
        assigneeId: c.assignee_id,
        humanAlert: Number(c.human_alert) === 1,
        createdAt: iso(c.created_at),
        lastMessageAt: iso(c.last_message_at),
      };
      if (format === "jsonl") {
        chunk += `${JSON.stringify({ ...conversation, messages: own.map(exportedMessage) })}\n`;
        continue;
      }
      const name = [contact.firstName, contact.lastName].filter(Boolean).join(" ");
      const head = [
        conversation.id,
        conversation.contactId,
        name,
        contact.phone,
        contact.email,
        contact.channelId,
        conversation.channel,
        conversation.channelId,
        conversation.status,
        conversation.assigneeId,
        conversation.createdAt,
      ];
      // A conversation without messages still gets its row.
      if (own.length === 0)
        chunk += csvText([[...head, null, null, null, null, null, null, null, null, null]]);
      for (const m of own) {
        const message = exportedMessage(m);
        chunk += csvText([
          [
            ...head,
            message.id,
            message.createdAt,
            message.direction,
            message.sender,
            message.type,
            message.body,
            message.status,
            message.media?.contentType ?? null,
            message.media?.url ?? null,
          ],
        ]);
      }
    }
    yield chunk;
    if (page.length < CONVERSATIONS_PER_PAGE) return;
    after = page[page.length - 1]!.id;
  }
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  jsonl: "application/x-ndjson; charset=utf-8",
};

/** Answers with the export as a download, streamed as the client reads it (the /v1 and /app/api doors). */
export function sendExport(
  reply: FastifyReply,
  db: Db,
  accountId: string,
  kind: ExportKind,
  format: ExportFormat,
): FastifyReply {
  const lines =
    kind === "contacts" ? contactLines(db, accountId, format) : conversationLines(db, accountId, format);
  const day = new Date().toISOString().slice(0, 10);
  return reply
    .header("content-type", CONTENT_TYPES[format])
    .header("content-disposition", `attachment; filename="${kind}-${day}.${format}"`)
    .header("cache-control", "no-store")
    .send(Readable.from(lines, { objectMode: false }));
}

// One owner per table: a module writes only its own tables and asks the owner's repository for the
// rest. This reads every module's source and fails naming any write (Kysely's insertInto /
// updateTable / deleteFrom, or raw insert/update/delete SQL) to a table the module does not own.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const MODULES_DIR = path.join(import.meta.dirname, "../src/modules");

/** Table → the module that owns it (jobs belong to platform/jobs.ts, which no module edits). */
const OWNER: Record<string, string> = {
  accounts: "accounts",
  notifications: "notifications",
  notification_settings: "notifications",
  notification_emails: "notifications",
  users: "accounts",
  api_keys: "accounts",
  sessions: "accounts",
  invites: "accounts",
  password_resets: "accounts",
  contacts: "contacts",
  lists: "lists",
  list_members: "lists",
  conversations: "conversations",
  conversation_notes: "notes",
  canned_replies: "canned-replies",
  knowledge_sources: "knowledge",
  knowledge_passages: "knowledge",
  agency_brands: "branding",
  assist_grants: "assist",
  assist_settings: "assist",
  audit_log: "assist",
  conversation_events: "conversations",
  conversation_reads: "conversations",
  messages: "messaging",
  delivery_attempts: "delivery",
  events: "delivery",
  campaigns: "campaigns",
  credit_transactions: "credits",
  idempotency_keys: "credits",
  jobs: "platform",
  dashboard_days: "reports",
  dashboard_live: "reports",
  imports: "imports",
  import_rejections: "imports",
  outgoing_sends: "outgoing",
  channels: "channels",
  widget_visitors: "channels",
  bot_function_calls: "bot",
  bot_replies: "bot",
  conversation_summaries: "bot",
  // Written by triggers on messages (migration 034_message_search), never by code.
  message_search: "messaging",
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith(".ts") ? [full] : [];
  });
}

/** Every table a source text writes, with the line it happens on. */
function writesIn(text: string): Array<{ table: string; line: number }> {
  const found: Array<{ table: string; line: number }> = [];
  const patterns = [
    /\b(?:insertInto|updateTable|deleteFrom)\(\s*"(\w+)/g,
    /\b(?:insert\s+into|update|delete\s+from)\s+(\w+)\s+(?:set|values|where|\(|as\b)/gi,
  ];
  for (const re of patterns) {
    for (const m of text.matchAll(re)) {
      const table = m[1]!;
      if (!(table in OWNER)) continue;
      found.push({ table, line: text.slice(0, m.index).split("\n").length });
    }
  }
  return found;
}

describe("table ownership", () => {
  it("knows a writer per table, and finds the writes it looks for", () => {
    expect(writesIn('db.updateTable("contacts").set({})')).toEqual([{ table: "contacts", line: 1 }]);
    expect(writesIn("sql`update jobs set status = 'x'`")).toEqual([{ table: "jobs", line: 1 }]);
  });

  it("no module writes a table another module owns", () => {
    const violations: string[] = [];
    for (const file of sourceFiles(MODULES_DIR)) {
      const module = path.relative(MODULES_DIR, file).split(path.sep)[0]!;
      for (const w of writesIn(fs.readFileSync(file, "utf8"))) {
        // The session-authenticated door (app-api) has routes only: it calls the owners' services.
        if (OWNER[w.table] !== module) {
          violations.push(
            `${path.relative(MODULES_DIR, file)}:${w.line} writes ${w.table} (owner: ${OWNER[w.table]})`,
          );
        }
      }
    }
    expect(violations).toEqual([]);
  });
});

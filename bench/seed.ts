// Bulk data for the lookup benchmark, written straight into SQLite in large transactions (the API
// would take hours to create a million contacts). Rows look exactly like the API's own.
import SQLite from "better-sqlite3";
import { newId } from "../packages/server/src/platform/ids.ts";

export interface Seeded {
  phoneOf(i: number): string;
  contactIdOf(i: number): string;
}

/** UK mobile numbers +4478 00000000…: valid for libphonenumber, one per contact index. */
function phone(i: number): string {
  return `+4478${String(i).padStart(8, "0")}`;
}

export function seedLookupData(
  file: string,
  accountId: string,
  contacts: number,
  messagesPer: number,
): Seeded {
  const db = new SQLite(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  const ids: string[] = new Array(contacts);
  const insContact = db.prepare(
    "insert into contacts (id, account_id, first_name, last_name, phone, email, external_id, bot_active, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)",
  );
  const insConv = db.prepare(
    "insert into conversations (id, account_id, contact_id, channel, campaign_id, bot_paused, human_alert, human_alert_reason, last_message_at, created_at, updated_at) values (?, ?, ?, 'webchat', null, 0, 0, null, ?, ?, ?)",
  );
  const insMsg = db.prepare(
    "insert into messages (id, account_id, conversation_id, contact_id, direction, type, sender, body, status, channel, external_id, from_id, to_id, created_at, updated_at) values (?, ?, ?, ?, ?, 'text', ?, ?, ?, 'webchat', ?, ?, 'acme', ?, ?)",
  );
  const batch = 20_000;
  const now = Date.now();
  for (let start = 0; start < contacts; start += batch) {
    db.transaction(() => {
      for (let i = start; i < Math.min(contacts, start + batch); i++) {
        const id = newId("contact");
        ids[i] = id;
        const p = phone(i);
        insContact.run(id, accountId, `First${i}`, `Last${i}`, p, `c${i}@example.com`, p, now, now);
        const conv = newId("conversation");
        insConv.run(conv, accountId, id, now, now, now);
        for (let m = 0; m < messagesPer; m++) {
          const inbound = m % 2 === 0;
          insMsg.run(
            newId("message"),
            accountId,
            conv,
            id,
            inbound ? "inbound" : "outbound",
            inbound ? "contact" : "bot",
            inbound ? "Hello, what are your opening hours?" : "We are open 9 to 5, Monday to Saturday.",
            inbound ? "received" : "sent",
            inbound ? `sid-${i}-${m}` : null,
            inbound ? p : null,
            now,
            now,
          );
        }
      }
    })();
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return { phoneOf: phone, contactIdOf: (i) => ids[i]! };
}

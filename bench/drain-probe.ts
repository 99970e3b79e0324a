// Probe: in-process delivery drain with group-commit counters (for tuning, not part of npm run bench).

import fs from "node:fs";
import http from "node:http";
import { buildApp } from "../packages/server/src/app.ts";
import { loadConfig } from "../packages/server/src/config.ts";
import { createAccount } from "../packages/server/src/modules/accounts/service.ts";
import { findOrCreateContactByExternalId } from "../packages/server/src/modules/contacts/repo.ts";
import { findOrCreateConversation } from "../packages/server/src/modules/conversations/repo.ts";
import { createOutboundMessage } from "../packages/server/src/modules/delivery/outbound.ts";

const N = Number(process.argv[2] ?? 3000);
let seen = 0;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    seen++;
    res.end("{}");
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const port = (receiver.address() as { port: number }).port;
const dir = fs.mkdtempSync("/tmp/drain/d");
const config = loadConfig({
  DATA_DIR: dir,
  LOG_LEVEL: "warn",
  OUTBOUND_ALLOW_CIDRS: "127.0.0.0/8",
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
});
const p = await buildApp(config);
const acc = await createAccount(p.ctx, {
  email: `d${Date.now()}@example.com`,
  password: "password123",
  kind: "standard",
});
await p.db.kysely
  .updateTable("accounts")
  .set({ webhook_url: `http://127.0.0.1:${port}/h` })
  .where("id", "=", acc.accountId)
  .execute();
await p.db.kysely.transaction().execute(async (trx) => {
  const { contact } = await findOrCreateContactByExternalId(trx, acc.accountId, {
    externalId: "u1",
    phone: null,
    firstName: null,
    lastName: null,
    email: null,
  });
  const { conversation } = await findOrCreateConversation(trx, acc.accountId, contact.id, "webchat");
  for (let i = 0; i < N; i++)
    await createOutboundMessage(trx, acc.accountId, {
      conversationId: conversation.id,
      contactId: contact.id,
      body: "hi",
      sender: "api",
      channel: "webchat",
      toId: "u1",
    });
});
const before = p.db.groupStats();
const t0 = performance.now();
p.worker.start();
while (seen < N) await new Promise((r) => setTimeout(r, 10));
const s = (performance.now() - t0) / 1000;
const after = p.db.groupStats();
console.log(
  JSON.stringify({
    N,
    seconds: s.toFixed(2),
    perSecond: Math.round(N / s),
    batches: after.batches - before.batches,
    writes: after.writes - before.writes,
  }),
);
await p.close();
receiver.close();

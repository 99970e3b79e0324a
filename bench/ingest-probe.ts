// Probe: CPU per incoming message through Fastify inject (no TLS), with a breakdown of SQL time.
// For tuning the hot path; `npm run bench` is the real measurement.
import fs from "node:fs";
import { buildApp } from "../packages/server/src/app.ts";
import { loadConfig } from "../packages/server/src/config.ts";
import { createAccount } from "../packages/server/src/modules/accounts/service.ts";

const N = Number(process.argv[2] ?? 20000);
const dir = fs.mkdtempSync("/tmp/ingest-probe-");
const config = loadConfig({
  DATA_DIR: dir,
  LOG_LEVEL: "warn",
  RATE_LIMIT_PER_MINUTE: "10000000",
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
});
const p = await buildApp(config);
const acc = await createAccount(p.ctx, {
  email: `i${Date.now()}@example.com`,
  password: "password123",
  kind: "standard",
});
const body = (i: number) =>
  JSON.stringify({
    customData: {
      messageSid: `sid-${i}`,
      fromId: `+1415555${String(i % 1000).padStart(4, "0")}`,
      toId: "acme-support",
      body: "Hello! Are you open on Saturday morning, and is there parking near the shop?",
      channel: "webchat",
      firstName: "Ada",
      lastName: "Lovelace",
      email: "ada@example.com",
    },
    messageType: "text",
  });
const url = `/v1/incoming_custom_channel_message?apiKey=${acc.apiKey}`;
let i = 0;
const one = async () => {
  const r = await p.app.inject({
    method: "POST",
    url,
    headers: { "content-type": "application/json" },
    payload: body(i++),
  });
  if (r.statusCode !== 200) throw new Error(r.body);
};
for (let w = 0; w < 500; w++) await one(); // warm up
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const before = p.db.groupStats();
let next = 0;
await Promise.all(
  Array.from({ length: 50 }, async () => {
    while (next++ < N) await one();
  }),
);
const wall = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const after = p.db.groupStats();
console.log(
  JSON.stringify({
    N,
    perSecond: Math.round(N / wall),
    cpuMicrosPerRequest: Math.round((cpu.user + cpu.system) / N),
    batches: after.batches - before.batches,
    rssMb: Math.round(process.memoryUsage().rss / 1e6),
  }),
);
await p.close();
fs.rmSync(dir, { recursive: true, force: true });

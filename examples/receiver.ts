// The "external system" side of Parley: one HTTP endpoint that receives what Parley POSTs.
//   - replies on the custom channel (the "custom channel webhook URL" in the settings): verified and
//     printed; a real system would deliver them to its user (`toId` is the user's id on your side);
//   - account events (the "events webhook URL"): `subaccount.auto_recharge` grants the recharge amount to
//     the sub-account, once per event, whatever the number of deliveries.
//
//   npm install   (builds @parley/client; after changing its src/: npm run build -w @parley/client)
//   PARLEY_BASE_URL=https://parley.example.com/v1/ PARLEY_API_KEY=pk_live_… \
//   PARLEY_WEBHOOK_SECRET=whsec_… PORT=8787 node examples/receiver.ts
//
// Point both webhook URLs of the account at http(s)://<this host>:8787/parley. The API key is needed only
// for auto-recharge (an agency key); the secret is shown in the settings (Webhook signing secret).
import http from "node:http";
import { createAutoRechargeHandler, FileStore, Parley, verifyWebhook, WebhookError } from "@parley/client";

const secret = process.env.PARLEY_WEBHOOK_SECRET;
if (!secret) throw new Error("Set PARLEY_WEBHOOK_SECRET (whsec_…, from the Parley settings)");
const port = Number(process.env.PORT ?? 8787);
const host = process.env.HOST ?? "127.0.0.1";

const client = process.env.PARLEY_API_KEY
  ? new Parley({
      apiKey: process.env.PARLEY_API_KEY,
      baseUrl: process.env.PARLEY_BASE_URL ?? "https://localhost:8443/v1/",
    })
  : null;
// Handled idempotency keys survive a restart (one small file per key in this directory).
const autoRecharge = client
  ? createAutoRechargeHandler({ client, store: new FileStore(process.env.STORE_DIR ?? ".parley-recharges") })
  : null;

const server = http.createServer((req, res) => {
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST" }).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", async () => {
    const raw = Buffer.concat(chunks); // verify the bytes as received, before any JSON parsing
    try {
      const event = verifyWebhook(raw, req.headers, secret);
      switch (event.type) {
        case "message.outbound":
          console.log(`reply for ${event.toId} on ${event.channel} (${event.sender}): ${event.body}`);
          break;
        case "subaccount.auto_recharge": {
          if (!autoRecharge) {
            console.log(`auto-recharge for ${event.email} ignored: set PARLEY_API_KEY to an agency key`);
            break;
          }
          const result = await autoRecharge(event);
          console.log(`auto-recharge ${event.idempotency_key} for ${event.email}: ${result.status}`);
          break;
        }
        default:
          console.log(`event ${event.type}`, event);
      }
      res.writeHead(204).end();
    } catch (err) {
      if (err instanceof WebhookError) {
        console.warn(`refused a delivery: ${err.message}`);
        res.writeHead(401).end();
        return;
      }
      // Anything else (e.g. Parley unreachable during a grant): 500, so Parley delivers it again.
      console.error(err);
      res.writeHead(500).end();
    }
  });
});

server.listen(port, host, () => {
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  console.log(`receiver listening on http://${host}:${bound}/parley`);
});

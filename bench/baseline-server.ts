// The baseline: a bare Fastify HTTPS server that parses the same JSON body as Parley's incoming
// endpoint and answers at once. Parley's ingestion is reported as a ratio of this server's speed.
import fs from "node:fs";
import Fastify from "fastify";

const [certFile, keyFile, portArg] = process.argv.slice(2);
if (!certFile || !keyFile) throw new Error("usage: baseline-server.ts CERT KEY [PORT]");
const app = Fastify({
  https: { cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) },
  bodyLimit: 25 * 1024 * 1024,
  logger: false,
});
let n = 0;
app.post("/v1/incoming_custom_channel_message", async (request) => {
  const body = request.body as { customData?: { messageSid?: string } };
  return { success: true, messageId: `msg_${body.customData?.messageSid ?? ++n}` };
});
await app.listen({ host: "127.0.0.1", port: Number(portArg ?? 0) });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ status: "serving", port: typeof address === "object" && address ? address.port : 0 })}\n`,
);
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));

// Pushes one message from an external system into Parley's inbox (the incoming custom channel message).
// Parley stores it and, with the bot active, answers it: the reply arrives at the receiver
// (examples/receiver.ts) through the custom channel webhook URL.
//
//   npm install   (builds @parley/client; after changing its src/: npm run build -w @parley/client)
//   PARLEY_BASE_URL=https://parley.example.com/v1/ PARLEY_API_KEY=pk_live_… \
//   node examples/send-incoming.ts user-42 "Hello, what are your opening hours?"
import { randomUUID } from "node:crypto";
import { Parley, ParleyError } from "@parley/client";

const apiKey = process.env.PARLEY_API_KEY;
if (!apiKey) throw new Error("Set PARLEY_API_KEY");
const parley = new Parley({ apiKey, baseUrl: process.env.PARLEY_BASE_URL ?? "https://localhost:8443/v1/" });

const [fromId = "user-42", body = "Hello from the example"] = process.argv.slice(2);
try {
  const res = await parley.messages.incoming({
    customData: {
      // Your system's id for this message: a retry with the same id is never processed twice.
      messageSid: `example-${randomUUID()}`,
      fromId,
      toId: "example-shop",
      body,
      channel: "example",
    },
  });
  console.log(`accepted: messageId ${res.messageId}`);
} catch (err) {
  if (err instanceof ParleyError) {
    console.error(`Parley refused it: ${err.status} ${err.code}: ${err.message} (request ${err.requestId})`);
    process.exitCode = 1;
  } else {
    throw err;
  }
}

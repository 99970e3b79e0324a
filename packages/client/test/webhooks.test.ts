// verifyWebhook on real deliveries: the server signs a reply and an auto-recharge event, a receiver on
// 127.0.0.1 verifies them; a tampered body, a wrong secret, a stale or future timestamp are refused.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEvent, verifyWebhook, WebhookError } from "../src/index.ts";
import { type LiveServer, startLiveServer, startReceiver, uniqueEmail, waitFor } from "./helpers.ts";

describe("verifyWebhook", () => {
  let s: LiveServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let secret: string;
  let delivery: { headers: Record<string, string>; body: string };

  beforeAll(async () => {
    s = await startLiveServer({ DELIVERY_RETRY_SCHEDULE: "0.05" });
    s.t.parley.worker.start();
    receiver = await startReceiver();
    const email = uniqueEmail("wh");
    const acc = await s.t.account({ email });
    secret = acc.webhookSecret;
    await s.setAccount(email, { "webhook-url": receiver.url });
    await s.client(acc.apiKey).messages.send({
      customData: { fromId: "user-7", customChannel: "crm", body: "Your order shipped" },
    });
    delivery = await waitFor(() => receiver.deliveries[0], "the reply delivery");
  });
  afterAll(async () => {
    await s?.close();
    await receiver?.close();
  });

  it("returns the typed reply event of a real delivery (headers as a record, a Headers object or entries)", () => {
    const event = verifyWebhook(delivery.body, delivery.headers, secret);
    expect(event).toMatchObject({
      type: "message.outbound",
      body: "Your order shipped",
      toId: "user-7",
      channel: "crm",
      sender: "api",
    });
    if (!isEvent(event, "message.outbound")) throw new Error("not a reply");
    expect(event.messageId).toEqual(expect.any(String));
    expect(
      verifyWebhook(new TextEncoder().encode(delivery.body), new Headers(delivery.headers), secret),
    ).toEqual(event);
    expect(verifyWebhook(delivery.body, Object.entries(delivery.headers), secret)).toEqual(event);
  });

  it("refuses a tampered body, a tampered signature, a wrong secret and missing headers", () => {
    const tampered = delivery.body.replace("shipped", "refunded");
    expect(() => verifyWebhook(tampered, delivery.headers, secret)).toThrow(WebhookError);
    const badSig = { ...delivery.headers, "webhook-signature": `v1,${Buffer.alloc(32).toString("base64")}` };
    expect(() => verifyWebhook(delivery.body, badSig, secret)).toThrow(WebhookError);
    const other = `whsec_${Buffer.alloc(24, 7).toString("base64")}`;
    expect(() => verifyWebhook(delivery.body, delivery.headers, other)).toThrow(WebhookError);
    expect(() => verifyWebhook(delivery.body, {}, secret)).toThrow(WebhookError);
  });

  it("refuses a correctly signed delivery whose timestamp is outside the 5-minute tolerance", () => {
    const id = delivery.headers["webhook-id"]!;
    for (const offsetMs of [-10 * 60_000, 10 * 60_000]) {
      const at = new Date(Date.now() + offsetMs);
      const headers = {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": new Webhook(secret).sign(id, at, delivery.body),
      };
      expect(() => verifyWebhook(delivery.body, headers, secret)).toThrow(/timestamp/i);
    }
    // The same construction inside the tolerance verifies (so the refusals above are the timestamp's).
    const now = new Date();
    const fresh = {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(id, now, delivery.body),
    };
    expect(verifyWebhook(delivery.body, fresh, secret).type).toBe("message.outbound");
  });
});

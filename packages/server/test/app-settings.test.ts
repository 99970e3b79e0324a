// The web app's settings (/app/api/settings): API key generation (the old key stops at once), the
// webhook URL (same rules as the CLI), a signed test event through the SSRF guard, the signing
// secret, the events URL, the bot switch and the LLM settings (key write-only).
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerBrowser } from "./app-helpers.ts";
import { errorCode, json, startTestApp, type TestApp } from "./helpers.ts";
import { type Received, type Receiver, startReceiver } from "./receiver.ts";

let t: TestApp;
let receiver: Receiver;
let receiverUrl: string;
let received: Received[];

beforeAll(async () => {
  t = await startTestApp();
  // Answers 202 with a long body, so the test event's recorded answer is cut to its limit.
  receiver = await startReceiver((res) => {
    res.writeHead(202, { "content-type": "text/plain" });
    res.end(`accepted ${"x".repeat(2000)}`);
  });
  receiverUrl = receiver.url;
  received = receiver.received;
});

afterAll(async () => {
  await t?.close();
  await receiver.close();
});

describe("settings", () => {
  it("shows the account's settings without secrets", async () => {
    const { acc, browser } = await ownerBrowser(t);
    const res = await browser.req({ method: "GET", url: "/app/api/settings" });
    expect(res.statusCode).toBe(200);
    const s = json<Record<string, unknown>>(res);
    expect(s).toMatchObject({
      accountId: acc.accountId,
      kind: "standard",
      botActive: true,
      webhookUrl: null,
      eventsWebhookUrl: null,
      llm: { baseUrl: null, model: null, apiKeySet: false },
    });
    expect((s.apiKey as { prefix: string }).prefix).toBe(acc.apiKey.slice(0, 12));
    expect(res.body).not.toContain(acc.apiKey);
    expect(res.body).not.toContain(acc.webhookSecret);
  });

  it("generates an API key: the old one gets 401 on /v1 at once, the new one works", async () => {
    const { acc, browser } = await ownerBrowser(t);
    const v1 = (key: string) => t.inject({ method: "GET", url: `/v1/conversations?apiKey=${key}` });
    expect((await v1(acc.apiKey)).statusCode).toBe(200);
    const res = await browser.req({ method: "POST", url: "/app/api/settings/api-key" });
    expect(res.statusCode).toBe(201);
    const { apiKey } = json<{ apiKey: string }>(res);
    expect(apiKey).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
    expect((await v1(acc.apiKey)).statusCode).toBe(401);
    expect((await v1(apiKey)).statusCode).toBe(200);
  });

  it("saves the webhook URL with the CLI's rules and sends a signed test event to it", async () => {
    const { acc, browser } = await ownerBrowser(t);
    const noUrl = await browser.req({ method: "POST", url: "/app/api/settings/test-event" });
    expect(noUrl.statusCode).toBe(400);
    expect(errorCode(noUrl)).toBe("WEBHOOK_NOT_CONFIGURED");

    for (const bad of ["ftp://example.com/hook", "not a url", "http://example.com/hook"]) {
      const res = await browser.req({
        method: "PATCH",
        url: "/app/api/settings",
        payload: { webhookUrl: bad },
      });
      expect(res.statusCode, bad).toBe(400);
      expect(errorCode(res)).toBe("VALIDATION_ERROR");
      expect(json<{ error: { message: string } }>(res).error.message).toMatch(/webhookUrl/);
    }
    const saved = await browser.req({
      method: "PATCH",
      url: "/app/api/settings",
      payload: { webhookUrl: receiverUrl, eventsWebhookUrl: receiverUrl },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(json(saved)).toMatchObject({ webhookUrl: receiverUrl, eventsWebhookUrl: receiverUrl });

    const before = received.length;
    const res = await browser.req({ method: "POST", url: "/app/api/settings/test-event" });
    expect(res.statusCode).toBe(200);
    const out = json<{ ok: boolean; statusCode: number; body: string; error: null }>(res);
    expect(out.ok).toBe(true);
    expect(out.statusCode).toBe(202);
    expect(out.body.startsWith("accepted ")).toBe(true);
    expect(Buffer.byteLength(out.body)).toBeLessThanOrEqual(512);
    expect(out.error).toBeNull();
    const hit = received[before];
    expect(hit).toBeDefined();
    const h = hit?.headers ?? {};
    const mac = createHmac("sha256", Buffer.from(acc.webhookSecret.slice("whsec_".length), "base64"))
      .update(`${h["webhook-id"]}.${h["webhook-timestamp"]}.${hit?.body}`)
      .digest("base64");
    expect(h["webhook-signature"]).toBe(`v1,${mac}`);
    expect(JSON.parse(hit?.body ?? "{}").type).toBe("test");

    // A receiver that is not there: no status code, an error message.
    await browser.req({
      method: "PATCH",
      url: "/app/api/settings",
      payload: { webhookUrl: "http://127.0.0.1:1/x" },
    });
    const down = json<{ ok: boolean; statusCode: null; error: string }>(
      await browser.req({ method: "POST", url: "/app/api/settings/test-event" }),
    );
    expect(down.ok).toBe(false);
    expect(down.statusCode).toBeNull();
    expect(down.error).toBeTruthy();

    const cleared = await browser.req({
      method: "PATCH",
      url: "/app/api/settings",
      payload: { webhookUrl: null },
    });
    expect(json(cleared)).toMatchObject({ webhookUrl: null });
  });

  it("reveals and rotates the signing secret", async () => {
    const { acc, browser } = await ownerBrowser(t);
    const shown = json<{ webhookSecret: string }>(
      await browser.req({ method: "POST", url: "/app/api/settings/webhook-secret/reveal" }),
    );
    expect(shown.webhookSecret).toBe(acc.webhookSecret);
    const rotated = json<{ webhookSecret: string }>(
      await browser.req({ method: "POST", url: "/app/api/settings/webhook-secret/rotate" }),
    );
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.webhookSecret).not.toBe(acc.webhookSecret);
    const again = json<{ webhookSecret: string }>(
      await browser.req({ method: "POST", url: "/app/api/settings/webhook-secret/reveal" }),
    );
    expect(again.webhookSecret).toBe(rotated.webhookSecret);
  });

  it("switches the bot off account-wide and keeps the LLM key write-only", async () => {
    const { acc, browser } = await ownerBrowser(t);
    const res = await browser.req({
      method: "PATCH",
      url: "/app/api/settings",
      payload: {
        botActive: false,
        llm: { baseUrl: "https://llm.example.com/v1", model: "small-1", apiKey: "sk-secret-value" },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({
      botActive: false,
      llm: { baseUrl: "https://llm.example.com/v1", model: "small-1", apiKeySet: true },
    });
    expect(res.body).not.toContain("sk-secret-value");
    const row = await t.parley.db.kysely
      .selectFrom("accounts")
      .select(["bot_active", "llm_api_key"])
      .where("id", "=", acc.accountId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ bot_active: 0, llm_api_key: "sk-secret-value" });
    const bad = await browser.req({
      method: "PATCH",
      url: "/app/api/settings",
      payload: { llm: { baseUrl: "ftp://x" } },
    });
    expect(bad.statusCode).toBe(400);
    const cleared = await browser.req({
      method: "PATCH",
      url: "/app/api/settings",
      payload: { llm: { apiKey: null } },
    });
    expect(json(cleared)).toMatchObject({ llm: { apiKeySet: false } });
  });

  it.each([
    ["a private network", "https://10.0.0.5/v1"],
    ["link-local (cloud metadata)", "https://169.254.169.254/latest"],
    ["IPv6 unique-local", "https://[fd00::1]/v1"],
    ["credentials in the URL", "https://user:secret@llm.example.com/v1"],
    ["plain http on the internet", "http://llm.example.com/v1"],
  ])("refuses an LLM address on %s with the /v1 rules, in plain words", async (_what, url) => {
    const { acc, browser } = await ownerBrowser(t);
    const res = await browser.req({
      method: "PATCH",
      url: "/app/api/settings",
      payload: { llm: { baseUrl: url } },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorCode(res)).toBe("VALIDATION_ERROR");
    const message = json<{ error: { message: string } }>(res).error.message;
    expect(message).toMatch(/^The LLM address/);
    expect(message).not.toMatch(/llm\.baseUrl|OUTBOUND_ALLOW_CIDRS|userinfo/);
    const row = await t.parley.db.kysely
      .selectFrom("accounts")
      .select("llm_base_url")
      .where("id", "=", acc.accountId)
      .executeTakeFirstOrThrow();
    expect(row.llm_base_url).toBeNull();
  });
});

// Built-in channels, part 1 (the model): the channel API and its web-app twin, secrets sealed at rest
// and masked in every answer, a conversation per (contact, channel), and outbound messages of a
// built-in channel's conversation delivered through its adapter by the same delivery job.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { acceptChannelMessage, decryptChannel } from "../src/modules/channels/service.ts";
import { pgIncomingStats } from "../src/modules/messaging/pg-ingest.ts";
import { loadSecretKey, maskSecret, SecretBox } from "../src/platform/secrets.ts";
import { ownerBrowser, teammate } from "./app-helpers.ts";
import { DIALECT, errorCode, json, type Page, startTestApp, type TestApp } from "./helpers.ts";
import { type Receiver, startReceiver } from "./receiver.ts";

type Channel = {
  id: string;
  type: string;
  name: string;
  status: string;
  lastError: string | null;
  campaignId: string | null;
  config: Record<string, unknown>;
  inboundUrl: string | null;
  embedSnippet: string | null;
  createdAt: string;
  updatedAt: string;
};

type Conv = { id: string; channelId: string | null; channelType: string | null; contact: { id: string } };

const WEB_CONFIG = { allowedOrigins: ["https://shop.example"] };
const TOKEN = "123456789:AAEhBOweik9ai2o4-super-secret-Zq7X";

let app: TestApp;

/** Runs the queued jobs (bot replies, deliveries) until the check holds. */
async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 8_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    await app.parley.worker.drain();
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("channels", () => {
  let t: TestApp;
  let rx: Receiver;
  beforeAll(async () => {
    t = await startTestApp();
    app = t;
    rx = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
  });

  const call = (apiKey: string, method: string, url: string, payload?: unknown) =>
    t.inject({
      method: method as "POST",
      url,
      headers: { "x-api-key": apiKey },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const create = (apiKey: string, body: unknown) => call(apiKey, "POST", "/v1/channels", body);
  const countChannels = async () =>
    Number(
      (
        await t.parley.db.kysely
          .selectFrom("channels")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const channelRow = (id: string) =>
    t.parley.db.kysely.selectFrom("channels").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

  describe("the API", () => {
    it("creates a web channel: 201 with its snippet, no inbound URL, settings with their defaults", async () => {
      const acc = await t.account();
      const res = await create(acc.apiKey, {
        type: "web",
        name: "  Website  ",
        config: { allowedOrigins: ["https://Shop.example/", "http://localhost:8080"], color: "#AABBCC" },
      });
      expect(res.statusCode, res.body).toBe(201);
      const ch = json<Channel>(res);
      expect(ch.id).toMatch(/^ch_[0-9a-z]{26}$/);
      expect(ch).toMatchObject({
        type: "web",
        name: "Website",
        status: "active",
        lastError: null,
        campaignId: null,
        inboundUrl: null,
        config: {
          allowedOrigins: ["https://shop.example", "http://localhost:8080"],
          title: "Chat with us",
          greeting: "Hi! How can we help?",
          color: "#aabbcc",
          position: "right",
          collectEmail: false,
          showAgentName: false,
        },
      });
      expect(ch.embedSnippet).toBe(
        `<script src="https://localhost:${t.config.port}/widget.js" data-channel="${ch.id}" async></script>`,
      );
    });

    it("uses PUBLIC_URL for the snippet when it is set", async () => {
      const other = await startTestApp({ PUBLIC_URL: "https://parley.example.com" });
      try {
        const acc = await other.account();
        const res = await other.inject({
          method: "POST",
          url: "/v1/channels",
          headers: { "x-api-key": acc.apiKey },
          payload: { type: "web", name: "Site", config: WEB_CONFIG },
        });
        expect(res.statusCode, res.body).toBe(201);
        expect(json<Channel>(res).embedSnippet).toMatch(
          /^<script src="https:\/\/parley\.example\.com\/widget\.js" data-channel="ch_[0-9a-z]{26}" async><\/script>$/,
        );
      } finally {
        await other.close();
      }
    });

    it("lists, gets, updates (settings merged) and deletes; another tenant's id is 404", async () => {
      const acc = await t.account();
      const other = await t.account();
      const ids: string[] = [];
      for (const name of ["one", "two", "three"]) {
        const res = await create(acc.apiKey, { type: "web", name, config: WEB_CONFIG });
        expect(res.statusCode, res.body).toBe(201);
        ids.push(json<Channel>(res).id);
      }
      await create(other.apiKey, { type: "web", name: "theirs", config: WEB_CONFIG });

      const first = json<Page<Channel>>(await call(acc.apiKey, "GET", "/v1/channels?limit=2"));
      expect(first.data.map((c) => c.id)).toEqual(ids.slice(0, 2));
      expect(first.hasMore).toBe(true);
      const second = json<Page<Channel>>(
        await call(acc.apiKey, "GET", `/v1/channels?limit=2&cursor=${first.nextCursor}`),
      );
      expect(second.data.map((c) => c.id)).toEqual(ids.slice(2));
      expect(second.hasMore).toBe(false);

      const got = await call(acc.apiKey, "GET", `/v1/channels/${ids[0]}`);
      expect(got.statusCode).toBe(200);
      expect(json<Channel>(got).name).toBe("one");

      const patched = await call(acc.apiKey, "PATCH", `/v1/channels/${ids[0]}`, {
        name: "renamed",
        config: { greeting: "Hello there", position: "left" },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(json<Channel>(patched)).toMatchObject({
        name: "renamed",
        config: { allowedOrigins: ["https://shop.example"], greeting: "Hello there", position: "left" },
      });

      const paused = await call(acc.apiKey, "PATCH", `/v1/channels/${ids[0]}`, { status: "paused" });
      expect(json<Channel>(paused).status).toBe("paused");

      // Another account's key: its channels do not exist (404, never 403), and nothing changes.
      for (const [method, payload] of [
        ["GET", undefined],
        ["PATCH", { name: "taken over" }],
        ["DELETE", undefined],
      ] as const) {
        const res = await call(other.apiKey, method, `/v1/channels/${ids[1]}`, payload);
        expect(res.statusCode, `${method} ${res.body}`).toBe(404);
        expect(errorCode(res)).toBe("CHANNEL_NOT_FOUND");
      }
      expect((await channelRow(ids[1]!)).name).toBe("two");

      const deleted = await call(acc.apiKey, "DELETE", `/v1/channels/${ids[1]}`);
      expect(deleted.statusCode).toBe(200);
      expect(json(deleted)).toEqual({ success: true, channelId: ids[1] });
      expect((await call(acc.apiKey, "GET", `/v1/channels/${ids[1]}`)).statusCode).toBe(404);
      expect((await call(acc.apiKey, "DELETE", `/v1/channels/${ids[1]}`)).statusCode).toBe(404);
    });

    it("refuses bad input with a 4xx and stores nothing", async () => {
      const acc = await t.account();
      const other = await t.account();
      const theirCampaign = json<{ id: string }>(
        await call(other.apiKey, "POST", "/v1/campaigns", { name: "theirs" }),
      ).id;
      const before = await countChannels();
      const cases: Array<[unknown, number, string]> = [
        [{ type: "web", name: "x" }, 400, "VALIDATION_ERROR"],
        [{ type: "sms", name: "x", config: WEB_CONFIG }, 400, "VALIDATION_ERROR"],
        [{ type: "web", name: "", config: WEB_CONFIG }, 400, "VALIDATION_ERROR"],
        [{ type: "web", name: "   ", config: WEB_CONFIG }, 400, "VALIDATION_ERROR"],
        [{ type: "web", name: "x".repeat(101), config: WEB_CONFIG }, 400, "VALIDATION_ERROR"],
        [{ type: "web", name: "x", config: {} }, 400, "INVALID_CHANNEL_CONFIG"],
        [{ type: "web", name: "x", config: { allowedOrigins: [] } }, 400, "INVALID_CHANNEL_CONFIG"],
        [
          { type: "web", name: "x", config: { allowedOrigins: "https://a.example" } },
          400,
          "INVALID_CHANNEL_CONFIG",
        ],
        [
          { type: "web", name: "x", config: { allowedOrigins: ["https://a.example/shop"] } },
          400,
          "INVALID_CHANNEL_CONFIG",
        ],
        [
          { type: "web", name: "x", config: { allowedOrigins: ["https://a.example?x=1"] } },
          400,
          "INVALID_CHANNEL_CONFIG",
        ],
        [
          { type: "web", name: "x", config: { allowedOrigins: ["ftp://a.example"] } },
          400,
          "INVALID_CHANNEL_CONFIG",
        ],
        [
          { type: "web", name: "x", config: { allowedOrigins: ["https://u:p@a.example"] } },
          400,
          "INVALID_CHANNEL_CONFIG",
        ],
        [
          { type: "web", name: "x", config: { allowedOrigins: ["not a url"] } },
          400,
          "INVALID_CHANNEL_CONFIG",
        ],
        [{ type: "web", name: "x", config: { allowedOrigins: [42] } }, 400, "INVALID_CHANNEL_CONFIG"],
        [{ type: "web", name: "x", config: { ...WEB_CONFIG, color: "red" } }, 400, "INVALID_CHANNEL_CONFIG"],
        [
          { type: "web", name: "x", config: { ...WEB_CONFIG, position: "top" } },
          400,
          "INVALID_CHANNEL_CONFIG",
        ],
        [
          { type: "web", name: "x", config: { ...WEB_CONFIG, collectEmail: "yes" } },
          400,
          "INVALID_CHANNEL_CONFIG",
        ],
        [
          { type: "web", name: "x", config: { ...WEB_CONFIG, title: "t".repeat(81) } },
          400,
          "INVALID_CHANNEL_CONFIG",
        ],
        [
          { type: "web", name: "x", config: { ...WEB_CONFIG, greeting: "hi\u0007" } },
          400,
          "INVALID_CHANNEL_CONFIG",
        ],
        [
          { type: "web", name: "x", config: { ...WEB_CONFIG, botToken: TOKEN } },
          400,
          "INVALID_CHANNEL_CONFIG",
        ],
        [{ type: "telegram", name: "x", config: { botToken: "nope" } }, 400, "INVALID_CHANNEL_CONFIG"],
        [{ type: "whatsapp", name: "x", config: {} }, 400, "INVALID_CHANNEL_CONFIG"],
        [{ type: "twilio_sms", name: "x", config: { accountSid: "AC1" } }, 400, "INVALID_CHANNEL_CONFIG"],
        [
          { type: "web", name: "x", config: WEB_CONFIG, campaignId: theirCampaign },
          404,
          "CAMPAIGN_NOT_FOUND",
        ],
        [{ type: "web", name: "x", config: WEB_CONFIG, campaignId: "cmp_nope" }, 404, "CAMPAIGN_NOT_FOUND"],
      ];
      for (const [body, status, code] of cases) {
        const res = await create(acc.apiKey, body);
        expect(res.statusCode, `${JSON.stringify(body)} → ${res.body}`).toBe(status);
        expect(errorCode(res), JSON.stringify(body)).toBe(code);
      }
      expect(await countChannels()).toBe(before);

      // An update with bad input changes nothing either.
      const ch = json<Channel>(await create(acc.apiKey, { type: "web", name: "keep", config: WEB_CONFIG }));
      const row = await channelRow(ch.id);
      for (const [body, status] of [
        [{ config: { allowedOrigins: [] } }, 400],
        [{ config: { color: "#12345" } }, 400],
        [{ name: "" }, 400],
        [{ status: "error" }, 400],
        [{ campaignId: theirCampaign }, 404],
      ] as const) {
        const res = await call(acc.apiKey, "PATCH", `/v1/channels/${ch.id}`, body);
        expect(res.statusCode, `${JSON.stringify(body)} → ${res.body}`).toBe(status);
      }
      expect(await channelRow(ch.id)).toEqual(row);
    });

    it("routes a channel to one of the account's campaigns", async () => {
      const acc = await t.account();
      const campaign = json<{ id: string }>(
        await call(acc.apiKey, "POST", "/v1/campaigns", { name: "Web" }),
      ).id;
      const res = await create(acc.apiKey, {
        type: "web",
        name: "w",
        config: WEB_CONFIG,
        campaignId: campaign,
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(json<Channel>(res).campaignId).toBe(campaign);
      const cleared = await call(acc.apiKey, "PATCH", `/v1/channels/${json<Channel>(res).id}`, {
        campaignId: null,
      });
      expect(json<Channel>(cleared).campaignId).toBeNull();
    });

    it("a deleted campaign is forgotten by the channels routed to it", async () => {
      const acc = await t.account();
      const campaign = json<{ id: string }>(
        await call(acc.apiKey, "POST", "/v1/campaigns", { name: "Gone" }),
      ).id;
      const ch = json<Channel>(
        await create(acc.apiKey, { type: "web", name: "w", config: WEB_CONFIG, campaignId: campaign }),
      );
      expect((await call(acc.apiKey, "DELETE", `/v1/campaigns/${campaign}`)).statusCode).toBe(200);
      expect(json<Channel>(await call(acc.apiKey, "GET", `/v1/channels/${ch.id}`)).campaignId).toBeNull();
    });

    it("the web app's twins: every role reads, only owners and admins change", async () => {
      const { acc, browser: owner } = await ownerBrowser(t);
      const created = await owner.req({
        method: "POST",
        url: "/app/api/channels",
        payload: { type: "web", name: "Site", config: WEB_CONFIG },
      });
      expect(created.statusCode, created.body).toBe(201);
      const ch = json<Channel>(created);
      expect(ch.embedSnippet).toContain(`data-channel="${ch.id}"`);
      // The same JSON as the key API.
      expect(json(await call(acc.apiKey, "GET", `/v1/channels/${ch.id}`))).toEqual(ch);

      const agent = await teammate(t, owner, "agent");
      const list = await agent.req({ method: "GET", url: "/app/api/channels" });
      expect(list.statusCode).toBe(200);
      expect(json<Page<Channel>>(list).data.map((c) => c.id)).toEqual([ch.id]);
      expect((await agent.req({ method: "GET", url: `/app/api/channels/${ch.id}` })).statusCode).toBe(200);
      const before = await channelRow(ch.id);
      for (const [method, url, payload] of [
        ["POST", "/app/api/channels", { type: "web", name: "Agent's", config: WEB_CONFIG }],
        ["PATCH", `/app/api/channels/${ch.id}`, { name: "Agent's" }],
        ["DELETE", `/app/api/channels/${ch.id}`, undefined],
      ] as const) {
        const res = await agent.req({ method, url, ...(payload ? { payload } : {}) });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(errorCode(res)).toBe("FORBIDDEN");
      }
      expect(await channelRow(ch.id)).toEqual(before);

      const admin = await teammate(t, owner, "admin");
      const patched = await admin.req({
        method: "PATCH",
        url: `/app/api/channels/${ch.id}`,
        payload: { name: "Shop widget" },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(json<Channel>(patched).name).toBe("Shop widget");
      // Another account's owner: 404.
      const { browser: stranger } = await ownerBrowser(t);
      const res = await stranger.req({ method: "GET", url: `/app/api/channels/${ch.id}` });
      expect(res.statusCode).toBe(404);
      expect(errorCode(res)).toBe("CHANNEL_NOT_FOUND");
      expect((await admin.req({ method: "DELETE", url: `/app/api/channels/${ch.id}` })).statusCode).toBe(200);
    });
  });

  describe("secrets", () => {
    it("seals and opens with AES-256-GCM; a changed byte, another key or an unknown key id fail", () => {
      const key = Buffer.alloc(32, 7);
      const box = new SecretBox(key);
      const sealed = box.seal({ botToken: TOKEN });
      expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
      expect(sealed).not.toContain("super-secret");
      expect(box.open(sealed)).toEqual({ botToken: TOKEN });
      // A fresh IV each time: the same value never seals to the same text.
      expect(box.seal({ botToken: TOKEN })).not.toBe(sealed);
      const raw = Buffer.from(sealed.slice(3), "base64url");
      expect(raw[0]).toBe(1); // the key id
      const flipped = Buffer.from(raw);
      flipped[flipped.length - 1]! ^= 1;
      expect(() => box.open(`v1.${flipped.toString("base64url")}`)).toThrow();
      expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed)).toThrow();
      const otherId = Buffer.from(raw);
      otherId[0] = 2;
      expect(() => box.open(`v1.${otherId.toString("base64url")}`)).toThrow(/unknown key id 2/);
      expect(() => box.open("plain text")).toThrow();
    });

    it("PARLEY_SECRET_KEY: 64 hex characters or base64 of 32 bytes, anything else refused at start", () => {
      const hex = "ab".repeat(32);
      expect(loadConfig({ PARLEY_SECRET_KEY: hex }).secretKey).toEqual(Buffer.from(hex, "hex"));
      const b64 = Buffer.alloc(32, 9).toString("base64");
      expect(loadConfig({ PARLEY_SECRET_KEY: b64 }).secretKey).toEqual(Buffer.alloc(32, 9));
      expect(loadConfig({}).secretKey).toBeNull();
      for (const bad of ["short", "ab".repeat(31), Buffer.alloc(16).toString("base64"), "zz".repeat(32)]) {
        expect(() => loadConfig({ PARLEY_SECRET_KEY: bad }), bad).toThrow(/PARLEY_SECRET_KEY/);
      }
      // The configured key wins over any file.
      expect(loadSecretKey({ secretKey: Buffer.alloc(32, 3), dataDir: "/nonexistent" })).toEqual(
        Buffer.alloc(32, 3),
      );
    });

    it("without PARLEY_SECRET_KEY a key is generated into DATA_DIR/secret.key (0600) at start and kept", async () => {
      const file = path.join(t.config.dataDir, "secret.key");
      expect(fs.existsSync(file)).toBe(true);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const key = fs.readFileSync(file, "utf8").trim();
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(loadSecretKey({ secretKey: null, dataDir: t.config.dataDir }).toString("hex")).toBe(key);
    });

    it("a secret-bearing channel: encrypted in the database, masked in every answer, kept on update", async () => {
      const acc = await t.account();
      const secrets = { accessToken: TOKEN, appSecret: "app-secret-0123456789", verifyToken: "verify-me-42" };
      const res = await create(acc.apiKey, {
        type: "whatsapp",
        name: "WhatsApp",
        config: { phoneNumberId: "106540352242922", ...secrets },
      });
      expect(res.statusCode, res.body).toBe(201);
      const row = json<Channel>(res);
      const stored = await channelRow(row.id);
      expect(stored.secrets).toBeTruthy();
      expect(stored.secrets).not.toContain(TOKEN);
      expect(JSON.stringify(stored)).not.toContain("super-secret");
      expect(JSON.stringify(stored)).not.toContain("app-secret");
      expect(decryptChannel(t.parley.ctx, stored).secrets).toEqual(secrets);

      const masked = maskSecret(TOKEN);
      expect(masked).toBe("••••Zq7X");
      const maskedConfig = {
        phoneNumberId: "106540352242922",
        graphVersion: "v21.0",
        accessToken: masked,
        appSecret: maskSecret(secrets.appSecret),
        verifyToken: maskSecret(secrets.verifyToken),
      };
      const got = json<Channel>(await call(acc.apiKey, "GET", `/v1/channels/${row.id}`));
      expect(got.config).toEqual(maskedConfig);
      expect(got.inboundUrl).toBe(`https://localhost:${t.config.port}/v1/channels/${row.id}/inbound`);
      expect(got.embedSnippet).toBeNull();
      const listed = await call(acc.apiKey, "GET", "/v1/channels");
      expect(listed.body).not.toContain("super-secret");
      expect(listed.body).toContain(masked);

      // A rename leaves the secrets as they were; an update without a secret keeps it.
      const renamed = await call(acc.apiKey, "PATCH", `/v1/channels/${row.id}`, {
        name: "Renamed",
        config: {},
      });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect(renamed.body).not.toContain("super-secret");
      expect(json<Channel>(renamed).config).toEqual(maskedConfig);
      expect(decryptChannel(t.parley.ctx, await channelRow(row.id)).secrets).toEqual(secrets);
      // A bad setting is refused and the stored secrets stay.
      const bad = await call(acc.apiKey, "PATCH", `/v1/channels/${row.id}`, {
        config: { phoneNumberId: "not a number", accessToken: "other" },
      });
      expect(bad.statusCode).toBe(400);
      expect(errorCode(bad)).toBe("INVALID_CHANNEL_CONFIG");
      expect(decryptChannel(t.parley.ctx, await channelRow(row.id)).secrets).toEqual(secrets);
    });
  });

  describe("a conversation per channel", () => {
    it("one contact: its custom-channel and web conversations are separate, in the inbox and its filter", async () => {
      const { acc, browser } = await ownerBrowser(t);
      const incoming = await call(acc.apiKey, "POST", "/v1/incoming_custom_channel_message", {
        customData: { messageSid: "sid-1", fromId: "person-1", toId: "biz", body: "hi on custom" },
      });
      expect(incoming.statusCode, incoming.body).toBe(200);
      const customMessage = json<{ messageId: string }>(incoming).messageId;
      const contactId = (
        await t.parley.db.kysely
          .selectFrom("contacts")
          .select("id")
          .where("account_id", "=", acc.accountId)
          .where("external_id", "=", "person-1")
          .executeTakeFirstOrThrow()
      ).id;
      const ch = json<Channel>(await create(acc.apiKey, { type: "web", name: "Site", config: WEB_CONFIG }));
      const row = await channelRow(ch.id);

      const first = await acceptChannelMessage(t.parley.ctx, row, {
        contactId,
        externalId: "web:m-1",
        body: "hi on the widget",
        at: Date.now(),
      });
      expect(first.duplicate).toBe(false);
      const again = await acceptChannelMessage(t.parley.ctx, row, {
        contactId,
        externalId: "web:m-1",
        body: "hi on the widget",
        at: Date.now(),
      });
      expect(again).toEqual({ ...first, duplicate: true });
      const second = await acceptChannelMessage(t.parley.ctx, row, {
        contactId,
        externalId: "web:m-2",
        body: "still me",
      });
      expect(second.conversationId).toBe(first.conversationId);

      const convs = await t.parley.db.kysely
        .selectFrom("conversations")
        .select(["id", "channel_id"])
        .where("account_id", "=", acc.accountId)
        .where("contact_id", "=", contactId)
        .orderBy("channel_id")
        .execute();
      expect(convs.map((c) => c.channel_id)).toEqual(["", ch.id]);
      expect(convs[1]!.id).toBe(first.conversationId);
      const messages = await t.parley.db.kysely
        .selectFrom("messages")
        .select(["id", "conversation_id", "external_id"])
        .where("account_id", "=", acc.accountId)
        .execute();
      expect(messages).toHaveLength(3);
      expect(messages.find((m) => m.id === customMessage)?.conversation_id).toBe(convs[0]!.id);

      // The custom channel's next message still lands in its own conversation, and on PostgreSQL by
      // the one batched statement of the hot path (its join picks the custom conversation only; a
      // batch that failed would have gone the slow way).
      const statsBefore = pgIncomingStats(t.parley.ctx);
      await call(acc.apiKey, "POST", "/v1/incoming_custom_channel_message", {
        customData: { messageSid: "sid-2", fromId: "person-1", toId: "biz", body: "custom again" },
      });
      const statsAfter = pgIncomingStats(t.parley.ctx);
      if (DIALECT === "postgres") {
        expect(statsAfter.items - statsBefore.items).toBe(1);
        expect(statsAfter.failed).toBe(statsBefore.failed);
      }
      const inbox = json<Page<Conv>>(await browser.req({ method: "GET", url: "/app/api/conversations" }));
      expect(inbox.data).toHaveLength(2);
      const byType = Object.fromEntries(inbox.data.map((c) => [c.channelType, c]));
      expect(byType.custom).toMatchObject({ id: convs[0]!.id, channelId: null, contact: { id: contactId } });
      expect(byType.web).toMatchObject({
        id: first.conversationId,
        channelId: ch.id,
        contact: { id: contactId },
      });

      const onlyWeb = json<Page<Conv>>(
        await browser.req({ method: "GET", url: `/app/api/conversations?channelId=${ch.id}` }),
      );
      expect(onlyWeb.data.map((c) => c.id)).toEqual([first.conversationId]);
      const onlyCustom = json<Page<Conv>>(
        await browser.req({ method: "GET", url: "/app/api/conversations?channelId=custom" }),
      );
      expect(onlyCustom.data.map((c) => c.id)).toEqual([convs[0]!.id]);
      // The /v1 conversations say which channel each is on too.
      const v1 = json<Page<{ id: string; channelId: string | null }>>(
        await call(acc.apiKey, "GET", "/v1/conversations"),
      );
      expect(Object.fromEntries(v1.data.map((c) => [c.id, c.channelId]))).toEqual({
        [first.conversationId]: ch.id,
        [convs[0]!.id]: null,
      });

      // Each conversation's thread holds its own messages only.
      const thread = async (id: string) =>
        json<{ messages: Array<{ body: string }> }>(
          await browser.req({ method: "GET", url: `/app/api/conversations/${id}` }),
        ).messages.map((m) => m.body);
      expect(await thread(first.conversationId)).toEqual(["hi on the widget", "still me"]);
      expect(await thread(convs[0]!.id)).toEqual(["hi on custom", "custom again"]);
    });

    it("a contact's page links its most recently active conversation, whichever channel it is on", async () => {
      const { acc, browser } = await ownerBrowser(t);
      const custom = async (sid: string) => {
        const res = await call(acc.apiKey, "POST", "/v1/incoming_custom_channel_message", {
          customData: { messageSid: sid, fromId: "linked-1", toId: "biz", body: "on custom" },
        });
        expect(res.statusCode, res.body).toBe(200);
      };
      await custom("l-1");
      const contactId = (
        await t.parley.db.kysely
          .selectFrom("contacts")
          .select("id")
          .where("account_id", "=", acc.accountId)
          .where("external_id", "=", "linked-1")
          .executeTakeFirstOrThrow()
      ).id;
      const ch = json<Channel>(await create(acc.apiKey, { type: "web", name: "Site", config: WEB_CONFIG }));
      await new Promise((r) => setTimeout(r, 5));
      const web = await acceptChannelMessage(t.parley.ctx, await channelRow(ch.id), {
        contactId,
        externalId: "web:l-2",
        body: "on the widget",
      });
      const linked = async () => {
        const one = json<{ conversationId: string | null }>(
          await browser.req({ method: "GET", url: `/app/api/contacts/${contactId}` }),
        ).conversationId;
        const listed = json<Page<{ id: string; conversationId: string | null }>>(
          await browser.req({ method: "GET", url: "/app/api/contacts" }),
        ).data.find((c) => c.id === contactId)?.conversationId;
        expect(listed).toBe(one);
        return one;
      };
      expect(await linked()).toBe(web.conversationId);
      await new Promise((r) => setTimeout(r, 5));
      await custom("l-3");
      const customConversation = (
        await t.parley.db.kysely
          .selectFrom("conversations")
          .select("id")
          .where("contact_id", "=", contactId)
          .where("channel_id", "=", "")
          .executeTakeFirstOrThrow()
      ).id;
      expect(await linked()).toBe(customConversation);
    });

    it("a new web conversation is routed to the channel's campaign", async () => {
      const acc = await t.account();
      const campaign = json<{ id: string }>(
        await call(acc.apiKey, "POST", "/v1/campaigns", { name: "Web" }),
      ).id;
      const ch = json<Channel>(
        await create(acc.apiKey, { type: "web", name: "w", config: WEB_CONFIG, campaignId: campaign }),
      );
      const contact = json<{ id: string }>(
        await call(acc.apiKey, "POST", "/v1/contacts", { firstName: "Vi", phone: "+14155550199" }),
      );
      const res = await acceptChannelMessage(t.parley.ctx, await channelRow(ch.id), {
        contactId: contact.id,
        externalId: "web:routed",
        body: "hello",
      });
      const conv = await t.parley.db.kysely
        .selectFrom("conversations")
        .selectAll()
        .where("id", "=", res.conversationId)
        .executeTakeFirstOrThrow();
      expect(conv).toMatchObject({ channel_id: ch.id, campaign_id: campaign });
      const message = await t.parley.db.kysely
        .selectFrom("messages")
        .selectAll()
        .where("id", "=", res.messageId)
        .executeTakeFirstOrThrow();
      expect(message).toMatchObject({
        campaign_id: campaign,
        direction: "inbound",
        external_id: "web:routed",
      });
    });

    it("the dashboard splits its counts by channel", async () => {
      const { acc, browser } = await ownerBrowser(t);
      await call(acc.apiKey, "POST", "/v1/incoming_custom_channel_message", {
        customData: { messageSid: "d-1", fromId: "dash-1", toId: "biz", body: "custom" },
      });
      const ch = json<Channel>(await create(acc.apiKey, { type: "web", name: "Site", config: WEB_CONFIG }));
      const contact = json<{ id: string }>(
        await call(acc.apiKey, "POST", "/v1/contacts", { phone: "+14155550123" }),
      );
      for (const n of [1, 2]) {
        await acceptChannelMessage(t.parley.ctx, await channelRow(ch.id), {
          contactId: contact.id,
          externalId: `web:d-${n}`,
          body: `web ${n}`,
        });
      }
      const res = await browser.req({ method: "GET", url: "/app/api/dashboard?days=1" });
      expect(res.statusCode, res.body).toBe(200);
      const body = json<{
        totals: { inbound: number };
        byChannel: Array<{
          channelId: string | null;
          channelType: string | null;
          name: string | null;
          inbound: number;
        }>;
        days: Array<Record<string, unknown>>;
      }>(res);
      expect(body.totals.inbound).toBe(3);
      expect(body.byChannel).toEqual([
        expect.objectContaining({ channelId: null, channelType: "custom", name: null, inbound: 1 }),
        expect.objectContaining({ channelId: ch.id, channelType: "web", name: "Site", inbound: 2 }),
      ]);
      expect(body.days[0]).not.toHaveProperty("channels");

      // An account without built-in channels: everything on the custom channel (counted without
      // reading conversations).
      const { acc: plain, browser: plainBrowser } = await ownerBrowser(t);
      await call(plain.apiKey, "POST", "/v1/incoming_custom_channel_message", {
        customData: { messageSid: "p-1", fromId: "plain-1", toId: "biz", body: "custom" },
      });
      const plainBody = json<{ byChannel: unknown[] }>(
        await plainBrowser.req({ method: "GET", url: "/app/api/dashboard?days=1" }),
      );
      expect(plainBody.byChannel).toEqual([
        {
          channelId: null,
          channelType: "custom",
          name: null,
          inbound: 1,
          outbound: 0,
          sent: 0,
          failed: 0,
          botAnswers: 0,
          botFallbacks: 0,
        },
      ]);
    });
  });

  describe("replies on a built-in channel", () => {
    async function webShop() {
      const { acc, browser } = await ownerBrowser(t);
      // A custom-channel webhook is configured: a web conversation's replies must never go there.
      await t.parley.db.kysely
        .updateTable("accounts")
        .set({ webhook_url: `${rx.url}/${acc.accountId}` })
        .where("id", "=", acc.accountId)
        .execute();
      const campaigns = json<Page<{ id: string; isDefault: boolean }>>(
        await call(acc.apiKey, "GET", "/v1/campaigns"),
      );
      const campaignId = campaigns.data.find((c) => c.isDefault)!.id;
      const patched = await call(acc.apiKey, "PATCH", `/v1/campaigns/${campaignId}`, {
        knowledge: [{ question: "What are your opening hours?", answer: "We are open 9 to 6." }],
      });
      expect(patched.statusCode, patched.body).toBe(200);
      const ch = json<Channel>(await create(acc.apiKey, { type: "web", name: "Site", config: WEB_CONFIG }));
      const contact = json<{ id: string }>(
        await call(acc.apiKey, "POST", "/v1/contacts", { phone: "+14155550111" }),
      );
      return { acc, browser, ch, contact };
    }
    const message = (id: string) =>
      t.parley.db.kysely.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirst();
    const attempts = (id: string) =>
      t.parley.db.kysely.selectFrom("delivery_attempts").selectAll().where("message_id", "=", id).execute();

    it("the bot's reply goes out through the web adapter: Sent, an attempt recorded, no webhook call", async () => {
      const { ch, contact } = await webShop();
      const before = rx.received.length;
      const inbound = await acceptChannelMessage(t.parley.ctx, await channelRow(ch.id), {
        contactId: contact.id,
        externalId: "web:q-1",
        body: "what are your opening hours?",
      });
      let reply: Awaited<ReturnType<typeof message>>;
      await waitFor(async () => {
        reply = await message(
          (
            await t.parley.db.kysely
              .selectFrom("messages")
              .select("id")
              .where("external_id", "=", `bot:${inbound.messageId}`)
              .executeTakeFirst()
          )?.id ?? "none",
        );
        return reply?.status === "sent";
      });
      expect(reply!).toMatchObject({
        sender: "bot",
        direction: "outbound",
        body: "We are open 9 to 6.",
        conversation_id: inbound.conversationId,
        status: "sent",
        error: null,
      });
      const tries = await attempts(reply!.id);
      expect(tries).toHaveLength(1);
      expect(tries[0]).toMatchObject({ url: `channel:web/${ch.id}`, error_class: null, attempt_number: 1 });
      expect(rx.received.length).toBe(before);
    });

    it("a person's reply goes out through the adapter; a paused channel fails it, Resend after resuming sends it", async () => {
      const { browser, ch, contact } = await webShop();
      const before = rx.received.length;
      const inbound = await acceptChannelMessage(t.parley.ctx, await channelRow(ch.id), {
        contactId: contact.id,
        externalId: "web:p-1",
        body: "anyone there?",
      });
      const send = async (body: string) => {
        const res = await browser.req({
          method: "POST",
          url: `/app/api/conversations/${inbound.conversationId}/messages`,
          payload: { body },
        });
        expect(res.statusCode, res.body).toBeLessThan(300);
        return json<{ id: string }>(res).id;
      };
      const first = await send("Hello, this is Ana");
      await waitFor(async () => (await message(first))?.status === "sent");
      expect(await attempts(first)).toHaveLength(1);

      const paused = await browser.req({
        method: "PATCH",
        url: `/app/api/channels/${ch.id}`,
        payload: { status: "paused" },
      });
      expect(paused.statusCode, paused.body).toBe(200);
      const second = await send("Are you still there?");
      await waitFor(async () => (await message(second))?.status === "failed");
      const failed = await message(second);
      expect(JSON.parse(failed!.error!)).toMatchObject({ errorClass: "channel_paused" });
      const [attempt] = await attempts(second);
      expect(attempt).toMatchObject({ error_class: "channel_paused", next_attempt_at: null });

      await browser.req({
        method: "PATCH",
        url: `/app/api/channels/${ch.id}`,
        payload: { status: "active" },
      });
      const resend = await browser.req({ method: "POST", url: `/app/api/messages/${second}/resend` });
      expect(resend.statusCode, resend.body).toBeLessThan(300);
      await waitFor(async () => (await message(second))?.status === "sent");
      const all = await attempts(second);
      expect(all.map((a) => [a.attempt_number, a.trigger, a.error_class])).toEqual([
        [1, "scheduled", "channel_paused"],
        [2, "manual", null],
      ]);
      expect(rx.received.length).toBe(before);
    });

    it("a deleted channel's conversation: a reply fails with channel_deleted, the history stays", async () => {
      const { acc, browser, ch, contact } = await webShop();
      const inbound = await acceptChannelMessage(t.parley.ctx, await channelRow(ch.id), {
        contactId: contact.id,
        externalId: "web:del-1",
        body: "hello",
      });
      expect((await call(acc.apiKey, "DELETE", `/v1/channels/${ch.id}`)).statusCode).toBe(200);
      const res = await browser.req({
        method: "POST",
        url: `/app/api/conversations/${inbound.conversationId}/messages`,
        payload: { body: "late answer" },
      });
      const id = json<{ id: string }>(res).id;
      await waitFor(async () => (await message(id))?.status === "failed");
      expect(JSON.parse((await message(id))!.error!)).toMatchObject({ errorClass: "channel_deleted" });
      const conv = json<{ conversation: Conv }>(
        await browser.req({ method: "GET", url: `/app/api/conversations/${inbound.conversationId}` }),
      ).conversation;
      expect(conv).toMatchObject({ channelId: ch.id, channelType: null });
    });

    it("the /v1 send API's reply in a web conversation goes out through the adapter, not the webhook", async () => {
      const { acc, ch, contact } = await webShop();
      const before = rx.received.length;
      const inbound = await acceptChannelMessage(t.parley.ctx, await channelRow(ch.id), {
        contactId: contact.id,
        externalId: "web:api-1",
        body: "is my order shipped?",
      });
      const res = await call(acc.apiKey, "POST", `/v1/conversations/${inbound.conversationId}/messages`, {
        body: "Yes, it left this morning.",
      });
      expect(res.statusCode, res.body).toBe(201);
      const id = json<{ id: string }>(res).id;
      await waitFor(async () => (await message(id))?.status === "sent");
      expect(await message(id)).toMatchObject({ conversation_id: inbound.conversationId, sender: "human" });
      expect((await attempts(id)).map((a) => a.url)).toEqual([`channel:web/${ch.id}`]);
      expect(rx.received.length).toBe(before);
    });

    it("an outgoing campaign reaches a member last heard on the website chat in that conversation", async () => {
      const { acc, ch, contact } = await webShop();
      const before = rx.received.length;
      const web = await acceptChannelMessage(t.parley.ctx, await channelRow(ch.id), {
        contactId: contact.id,
        externalId: "web:out-1",
        body: "just looking",
      });
      // A second member known only through the custom channel keeps getting it by webhook.
      const incoming = await call(acc.apiKey, "POST", "/v1/incoming_custom_channel_message", {
        customData: {
          messageSid: "out-sid-1",
          fromId: "custom-out-1",
          toId: "shop",
          channel: "sms",
          body: "hi",
        },
      });
      expect(incoming.statusCode, incoming.body).toBe(200);
      const customContact = (await message(json<{ messageId: string }>(incoming).messageId))!.contact_id;
      await waitFor(async () => {
        const sent = await t.parley.db.kysely
          .selectFrom("messages")
          .select("id")
          .where("contact_id", "=", customContact)
          .where("direction", "=", "outbound")
          .where("status", "in", ["sent", "failed"])
          .execute();
        return sent.length > 0;
      });
      const receivedBefore = rx.received.length;
      const list = json<{ id: string }>(await call(acc.apiKey, "POST", "/v1/lists", { name: "spring" }));
      for (const id of [contact.id, customContact]) {
        await call(acc.apiKey, "POST", `/v1/lists/${list.id}/contacts`, { contactId: id });
      }
      const campaign = json<{ id: string }>(
        await call(acc.apiKey, "POST", "/v1/campaigns", {
          name: "Spring",
          outgoing: { message: "Spring sale today", listId: list.id, channel: "sms", ratePerMinute: 6000 },
        }),
      );
      const started = await call(acc.apiKey, "POST", `/v1/campaigns/${campaign.id}/start`);
      expect(started.statusCode, started.body).toBe(200);
      const firstOf = (contactId: string) =>
        t.parley.db.kysely
          .selectFrom("messages")
          .selectAll()
          .where("campaign_id", "=", campaign.id)
          .where("contact_id", "=", contactId)
          .where("direction", "=", "outbound")
          .executeTakeFirst();
      await waitFor(async () => (await firstOf(contact.id))?.status === "sent");
      const toVisitor = await firstOf(contact.id);
      expect(toVisitor).toMatchObject({ conversation_id: web.conversationId, body: "Spring sale today" });
      expect((await attempts(toVisitor!.id)).map((a) => a.url)).toEqual([`channel:web/${ch.id}`]);
      await waitFor(async () => (await firstOf(customContact))?.status === "sent");
      expect(await firstOf(customContact)).toMatchObject({ channel: "sms", to_id: "custom-out-1" });
      // Exactly one webhook: the custom member's; none for the visitor.
      expect(rx.received.length - receivedBefore).toBe(1);
      expect(before).toBeLessThanOrEqual(receivedBefore);
    });
  });
});

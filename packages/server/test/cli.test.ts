import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../src/modules/accounts/service.ts";
import { openDatabase } from "../src/platform/db/index.ts";
import { freshDatabase, type TestDatabase } from "./helpers.ts";
import { cliEnv, oneJsonLine, runCli, startServer } from "./process-helpers.ts";

describe("parley CLI", () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    database = await freshDatabase();
    env = cliEnv(database, { OUTBOUND_ALLOW_CIDRS: "127.0.0.0/8" });
  });
  afterAll(() => database.drop());

  it("migrate prints the applied migrations as one JSON line, then nothing left", async () => {
    const first = oneJsonLine<{ applied: string[] }>(await runCli(["migrate"], env));
    expect(first.applied).toEqual([
      "001_initial",
      "002_account_change_notify",
      "003_drop_job_lease_index",
      "004_drop_message_conversation_index",
      "005_delivery_attempt_details",
      "006_web_app",
      "009_contact_labels",
      "010_dashboard",
      "011_imports",
      "012_outgoing",
      "015_outgoing_skip_reason",
      "020_channels",
      "021_tenant_emails",
      "024_import_modes",
      "025_contact_seen",
      "026_channel_providers",
      "027_message_media_index",
      "028_bot_functions",
      "029_follow_ups",
      "030_notifications",
      "031_business_hours",
      "032_password_resets",
      "033_conversation_notes",
      "034_message_search",
      "035_canned_replies",
      "036_conversation_events",
      "037_conversation_reads",
      "038_export_order_indexes",
      "039_account_suspension",
      "040_assist_and_audit",
      "041_agency_brand",
      "043_usage_indexes",
      "044_search_trigram",
      "045_knowledge_sources",
      "046_message_suggestions",
      "047_dashboard_live",
    ]);
    const again = oneJsonLine<{ applied: string[] }>(await runCli(["migrate"], env));
    expect(again.applied).toEqual([]);
  });

  it("account create prints accountId, userId, apiKey and webhookSecret", async () => {
    const out = oneJsonLine<Record<string, string>>(
      await runCli(
        ["account", "create", "--email", "Owner@Example.com", "--password", "s3cret-pass", "--name", "Acme"],
        env,
      ),
    );
    expect(Object.keys(out).sort()).toEqual(["accountId", "apiKey", "userId", "webhookSecret"]);
    expect(out.accountId).toMatch(/^acc_/);
    expect(out.userId).toMatch(/^usr_/);
    expect(out.apiKey).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
    expect(out.webhookSecret).toMatch(/^whsec_/);
  });

  it("refuses a second account with the same e-mail on stderr with a non-zero exit", async () => {
    const res = await runCli(
      ["account", "create", "--email", "owner@example.com", "--password", "s3cret-pass"],
      env,
    );
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe("");
    expect(res.stderr).toMatch(/already exists/);
  });

  it("account set changes the settings and prints them", async () => {
    const out = oneJsonLine<Record<string, unknown>>(
      await runCli(
        [
          "account",
          "set",
          "--email",
          "owner@example.com",
          "--webhook-url",
          "https://hooks.example.com/parley",
          "--events-webhook-url",
          "http://127.0.0.1:9/events",
          "--bot",
          "off",
        ],
        env,
      ),
    );
    expect(out).toMatchObject({
      email: "owner@example.com",
      name: "Acme",
      webhookUrl: "https://hooks.example.com/parley",
      eventsWebhookUrl: "http://127.0.0.1:9/events",
      botActive: false,
    });
    const plainHttp = await runCli(
      ["account", "set", "--email", "owner@example.com", "--webhook-url", "http://hooks.example.com/x"],
      env,
    );
    expect(plainHttp.code).not.toBe(0);
    expect(plainHttp.stderr).toMatch(/https/);
    const badBot = await runCli(["account", "set", "--email", "owner@example.com", "--bot", "maybe"], env);
    expect(badBot.code).not.toBe(0);
    expect(badBot.stderr).toMatch(/--bot must be on or off/);
  });

  it("key generate prints a new key and the old one stops working at once", async () => {
    const created = oneJsonLine<{ apiKey: string; accountId: string }>(
      await runCli(["account", "create", "--email", "rotate@example.com", "--password", "s3cret-pass"], env),
    );
    const rotated = oneJsonLine<{ apiKey: string }>(
      await runCli(["key", "generate", "--email", "rotate@example.com"], env),
    );
    expect(rotated.apiKey).not.toBe(created.apiKey);
    const db = openDatabase(database);
    try {
      const hashes = await db.kysely
        .selectFrom("api_keys")
        .select("key_hash")
        .where("account_id", "=", created.accountId)
        .execute();
      expect(hashes.map((h) => h.key_hash)).toEqual([hashApiKey(rotated.apiKey)]);
    } finally {
      await db.close();
    }
  });

  it("creates agencies and their sub-accounts", async () => {
    const agency = oneJsonLine<{ accountId: string }>(
      await runCli(
        ["account", "create", "--email", "agency@example.com", "--password", "s3cret-pass", "--agency"],
        env,
      ),
    );
    const sub = oneJsonLine<{ accountId: string }>(
      await runCli(
        [
          "account",
          "create",
          "--email",
          "sub@example.com",
          "--password",
          "s3cret-pass",
          "--parent",
          "agency@example.com",
          "--credits",
          "12.5",
        ],
        env,
      ),
    );
    const settings = oneJsonLine<Record<string, unknown>>(
      await runCli(["account", "set", "--email", "sub@example.com"], env),
    );
    expect(settings).toMatchObject({ kind: "subaccount", parentAccountId: agency.accountId, credits: 12.5 });
    expect(sub.accountId).toBe(settings.accountId);
    const notAgency = await runCli(
      [
        "account",
        "create",
        "--email",
        "sub2@example.com",
        "--password",
        "s3cret-pass",
        "--parent",
        "sub@example.com",
      ],
      env,
    );
    expect(notAgency.code).not.toBe(0);
    expect(notAgency.stderr).toMatch(/not an agency/);
  });

  it("reports unknown commands and bad options on stderr", async () => {
    const unknown = await runCli(["frobnicate"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toMatch(/unknown command/);
    const badOption = await runCli(["key", "generate", "--mail", "x@example.com"], env);
    expect(badOption.code).not.toBe(0);
    expect(badOption.stderr).toMatch(/--mail/);
    const missing = await runCli(["key", "generate"], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--email is required/);
  });

  it("refuses a bad configuration with a clear message", async () => {
    const res = await runCli(["migrate"], { ...env, PORT: "eighty" });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/PORT must be a whole number/);
    const badUrl = await runCli(["migrate"], { ...env, PUBLIC_URL: "https://parley.example.com/sub/path" });
    expect(badUrl.code).not.toBe(0);
    expect(badUrl.stderr).toMatch(/PUBLIC_URL/);
  });
});

describe("parley serve's setup link", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(() => database.drop());

  it("is built from PUBLIC_URL; off a terminal it is only in the JSON line and the log", async () => {
    const env = cliEnv(database, { PORT: "0", HOST: "127.0.0.1", PUBLIC_URL: "https://parley.example.com/" });
    const server = await startServer(["serve", "--no-worker"], env);
    try {
      const setupUrl = new URL(String(server.line.setupUrl));
      expect(setupUrl.origin).toBe("https://parley.example.com");
      expect(setupUrl.pathname).toBe("/onboarding");
      expect(setupUrl.searchParams.get("setupToken")).toMatch(/^[\w-]{20,}$/);
      // stdout is a pipe here, not a terminal: no plain "Open ..." line anywhere.
      await new Promise((r) => setTimeout(r, 200));
      expect(server.stderr()).not.toMatch(/^Open /m);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  }, 30_000);
});

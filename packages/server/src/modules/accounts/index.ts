import type { CliValues, Module } from "../../context.ts";
import type { AccountUpdate } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import { accountRoutes } from "./routes.ts";
import {
  configureAutoRecharge,
  createAccount,
  requireAccountByEmail,
  rotateApiKey,
  rotateWebhookSecret,
  settingsView,
  updateSettings,
} from "./service.ts";
import { validateWebhookUrl } from "./webhook-url.ts";

function required(values: CliValues, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v.trim() === "")
    throw new AppError("VALIDATION_ERROR", `--${name} is required`);
  return v;
}

function optionalNumber(values: CliValues, name: string): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== "string" || v.trim() === "" || !Number.isFinite(n) || n < 0) {
    throw new AppError("VALIDATION_ERROR", `--${name} must be a number >= 0`);
  }
  return n;
}

/** "" or "none" clears an optional URL setting. */
function clearing(v: string): boolean {
  return v === "" || v === "none";
}

export const accountsModule: Module = {
  name: "accounts",
  routes: accountRoutes,
  commands: {
    "account create": {
      summary: "--email E --password P [--name N] [--agency] [--parent AGENCY_EMAIL] [--credits N]",
      options: {
        email: { type: "string" },
        password: { type: "string" },
        name: { type: "string" },
        agency: { type: "boolean" },
        parent: { type: "string" },
        credits: { type: "string" },
      },
      async run(values, ctx) {
        const { db } = ctx;
        if (values.agency && values.parent)
          throw new AppError("VALIDATION_ERROR", "--agency and --parent exclude each other");
        let parentAccountId: string | null = null;
        if (typeof values.parent === "string") {
          const parent = await requireAccountByEmail(db, values.parent);
          if (parent.kind !== "agency")
            throw new AppError("NOT_AGENCY", `${values.parent} is not an agency account`);
          parentAccountId = parent.id;
        }
        return createAccount(ctx, {
          email: required(values, "email"),
          password: required(values, "password"),
          name: typeof values.name === "string" ? values.name : null,
          kind: values.agency ? "agency" : parentAccountId ? "subaccount" : "standard",
          parentAccountId,
          credits: optionalNumber(values, "credits") ?? 0,
        });
      },
    },
    "account set": {
      summary:
        "--email E [--webhook-url U] [--events-webhook-url U] [--bot on|off] [--rotate-webhook-secret] " +
        "[--llm-base-url U --llm-api-key K --llm-model M] [--auto-recharge-threshold N|off --auto-recharge-amount N]",
      options: {
        email: { type: "string" },
        "webhook-url": { type: "string" },
        "events-webhook-url": { type: "string" },
        bot: { type: "string" },
        "rotate-webhook-secret": { type: "boolean" },
        "llm-base-url": { type: "string" },
        "llm-api-key": { type: "string" },
        "llm-model": { type: "string" },
        "auto-recharge-threshold": { type: "string" },
        "auto-recharge-amount": { type: "string" },
      },
      async run(values, { db, config }) {
        const account = await requireAccountByEmail(db, required(values, "email"));
        const patch: AccountUpdate = {};
        const webhookUrl = values["webhook-url"];
        if (typeof webhookUrl === "string") {
          patch.webhook_url = clearing(webhookUrl)
            ? null
            : await validateWebhookUrl(webhookUrl, config.outboundAllowCidrs);
        }
        const eventsUrl = values["events-webhook-url"];
        if (typeof eventsUrl === "string") {
          patch.events_webhook_url = clearing(eventsUrl)
            ? null
            : await validateWebhookUrl(eventsUrl, config.outboundAllowCidrs, "events webhook URL");
        }
        if (values.bot !== undefined) {
          if (values.bot !== "on" && values.bot !== "off")
            throw new AppError("VALIDATION_ERROR", "--bot must be on or off");
          patch.bot_active = values.bot === "on" ? 1 : 0;
        }
        const llmBaseUrl = values["llm-base-url"];
        if (typeof llmBaseUrl === "string") {
          // The same rules as the webhook URLs: the bot's requests go out through the same guard.
          patch.llm_base_url = clearing(llmBaseUrl)
            ? null
            : await validateWebhookUrl(llmBaseUrl, config.outboundAllowCidrs, "--llm-base-url");
        }
        if (typeof values["llm-api-key"] === "string") patch.llm_api_key = values["llm-api-key"] || null;
        if (typeof values["llm-model"] === "string") patch.llm_model = values["llm-model"] || null;
        const thresholdText = values["auto-recharge-threshold"];
        if (typeof thresholdText === "string" && ["none", "off"].includes(thresholdText)) {
          await configureAutoRecharge(db, account, null);
        } else {
          const threshold = optionalNumber(values, "auto-recharge-threshold");
          const amount = optionalNumber(values, "auto-recharge-amount");
          if (threshold !== undefined || amount !== undefined) {
            if (threshold === undefined || amount === undefined) {
              throw new AppError(
                "VALIDATION_ERROR",
                "--auto-recharge-threshold and --auto-recharge-amount go together (--auto-recharge-threshold off turns it off)",
              );
            }
            // Same rules as the API (amounts > 0, <= 1,000,000, two decimals; re-arming).
            await configureAutoRecharge(db, account, { threshold, rechargeAmount: amount });
          }
        }
        if (values["rotate-webhook-secret"]) await rotateWebhookSecret(db, account.id);
        return settingsView(await updateSettings(db, account.id, patch));
      },
    },
    "key generate": {
      summary: "--email E   (the old key stops working at once)",
      options: { email: { type: "string" } },
      async run(values, { db }) {
        const account = await requireAccountByEmail(db, required(values, "email"));
        return { apiKey: await rotateApiKey(db, account.id) };
      },
    },
  },
};

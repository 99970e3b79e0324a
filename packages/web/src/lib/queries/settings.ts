// The account's settings (/app/api/settings*): webhooks, the bot, the API key, the signing secret and
// the business hours. Business hours sit under the settings' key.
import { useMutation } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { BusinessHours, BusinessHoursState, Settings, WebhookTestResult } from "../api-types.ts";
import { useGet } from "./get.ts";
import { useAppMutation } from "./mutation.ts";

export type { WebhookTestResult } from "../api-types.ts";

export type SettingsPatch = Partial<{
  webhookUrl: string | null;
  eventsWebhookUrl: string | null;
  botActive: boolean;
  llm: Partial<{ baseUrl: string | null; model: string | null; apiKey: string | null }>;
}>;

export const settingsKeys = {
  all: ["settings"] as const,
  businessHours: () => [...settingsKeys.all, "business-hours"] as const,
};

export function useSettings(enabled = true) {
  return useGet<Settings>(settingsKeys.all, "/settings", enabled);
}

/** PATCH /settings; the answer replaces the cached settings. Each section says what it saved. */
export function useUpdateSettings() {
  return useAppMutation({
    mutationFn: (patch: SettingsPatch) => api<Settings>("PATCH", "/settings", patch),
    replaces: settingsKeys.all,
  });
}

/** Sends a test event to the custom channel webhook. */
export function useTestWebhook() {
  return useMutation({ mutationFn: () => api<WebhookTestResult>("POST", "/settings/test-event") });
}

export function useRevealWebhookSecret() {
  return useMutation({
    mutationFn: () => api<{ webhookSecret: string }>("POST", "/settings/webhook-secret/reveal"),
  });
}

export function useRotateWebhookSecret() {
  return useAppMutation({
    mutationFn: () => api<{ webhookSecret: string }>("POST", "/settings/webhook-secret/rotate"),
    notice: "Signing secret rotated",
  });
}

/** A new API key (the old one stops working); the key is in the answer, shown once. */
export function useGenerateApiKey() {
  return useAppMutation({
    mutationFn: () => api<{ apiKey: string }>("POST", "/settings/api-key"),
    invalidates: [settingsKeys.all],
  });
}

export function useBusinessHours(enabled = true) {
  return useGet<BusinessHoursState>(settingsKeys.businessHours(), "/settings/business-hours", enabled);
}

/** Saves the business hours (null clears them); the answer replaces the cached ones. */
export function useSaveBusinessHours() {
  return useAppMutation({
    mutationFn: (businessHours: BusinessHours | null) =>
      api<BusinessHoursState>("PUT", "/settings/business-hours", { businessHours }),
    notice: (saved) => (saved.businessHours ? "Business hours saved" : "Business hours cleared"),
    replaces: settingsKeys.businessHours(),
  });
}

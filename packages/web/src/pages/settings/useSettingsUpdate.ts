import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../lib/api.ts";
import type { Settings } from "../../lib/types.ts";

export type SettingsPatch = Partial<{
  webhookUrl: string | null;
  eventsWebhookUrl: string | null;
  botActive: boolean;
  llm: Partial<{ baseUrl: string | null; model: string | null; apiKey: string | null }>;
}>;

/** PATCH /settings; the answer replaces the cached settings. */
export function useSettingsUpdate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (patch: SettingsPatch) => api<Settings>("PATCH", "/settings", patch),
    onSuccess: (settings) => client.setQueryData(["settings"], settings),
  });
}

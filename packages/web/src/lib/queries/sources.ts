// A campaign's knowledge sources (/app/api/campaigns/:campaignId/sources): files and web pages the bot
// answers from. A new or re-synced source is read in the background ("processing"): the list polls
// until every source is ready or failed.
import { useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { Page, Source } from "../api-types.ts";
import { base64Of } from "../files.ts";
import { useAppMutation } from "./mutation.ts";

/** What the campaign page adds: a file (sent base64 in the JSON), one web page, or a sitemap's pages. */
export type NewSource =
  | { type: "file"; file: File; contentType: string }
  | { type: "url" | "sitemap"; url: string; dailyResync?: boolean };

export const sourceKeys = {
  all: ["sources"] as const,
  list: (campaignId: string) => [...sourceKeys.all, campaignId] as const,
};

/** The campaign's sources (the newest 200), every 2 s again while one is being read. */
export function useSources(campaignId: string) {
  return useQuery({
    queryKey: sourceKeys.list(campaignId),
    queryFn: async () => (await api<Page<Source>>("GET", `/campaigns/${campaignId}/sources?limit=200`)).data,
    refetchInterval: (q) => (q.state.data?.some((s) => s.status === "processing") ? 2000 : false),
  });
}

export function useCreateSource(campaignId: string) {
  return useAppMutation({
    mutationFn: async (source: NewSource) =>
      api<Source>(
        "POST",
        `/campaigns/${campaignId}/sources`,
        source.type === "file"
          ? {
              type: "file",
              name: source.file.name,
              contentType: source.contentType,
              data: await base64Of(source.file),
            }
          : source,
      ),
    notice: (source) => `Reading ${source.name}`,
    // The list is read again: the new state, then its polling.
    invalidates: [sourceKeys.list(campaignId)],
  });
}

export function useUpdateSource(campaignId: string) {
  return useAppMutation({
    mutationFn: ({ source, dailyResync }: { source: Source; dailyResync: boolean }) =>
      api<Source>("PATCH", `/campaigns/${campaignId}/sources/${source.id}`, { dailyResync }),
    notice: (source) => `Daily re-sync ${source.dailyResync ? "on" : "off"} for ${source.name}`,
    invalidates: [sourceKeys.list(campaignId)],
    notifyError: true,
  });
}

export function useResyncSource(campaignId: string) {
  return useAppMutation({
    mutationFn: (source: Source) =>
      api<Source>("POST", `/campaigns/${campaignId}/sources/${source.id}/resync`),
    notice: (source) => `Re-syncing ${source.name}`,
    invalidates: [sourceKeys.list(campaignId)],
    notifyError: true,
  });
}

export function useDeleteSource(campaignId: string) {
  return useAppMutation({
    mutationFn: (source: Source) => api("DELETE", `/campaigns/${campaignId}/sources/${source.id}`),
    notice: (_, source) => `${source.name} deleted`,
    invalidates: [sourceKeys.list(campaignId)],
  });
}

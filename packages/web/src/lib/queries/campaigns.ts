// Campaigns (/app/api/campaigns*): the list, one campaign with its figures, and the changes and tries
// made on it. A campaign's stats and skipped members sit under its key: refreshing it refreshes them.
import { useMutation, useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import type {
  Campaign,
  CampaignSummary,
  FunctionTestResult,
  OutgoingStats,
  Page,
  PhrasingSuggestions,
  PreviewResult,
  SavedKnowledge,
  SkippedMember,
} from "../api-types.ts";
import { useGet } from "./get.ts";
import { useAppMutation } from "./mutation.ts";

export const campaignKeys = {
  all: ["campaigns"] as const,
  /** Every campaign (up to 200) as the choices of a select. */
  choices: () => [...campaignKeys.all, "all"] as const,
  detail: (campaignId: string) => ["campaign", campaignId] as const,
  stats: (campaignId: string) => [...campaignKeys.detail(campaignId), "stats"] as const,
  skipped: (campaignId: string) => [...campaignKeys.detail(campaignId), "skipped"] as const,
  /** What the bot would answer `message` (a dry run). */
  preview: (campaignId: string, message: string) => ["preview", campaignId, message] as const,
};

const listCampaigns = () => api<Page<CampaignSummary>>("GET", "/campaigns?limit=200");

/** The campaigns page. */
export function useCampaigns() {
  return useQuery({ queryKey: campaignKeys.all, queryFn: listCampaigns });
}

/** Every campaign, for a select (a channel's campaign). */
export function useCampaignChoices() {
  return useQuery({ queryKey: campaignKeys.choices(), queryFn: listCampaigns });
}

export function useCampaign(campaignId: string) {
  return useGet<Campaign>(campaignKeys.detail(campaignId), `/campaigns/${campaignId}`);
}

export function useCampaignStats(campaignId: string, options: { enabled?: boolean; poll?: boolean } = {}) {
  return useQuery({
    queryKey: campaignKeys.stats(campaignId),
    queryFn: () => api<OutgoingStats>("GET", `/campaigns/${campaignId}/stats`),
    enabled: options.enabled,
    // While the outgoing message is being sent, its figures move.
    refetchInterval: options.poll ? (q) => (q.state.data?.state === "running" ? 2000 : false) : undefined,
  });
}

export function useSkippedMembers(campaignId: string, enabled: boolean) {
  return useGet<Page<SkippedMember>>(
    campaignKeys.skipped(campaignId),
    `/campaigns/${campaignId}/skipped?limit=50`,
    enabled,
  );
}

export function useCreateCampaign() {
  return useAppMutation({
    mutationFn: (name: string) => api<Campaign>("POST", "/campaigns", { name }),
    invalidates: [campaignKeys.all],
  });
}

/** The campaign page's Save: the answer replaces the cached campaign. */
export function useUpdateCampaign(campaignId: string) {
  return useAppMutation({
    mutationFn: (body: Record<string, unknown>) => api<Campaign>("PATCH", `/campaigns/${campaignId}`, body),
    notice: "Campaign saved",
    replaces: campaignKeys.detail(campaignId),
    invalidates: [campaignKeys.all],
  });
}

/** The outgoing message's settings (a part of the campaign). */
export function useUpdateOutgoing(campaignId: string) {
  return useAppMutation({
    mutationFn: (outgoing: Record<string, unknown>) => api("PATCH", `/campaigns/${campaignId}`, { outgoing }),
    notice: "Outgoing message saved",
    invalidates: [campaignKeys.detail(campaignId)],
  });
}

/** Starts or pauses sending the outgoing message. */
export function useOutgoingAction(campaignId: string) {
  return useAppMutation({
    mutationFn: (action: "start" | "pause") =>
      api<OutgoingStats>("POST", `/campaigns/${campaignId}/${action}`),
    invalidates: [campaignKeys.detail(campaignId)],
    notifyError: true,
  });
}

/** "Try the bot": what it would answer, nothing sent or stored. */
export function usePreviewReply(campaignId: string) {
  return useMutation({
    mutationFn: (message: string) =>
      api<PreviewResult>("POST", `/campaigns/${campaignId}/preview`, { message }),
  });
}

/** The same dry run as a query: the knowledge entry closest to a question. */
export function usePreview(campaignId: string, message: string) {
  return useQuery({
    queryKey: campaignKeys.preview(campaignId, message),
    queryFn: () => api<PreviewResult>("POST", `/campaigns/${campaignId}/preview`, { message }),
  });
}

export type KnowledgeSave = { question: string; answer: string } | { question: string; entryIndex: number };

/** Saves a question and answer from the inbox into the campaign's knowledge, and says what changed. */
export function useSaveKnowledge(campaignId: string, campaignName: string | undefined) {
  return useAppMutation({
    mutationFn: (body: KnowledgeSave) =>
      api<SavedKnowledge>("POST", `/campaigns/${campaignId}/knowledge`, body),
    notice: (saved) =>
      saved.change === "unchanged"
        ? `“${saved.entry.question}” already had this phrasing.`
        : saved.change === "entry_created"
          ? `Saved as a new entry of ${campaignName ?? "the campaign"}.`
          : `Saved as another way to ask “${saved.entry.question}”.`,
    invalidates: [campaignKeys.detail(campaignId)],
  });
}

/**
 * "Suggest other ways to ask": the LLM's proposals for the saved entry `index` (0-based). Nothing is
 * stored: the editor adds the kept ones to its draft, saved with the campaign.
 */
export function useSuggestPhrasings(campaignId: string) {
  return useMutation({
    mutationFn: (index: number) =>
      api<PhrasingSuggestions>("POST", `/campaigns/${campaignId}/knowledge/${index}/phrasings`),
  });
}

/** Calls one of the campaign's functions with test arguments (`args`: JSON as typed; bad JSON fails the call). */
export function useTestFunction(campaignId: string, functionName: string) {
  return useMutation({
    mutationFn: (args: string) =>
      api<FunctionTestResult>(
        "POST",
        `/campaigns/${campaignId}/functions/${encodeURIComponent(functionName)}/test`,
        {
          arguments: args.trim() ? (JSON.parse(args) as unknown) : {},
        },
      ),
  });
}

// Agency assist (/app/api/assist*): the header's client switcher, starting, moving and ending an
// assist, and a client's "Allow agency assist" switch and audit log.
import { useMutation, useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { ApiResponse, Page } from "../api-types.ts";
import { useGet } from "./get.ts";
import { useAppMutation } from "./mutation.ts";
import { usePagedList } from "./paging.ts";

export type AssistClient = ApiResponse<"appListAssistClients">["data"][number];
export type AuditEntry = ApiResponse<"appListAuditLog">["data"][number];

const keys = {
  clients: (search: string) => ["assist-clients", search] as const,
  settings: ["assist-settings"] as const,
  audit: ["audit-log"] as const,
};

/** The agency's clients matching `search`, with balance and what needs a human there. */
export function useAssistClients(search: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.clients(search),
    queryFn: () =>
      api<ApiResponse<"appListAssistClients">>("GET", `/assist/clients?search=${encodeURIComponent(search)}`),
    enabled,
  });
}

/**
 * The whole app changes account: a fresh page load, so no query, cache or live stream of the account
 * left behind can show in the next one.
 */
function reloadAt(path: string): void {
  window.location.assign(path);
}

export function useStartAssist() {
  return useAppMutation({
    mutationFn: (accountId: string) => api<ApiResponse<"appStartAssist">>("POST", "/assist", { accountId }),
    onSuccess: () => reloadAt("/dashboard"),
    notifyError: true,
  });
}

export function useEndAssist() {
  return useMutation({
    mutationFn: () => api<void>("DELETE", "/assist"),
    onSuccess: () => reloadAt("/agency"),
  });
}

export function useAssistSettings() {
  return useGet<ApiResponse<"appGetAssistSettings">>(keys.settings, "/settings/assist");
}

export function useSetAssistAllowed() {
  return useAppMutation({
    mutationFn: (allowed: boolean) =>
      api<ApiResponse<"appSetAssistSettings">>("PUT", "/settings/assist", { allowed }),
    notice: (s) => (s.allowed ? "Your agency can assist this account" : "Agency assist is off"),
    replaces: keys.settings,
  });
}

/** The audit log, newest first, 50 a page. */
export function useAuditLog() {
  return usePagedList<Page<AuditEntry>>(keys.audit, "/audit-log", 50);
}

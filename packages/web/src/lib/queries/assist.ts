// Agency assist (/app/api/assist*): the header's client switcher, starting, moving and ending an
// assist, and a client's "Allow agency assist" switch and audit log.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, errorMessage } from "../api.ts";
import type { ApiResponse, Page } from "../api-types.ts";
import { notify } from "../notify.ts";
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
  return useMutation({
    mutationFn: (accountId: string) => api<ApiResponse<"appStartAssist">>("POST", "/assist", { accountId }),
    onSuccess: () => reloadAt("/dashboard"),
    onError: (err) => notify(errorMessage(err), "error"),
  });
}

export function useEndAssist() {
  return useMutation({
    mutationFn: () => api<void>("DELETE", "/assist"),
    onSuccess: () => reloadAt("/agency"),
  });
}

export function useAssistSettings() {
  return useQuery({
    queryKey: keys.settings,
    queryFn: () => api<ApiResponse<"appGetAssistSettings">>("GET", "/settings/assist"),
  });
}

export function useSetAssistAllowed() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (allowed: boolean) =>
      api<ApiResponse<"appSetAssistSettings">>("PUT", "/settings/assist", { allowed }),
    onSuccess: (s) => {
      client.setQueryData(keys.settings, s);
      notify(s.allowed ? "Your agency can assist this account" : "Agency assist is off");
    },
  });
}

/** The audit log, newest first, 50 a page. */
export function useAuditLog() {
  return usePagedList<Page<AuditEntry>>(keys.audit, "/audit-log", 50);
}

// A sub-account's usage per day for its agency (/app/api/subaccounts/{id}/usage): the sub-account
// page's charts and totals. The CSV is a plain download link (usageCsvUrl).
import { useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { SubaccountUsage } from "../api-types.ts";

export const USAGE_DAYS = 30;

export function useSubaccountUsage(subaccountId: string) {
  return useQuery({
    queryKey: ["subaccount", subaccountId, "usage", USAGE_DAYS] as const,
    queryFn: () => api<SubaccountUsage>("GET", `/subaccounts/${subaccountId}/usage?days=${USAGE_DAYS}`),
  });
}

export const usageCsvUrl = (subaccountId: string) =>
  `/app/api/subaccounts/${encodeURIComponent(subaccountId)}/usage.csv?days=${USAGE_DAYS}`;

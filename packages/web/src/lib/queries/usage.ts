import type { SubaccountUsage } from "../api-types.ts";
import { useGet } from "./get.ts";

export const USAGE_DAYS = 30;

export function useSubaccountUsage(subaccountId: string) {
  return useGet<SubaccountUsage>(
    ["subaccount", subaccountId, "usage", USAGE_DAYS] as const,
    `/subaccounts/${subaccountId}/usage?days=${USAGE_DAYS}`,
  );
}

export const usageCsvUrl = (subaccountId: string) =>
  `/app/api/subaccounts/${encodeURIComponent(subaccountId)}/usage.csv?days=${USAGE_DAYS}`;

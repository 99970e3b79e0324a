// The dashboard's figures (/app/api/dashboard): the last 30 days.
import { useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { Dashboard } from "../api-types.ts";

export type { Dashboard, DashboardDay } from "../api-types.ts";

export const dashboardKeys = {
  all: ["dashboard"] as const,
};

export function useDashboard() {
  return useQuery({
    queryKey: dashboardKeys.all,
    queryFn: () => api<Dashboard>("GET", "/dashboard?days=30"),
  });
}

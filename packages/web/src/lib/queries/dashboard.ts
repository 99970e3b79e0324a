import type { Dashboard } from "../api-types.ts";
import { useGet } from "./get.ts";

export type { Dashboard, DashboardDay } from "../api-types.ts";

export const dashboardKeys = {
  all: ["dashboard"] as const,
};

export function useDashboard() {
  return useGet<Dashboard>(dashboardKeys.all, "/dashboard?days=30");
}

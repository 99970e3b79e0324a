// The dashboard's figures (/app/api/dashboard): the last 30 days.
import { useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { BotFunctionFigures, ChannelFigures, LlmTokens } from "../types.ts";

export interface DashboardDay {
  date: string;
  inbound: number;
  outbound: number;
  sent: number;
  failed: number;
  botAnswers: number;
  botFallbacks: number;
  creditsUsed: number;
}

export interface Dashboard {
  days: DashboardDay[];
  totals: Omit<DashboardDay, "date"> & { deliverySuccessRate: number | null };
  waitingForPerson: number;
  /** The period's figures per channel: the custom channel first, then each built-in channel. */
  byChannel?: ChannelFigures[];
  /** The bot's calls of each campaign function in the period (absent on an older server). */
  botFunctions?: BotFunctionFigures[];
  /** Tokens the LLM bot replies used in the period (absent on an older server). */
  llmTokens?: LlmTokens;
}

export const dashboardKeys = {
  all: ["dashboard"] as const,
};

export function useDashboard() {
  return useQuery({
    queryKey: dashboardKeys.all,
    queryFn: () => api<Dashboard>("GET", "/dashboard?days=30"),
  });
}

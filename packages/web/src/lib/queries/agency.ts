// An agency's sub-accounts (/app/api/subaccounts*): the list, one's credit history, and the credits
// the agency grants.
import type { QueryKey } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { CreditTransaction, Page, Subaccount } from "../api-types.ts";
import { credits } from "../format.ts";
import { useGet } from "./get.ts";
import { useAppMutation } from "./mutation.ts";

export const agencyKeys = {
  subaccounts: ["subaccounts"] as const,
  subaccount: (subaccountId: string) => ["subaccount", subaccountId] as const,
  transactions: (subaccountId: string) => [...agencyKeys.subaccount(subaccountId), "transactions"] as const,
};

export function useSubaccounts(enabled = true) {
  return useGet<Page<Subaccount>>(agencyKeys.subaccounts, "/subaccounts?limit=200", enabled);
}

export function useCreditTransactions(subaccountId: string) {
  return useGet<Page<CreditTransaction>>(
    agencyKeys.transactions(subaccountId),
    `/subaccounts/${subaccountId}/transactions?limit=100`,
  );
}

/** Creates a sub-account; the answer carries its owner's invite link (shown once). */
export function useCreateSubaccount() {
  return useAppMutation({
    mutationFn: (body: { email: string; name?: string }) =>
      api<Subaccount & { ownerInvite: { url: string } }>("POST", "/subaccounts", body),
    notice: (s) => `Sub-account ${s.name} created`,
    invalidates: [agencyKeys.subaccounts],
  });
}

/** What a sub-account's change may show elsewhere: the agency page and the sub-account's own. */
function subaccountRefreshKeys(subaccountId: string): QueryKey[] {
  return [agencyKeys.subaccounts, agencyKeys.subaccount(subaccountId)];
}

export function useGrantCredits(subaccountId: string) {
  return useAppMutation({
    mutationFn: (grant: { amount: number; description: string | null }) =>
      api<{ new_balance: number }>("POST", `/subaccounts/${subaccountId}/credits`, grant),
    notice: (r) => `Granted. New balance: ${credits(r.new_balance)} credits`,
    invalidates: subaccountRefreshKeys(subaccountId),
  });
}

/** Turns auto-recharge on (with its threshold and amount) or off (null). */
export function useSetAutoRecharge(subaccountId: string) {
  return useAppMutation({
    mutationFn: (rule: { threshold: number; rechargeAmount: number } | null) =>
      rule
        ? api("PUT", `/subaccounts/${subaccountId}/auto-recharge`, rule)
        : api("DELETE", `/subaccounts/${subaccountId}/auto-recharge`),
    notice: "Auto-recharge updated",
    invalidates: subaccountRefreshKeys(subaccountId),
  });
}

/** Suspends (true) or resumes (false) a sub-account: its key and sessions are refused while suspended. */
export function useSetSuspended(subaccountId: string) {
  return useAppMutation({
    mutationFn: (suspended: boolean) =>
      api<Subaccount>("POST", `/subaccounts/${subaccountId}/${suspended ? "suspend" : "resume"}`),
    notice: (s) => (s.status === "suspended" ? `${s.name} is suspended` : `${s.name} is active again`),
    invalidates: subaccountRefreshKeys(subaccountId),
  });
}

export function useRenameSubaccount(subaccountId: string) {
  return useAppMutation({
    mutationFn: (name: string) => api<Subaccount>("PATCH", `/subaccounts/${subaccountId}`, { name }),
    notice: (s) => `Renamed to ${s.name}`,
    invalidates: subaccountRefreshKeys(subaccountId),
  });
}

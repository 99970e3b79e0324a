// An agency's sub-accounts (/app/api/subaccounts*): the list, one's credit history, and the credits
// the agency grants.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { CreditTransaction, Page, Subaccount } from "../api-types.ts";
import { credits } from "../format.ts";
import { notify } from "../notify.ts";

export const agencyKeys = {
  subaccounts: ["subaccounts"] as const,
  subaccount: (subaccountId: string) => ["subaccount", subaccountId] as const,
  transactions: (subaccountId: string) => [...agencyKeys.subaccount(subaccountId), "transactions"] as const,
};

export function useSubaccounts(enabled = true) {
  return useQuery({
    queryKey: agencyKeys.subaccounts,
    queryFn: () => api<Page<Subaccount>>("GET", "/subaccounts?limit=200"),
    enabled,
  });
}

export function useCreditTransactions(subaccountId: string) {
  return useQuery({
    queryKey: agencyKeys.transactions(subaccountId),
    queryFn: () => api<Page<CreditTransaction>>("GET", `/subaccounts/${subaccountId}/transactions?limit=100`),
  });
}

/** Creates a sub-account; the answer carries its owner's invite link (shown once). */
export function useCreateSubaccount() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; name?: string }) =>
      api<Subaccount & { ownerInvite: { url: string } }>("POST", "/subaccounts", body),
    onSuccess: (s) => {
      notify(`Sub-account ${s.name} created`);
      void client.invalidateQueries({ queryKey: agencyKeys.subaccounts });
    },
  });
}

function useRefreshSubaccount(subaccountId: string) {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: agencyKeys.subaccounts });
    void client.invalidateQueries({ queryKey: agencyKeys.subaccount(subaccountId) });
  };
}

export function useGrantCredits(subaccountId: string) {
  const refresh = useRefreshSubaccount(subaccountId);
  return useMutation({
    mutationFn: (grant: { amount: number; description: string | null }) =>
      api<{ new_balance: number }>("POST", `/subaccounts/${subaccountId}/credits`, grant),
    onSuccess: (r) => {
      notify(`Granted. New balance: ${credits(r.new_balance)} credits`);
      refresh();
    },
  });
}

/** Turns auto-recharge on (with its threshold and amount) or off (null). */
export function useSetAutoRecharge(subaccountId: string) {
  const refresh = useRefreshSubaccount(subaccountId);
  return useMutation({
    mutationFn: (rule: { threshold: number; rechargeAmount: number } | null) =>
      rule
        ? api("PUT", `/subaccounts/${subaccountId}/auto-recharge`, rule)
        : api("DELETE", `/subaccounts/${subaccountId}/auto-recharge`),
    onSuccess: () => {
      notify("Auto-recharge updated");
      refresh();
    },
  });
}

/** Suspends (true) or resumes (false) a sub-account: its key and sessions are refused while suspended. */
export function useSetSuspended(subaccountId: string) {
  const refresh = useRefreshSubaccount(subaccountId);
  return useMutation({
    mutationFn: (suspended: boolean) =>
      api<Subaccount>("POST", `/subaccounts/${subaccountId}/${suspended ? "suspend" : "resume"}`),
    onSuccess: (s) => {
      notify(s.status === "suspended" ? `${s.name} is suspended` : `${s.name} is active again`);
      refresh();
    },
  });
}

export function useRenameSubaccount(subaccountId: string) {
  const refresh = useRefreshSubaccount(subaccountId);
  return useMutation({
    mutationFn: (name: string) => api<Subaccount>("PATCH", `/subaccounts/${subaccountId}`, { name }),
    onSuccess: (s) => {
      notify(`Renamed to ${s.name}`);
      refresh();
    },
  });
}

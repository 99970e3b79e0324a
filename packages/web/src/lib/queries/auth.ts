// Signing in and out, onboarding, invites and passwords (/app/api/session, /onboarding, /invites,
// /password-resets, /password). The forms keep their own busy and error state, so the requests are
// plain functions; the links' checks are queries.
import { useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { Session } from "../api-types.ts";
import { useGet } from "./get.ts";

export const authKeys = {
  onboarding: (setupToken: string | null) => ["onboarding", setupToken] as const,
  invite: (token: string) => ["invite", token] as const,
  passwordReset: (token: string) => ["password-reset", token] as const,
};

const setupQuery = (setupToken: string | null) =>
  setupToken ? `?setupToken=${encodeURIComponent(setupToken)}` : "";

/** Whether this install still needs its first account, and whether this browser may create it. */
export function useOnboardingStatus(setupToken: string | null) {
  return useGet<{ needed: boolean; allowed: boolean }>(
    authKeys.onboarding(setupToken),
    `/onboarding${setupQuery(setupToken)}`,
  );
}

export function useInvite(token: string) {
  return useQuery({
    queryKey: authKeys.invite(token),
    queryFn: () =>
      api<{ email: string; accountName: string; role: string }>(
        "GET",
        `/invites/${encodeURIComponent(token)}`,
      ),
  });
}

/** Whether a password-reset link is still good (and for whom). */
export function usePasswordReset(token: string) {
  return useQuery({
    queryKey: authKeys.passwordReset(token),
    queryFn: () => api<{ email: string }>("GET", `/password-resets/${encodeURIComponent(token)}`),
    retry: false,
  });
}

export const signIn = (email: string, password: string) =>
  api<Session>("POST", "/session", { email, password });

export const signOut = () => api("DELETE", "/session");

export const onboard = (body: {
  businessName: string;
  email: string;
  password: string;
  setupToken?: string;
  /** The owner's display name. */
  name?: string;
}) => api<Session & { apiKey: string }>("POST", "/onboarding", body);

/** The signed-in person's display name (blank clears it); answers the session with it. */
export const updateProfile = (name: string | null) => api<Session>("PATCH", "/profile", { name });

/** The signed-in account's own credit balance. */
export const fetchBalance = () => api<{ balance: number }>("GET", "/credits");

export const acceptInvite = (token: string, body: { name?: string; password: string }) =>
  api<Session & { notice?: string }>("POST", `/invites/${encodeURIComponent(token)}/accept`, body);

export const requestPasswordReset = (email: string) => api("POST", "/password-resets", { email });

export const resetPassword = (token: string, password: string) =>
  api("POST", `/password-resets/${encodeURIComponent(token)}`, { password });

export const changePassword = (currentPassword: string, newPassword: string) =>
  api("POST", "/password", { currentPassword, newPassword });

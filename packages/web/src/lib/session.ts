import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, setCsrfToken } from "./api.ts";
import type { ApiResponse, Session } from "./api-types.ts";

export const SESSION_KEY = ["session"] as const;

/**
 * The signed-in person, or null when nobody is. Asked of /session/state, which answers 200 either
 * way: a signed-out page logs no 401 in the browser's console.
 */
export async function fetchSession(): Promise<Session | null> {
  const state = await api<ApiResponse<"appProbeSession">>("GET", "/session/state");
  // A suspended account's session keeps its token for signing out, the one thing it may still do.
  setCsrfToken(state.session?.csrfToken ?? state.csrfToken ?? null);
  suspended = state.suspended === true;
  return state.signedIn && state.session ? state.session : null;
}

// Beside the session rather than an error of its query: an errored query refetches whenever another
// component starts using it, which would swap the "suspended" page and the loader back and forth.
let suspended = false;

/** Whether the last answer said the cookie's account is a sub-account its agency suspended. */
export function accountSuspended(): boolean {
  return suspended;
}

export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: 60_000, retry: 1 });
}

/** After sign-in, onboarding or accepting an invite: the answer is the new session. */
export function useSetSession() {
  const client = useQueryClient();
  return (session: Session | null) => {
    setCsrfToken(session?.csrfToken ?? null);
    suspended = false;
    client.setQueryData(SESSION_KEY, session);
  };
}

export function canManage(session: Session): boolean {
  return session.user.role === "owner" || session.user.role === "admin";
}

/**
 * For the signed-out pages: whether someone was already signed in when the page opened (then the page
 * sends them on). A session that starts on the page itself does not count: the page navigates on
 * its own, to where it means to go.
 */
export function useSignedInOnArrival(): boolean {
  const session = useSession();
  const [onArrival] = useState(() => session.data != null);
  return onArrival;
}

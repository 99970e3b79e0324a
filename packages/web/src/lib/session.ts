import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, api, setCsrfToken } from "./api.ts";
import type { Session } from "./types.ts";

export const SESSION_KEY = ["session"] as const;

/** The signed-in person, or null when nobody is (a 401 is an answer here, not an error). */
export async function fetchSession(): Promise<Session | null> {
  try {
    const session = await api<Session>("GET", "/session");
    setCsrfToken(session.csrfToken);
    return session;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      setCsrfToken(null);
      return null;
    }
    throw err;
  }
}

export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: 60_000, retry: 1 });
}

/** After sign-in, onboarding or accepting an invite: the answer is the new session. */
export function useSetSession() {
  const client = useQueryClient();
  return (session: Session | null) => {
    setCsrfToken(session?.csrfToken ?? null);
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

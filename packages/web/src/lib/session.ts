import { useQuery, useQueryClient } from "@tanstack/react-query";
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

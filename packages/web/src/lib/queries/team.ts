// The team (/app/api/team*): members and pending invites, read by Settings → Team and by the inbox
// (assignees, @mentions).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, errorMessage } from "../api.ts";
import type { Role, Team } from "../api-types.ts";
import { notify } from "../notify.ts";

export const teamKeys = {
  all: ["team"] as const,
};

export function useTeam(options: { staleTime?: number } = {}) {
  return useQuery({
    queryKey: teamKeys.all,
    queryFn: () => api<Team>("GET", "/team"),
    staleTime: options.staleTime,
  });
}

/** Invites a teammate; the answer's link is the invite (shown once). */
export function useInviteTeammate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (invite: { email: string; role: Role }) =>
      api<{ url: string }>("POST", "/team/invites", invite),
    onSuccess: () => void client.invalidateQueries({ queryKey: teamKeys.all }),
  });
}

export function useRevokeInvite() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (inviteId: string) => api("DELETE", `/team/invites/${inviteId}`),
    onSuccess: () => void client.invalidateQueries({ queryKey: teamKeys.all }),
    onError: (err) => notify(errorMessage(err), "error"),
  });
}

export function useRemoveTeammate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (memberId: string) => api("DELETE", `/team/members/${memberId}`),
    onSuccess: () => void client.invalidateQueries({ queryKey: teamKeys.all }),
    onError: (err) => notify(errorMessage(err), "error"),
  });
}

// The team (/app/api/team*): members and pending invites, read by Settings → Team and by the inbox
// (assignees, @mentions).
import { useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { Role, Team } from "../api-types.ts";
import { useAppMutation } from "./mutation.ts";

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
  return useAppMutation({
    mutationFn: (invite: { email: string; role: Role }) =>
      api<{ url: string }>("POST", "/team/invites", invite),
    invalidates: [teamKeys.all],
  });
}

export function useRevokeInvite() {
  return useAppMutation({
    mutationFn: (inviteId: string) => api("DELETE", `/team/invites/${inviteId}`),
    invalidates: [teamKeys.all],
    notifyError: true,
  });
}

export function useRemoveTeammate() {
  return useAppMutation({
    mutationFn: (memberId: string) => api("DELETE", `/team/members/${memberId}`),
    invalidates: [teamKeys.all],
    notifyError: true,
  });
}

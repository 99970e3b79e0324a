// Who else is viewing or typing in a conversation (/app/api/conversations/:id/presence): read once
// when the conversation opens, then kept current by the event stream's `presence` events (lib/live.ts
// writes them into this query). Heartbeats are best effort: a failed one only means a teammate sees
// us a little later, so none is reported.
import { useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { ApiResponse } from "../api-types.ts";

export type Presence = ApiResponse<"appPresence">;
export type PresencePerson = Presence["people"][number];
export type PresenceState = PresencePerson["state"];

/** Not under the conversation's key: a new message must not refetch who is there. */
export const presenceKeys = {
  of: (conversationId: string) => ["presence", conversationId] as const,
};

/** The other teammates in the conversation (the stream's lists name everyone: the person is left out here). */
export function usePresence(conversationId: string, meId: string): PresencePerson[] {
  const query = useQuery({
    queryKey: presenceKeys.of(conversationId),
    queryFn: () => api<Presence>("GET", `/conversations/${conversationId}/presence`),
    // The stream pushes every change; this only catches up after a stream outage.
    refetchInterval: 30_000,
  });
  return (query.data?.people ?? []).filter((p) => p.userId !== meId);
}

export function sendPresence(conversationId: string, state: PresenceState): void {
  api("POST", `/conversations/${conversationId}/presence`, { state }).catch(() => {});
}

export function leavePresence(conversationId: string): void {
  api("DELETE", `/conversations/${conversationId}/presence`).catch(() => {});
}

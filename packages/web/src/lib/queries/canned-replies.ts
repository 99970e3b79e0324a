// Canned replies (/app/api/canned-replies): Settings → Canned replies edits them, the reply box lists
// them after "/". One key: every change refreshes both.
import { useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { ApiResponse } from "../api-types.ts";
import { useAppMutation } from "./mutation.ts";

/** One canned reply, as the server lists it. */
export type CannedReply = ApiResponse<"appListCannedReplies">["data"][number];

export type CannedReplyInput = Pick<CannedReply, "shortcut" | "title" | "body">;

export const cannedReplyKeys = { all: ["canned-replies"] as const };

/** The account's canned replies in shortcut order. */
export function useCannedReplies(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: cannedReplyKeys.all,
    queryFn: async () => (await api<{ data: CannedReply[] }>("GET", "/canned-replies")).data,
    staleTime: 60_000,
    ...options,
  });
}

export function useSaveCannedReply() {
  return useAppMutation({
    mutationFn: ({ id, ...input }: CannedReplyInput & { id?: string }) =>
      id
        ? api<CannedReply>("PATCH", `/canned-replies/${id}`, input)
        : api<CannedReply>("POST", "/canned-replies", input),
    notice: (saved, { id }) =>
      id ? `Canned reply /${saved.shortcut} saved` : `Canned reply /${saved.shortcut} added`,
    invalidates: [cannedReplyKeys.all],
  });
}

export function useDeleteCannedReply() {
  return useAppMutation({
    mutationFn: (reply: CannedReply) => api("DELETE", `/canned-replies/${reply.id}`),
    notice: (_, reply) => `Canned reply /${reply.shortcut} deleted`,
    invalidates: [cannedReplyKeys.all],
  });
}

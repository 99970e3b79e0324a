// Canned replies (/app/api/canned-replies): Settings → Canned replies edits them, the reply box lists
// them after "/". One key: every change refreshes both.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api.ts";
import { notify } from "../notify.ts";

export interface CannedReply {
  id: string;
  shortcut: string;
  title: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

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
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...input }: CannedReplyInput & { id?: string }) =>
      id
        ? api<CannedReply>("PATCH", `/canned-replies/${id}`, input)
        : api<CannedReply>("POST", "/canned-replies", input),
    onSuccess: (saved, { id }) => {
      notify(id ? `Canned reply /${saved.shortcut} saved` : `Canned reply /${saved.shortcut} added`);
      void client.invalidateQueries({ queryKey: cannedReplyKeys.all });
    },
  });
}

export function useDeleteCannedReply() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (reply: CannedReply) => api("DELETE", `/canned-replies/${reply.id}`),
    onSuccess: (_, reply) => {
      notify(`Canned reply /${reply.shortcut} deleted`);
      void client.invalidateQueries({ queryKey: cannedReplyKeys.all });
    },
  });
}

// Private notes of a conversation (GET/POST /app/api/conversations/:id/notes). The key sits under the
// conversation's own, so whatever refreshes the conversation (the live stream, a reply) refreshes its
// notes too.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { Note } from "../api-types.ts";

export type { Note, NotePerson } from "../api-types.ts";

export const noteKeys = {
  of: (conversationId: string) => ["conversation", conversationId, "notes"] as const,
};

/** The conversation's notes, oldest first. */
export function useNotes(conversationId: string) {
  return useQuery({
    queryKey: noteKeys.of(conversationId),
    queryFn: async () => (await api<{ data: Note[] }>("GET", `/conversations/${conversationId}/notes`)).data,
  });
}

export function useAddNote(conversationId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: string) => api<Note>("POST", `/conversations/${conversationId}/notes`, { body }),
    onSuccess: (note) => {
      // Shown at once; the live event refetches the list as well.
      client.setQueryData<Note[]>(noteKeys.of(conversationId), (notes) =>
        notes?.some((n) => n.id === note.id) ? notes : [...(notes ?? []), note],
      );
      void client.invalidateQueries({ queryKey: noteKeys.of(conversationId) });
    },
  });
}

// The inbox (/app/api/conversations*): the list, one conversation, and what the app changes on it. The
// live stream (lib/live.ts) invalidates through these keys; a conversation's summary and notes sit
// under its key, so whatever refreshes it refreshes them too.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { ConversationDetail, ConversationPage, ConversationSummary, Message } from "../api-types.ts";
import { base64Of } from "../files.ts";
import { useGet } from "./get.ts";
import { contactKeys } from "./keys.ts";
import { useAppMutation } from "./mutation.ts";
import { usePagedList } from "./paging.ts";

export type ConversationPatch = Partial<{
  status: "open" | "resolved";
  assigneeId: string | null;
  botPaused: boolean;
  humanAlert: false;
}>;

export const conversationKeys = {
  all: ["conversations"] as const,
  /** `filters`: the query string of the inbox filters. */
  list: (filters: string) => [...conversationKeys.all, filters] as const,
  detail: (conversationId: string) => ["conversation", conversationId] as const,
  summary: (conversationId: string) => [...conversationKeys.detail(conversationId), "summary"] as const,
  /** The signed-in person's unread total (under `all`: whatever refreshes the list refreshes it). */
  unread: () => [...conversationKeys.all, "unread-total"] as const,
};

/** How many conversations the signed-in person has unread (their own read marks; up to 100). */
export function useUnreadTotal() {
  return useGet<{ unreadConversations: number }>(conversationKeys.unread(), "/inbox/unread");
}

/** The inbox list for the filters, 50 a page. */
export function useConversations(filters: URLSearchParams) {
  return usePagedList<ConversationPage>(
    conversationKeys.list(filters.toString()),
    "/conversations",
    50,
    filters,
  );
}

/** One contact's conversations, newest activity first (a contact has one per channel it wrote on). */
export function useContactConversations(contactId: string | null) {
  return useQuery({
    queryKey: conversationKeys.list(`contactId=${contactId}&limit=50`),
    queryFn: () =>
      api<ConversationPage>(
        "GET",
        `/conversations?contactId=${encodeURIComponent(contactId ?? "")}&limit=50`,
      ),
    enabled: Boolean(contactId),
  });
}

export function useConversation(conversationId: string) {
  const client = useQueryClient();
  return useQuery({
    queryKey: conversationKeys.detail(conversationId),
    queryFn: async () => {
      const d = await api<ConversationDetail>("GET", `/conversations/${conversationId}`);
      // Opening it marks it read: the list's unread badge goes.
      void client.invalidateQueries({ queryKey: conversationKeys.all });
      return d;
    },
  });
}

export function useConversationSummary(conversationId: string) {
  return useGet<ConversationSummary>(
    conversationKeys.summary(conversationId),
    `/conversations/${conversationId}/summary`,
  );
}

/** Refetches the conversation (with its notes and summary) and the inbox list. */
export function useRefreshConversation() {
  const client = useQueryClient();
  return (conversationId: string) => {
    void client.invalidateQueries({ queryKey: conversationKeys.detail(conversationId) });
    void client.invalidateQueries({ queryKey: conversationKeys.all });
  };
}

export function useUpdateConversation(conversationId: string) {
  return useAppMutation({
    mutationFn: (body: ConversationPatch) => api("PATCH", `/conversations/${conversationId}`, body),
    invalidates: [conversationKeys.detail(conversationId), conversationKeys.all],
    notifyError: true,
  });
}

export function useSendMessage(conversationId: string) {
  return useMutation({
    // A person's reply, with at most one image or PDF (sent base64 in the reply's JSON).
    mutationFn: async (reply: string | { body: string; file: File | null }) => {
      const { body, file } = typeof reply === "string" ? { body: reply, file: null } : reply;
      const attachment = file ? { contentType: file.type, data: await base64Of(file) } : undefined;
      return api<Message>("POST", `/conversations/${conversationId}/messages`, {
        body,
        ...(attachment ? { attachment } : {}),
      });
    },
  });
}

/** "Typing…" for the customer's widget: best effort, a failure is not worth a word. */
export function sendTyping(conversationId: string): void {
  api("POST", `/conversations/${conversationId}/typing`).catch(() => {});
}

/** Sends a failed reply again. */
export function useResendMessage(messageId: string) {
  return useAppMutation({
    mutationFn: () => api("POST", `/messages/${messageId}/resend`),
    notifyError: true,
  });
}

export type ConversationBulkAction = "assign" | "resolve" | "reopen" | "label" | "unlabel";

/**
 * One action on the selected conversations in one call (POST /app/api/conversations/bulk): assign
 * (assigneeId, null unassigns), resolve, reopen, label / unlabel (the conversations' contacts).
 * Answers { updated, notFound }; refreshes the inbox and the open conversations.
 */
export function useBulkConversations() {
  return useAppMutation({
    mutationFn: (body: {
      ids: string[];
      action: ConversationBulkAction;
      assigneeId?: string | null;
      label?: string;
    }) => api<{ updated: number; notFound: string[] }>("POST", "/conversations/bulk", body),
    // A label shows on the contacts page.
    invalidates: [conversationKeys.all, ["conversation"], contactKeys.all],
    notifyError: true,
  });
}

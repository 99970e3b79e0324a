import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { conversationKeys } from "./queries/conversations.ts";
import { notificationKeys } from "./queries/notifications.ts";
import { type Presence, presenceKeys } from "./queries/presence.ts";
import { SESSION_KEY } from "./session.ts";

/**
 * Server-sent events from /app/api/events: a conversation changed (a message arrived, a delivery
 * status moved). The inbox list, that conversation and the bell are refetched; nothing is reloaded.
 */
export function useLiveUpdates(enabled: boolean): void {
  const client = useQueryClient();
  useEffect(() => {
    if (!enabled) return;
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const open = () => {
      source = new EventSource("/app/api/events");
      source.addEventListener("conversation", (event) => {
        let conversationId: string | undefined;
        try {
          conversationId = (JSON.parse((event as MessageEvent<string>).data) as { conversationId?: string })
            .conversationId;
        } catch {}
        void client.invalidateQueries({ queryKey: conversationKeys.all });
        if (conversationId)
          void client.invalidateQueries({ queryKey: conversationKeys.detail(conversationId) });
        // What changes a conversation (a hand-over, an assignment) may have rung the bell.
        void client.invalidateQueries({ queryKey: notificationKeys.bell() });
      });
      // Who is viewing or typing in a conversation: the whole list, written where the conversation reads it.
      source.addEventListener("presence", (event) => {
        try {
          const presence = JSON.parse((event as MessageEvent<string>).data) as Presence;
          client.setQueryData(presenceKeys.of(presence.conversationId), presence);
        } catch {}
      });
      source.addEventListener("open", () => {
        // After a reconnect, catch up on what changed while the stream was down.
        void client.invalidateQueries({ queryKey: conversationKeys.all });
        void client.invalidateQueries({ queryKey: notificationKeys.bell() });
      });
      source.addEventListener("error", () => {
        if (source?.readyState !== EventSource.CLOSED || stopped) return;
        // Closed for good (signed out elsewhere, or the server said no): check the session, try again.
        void client.invalidateQueries({ queryKey: SESSION_KEY });
        retry = setTimeout(open, 3000);
      });
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(retry);
      source?.close();
    };
  }, [enabled, client]);
}

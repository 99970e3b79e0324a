// Channels (/app/api/channels*): the account's channels and the changes made in Settings → Channels.
// A channel's state shows on the dashboard too (the ones in error), so a change refreshes both.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, errorMessage } from "../api.ts";
import type { Channel, Page } from "../api-types.ts";
import { notify } from "../notify.ts";
import { dashboardKeys } from "./dashboard.ts";
import { useGet } from "./get.ts";
import { useAppMutation } from "./mutation.ts";

export const channelKeys = {
  all: ["channels"] as const,
};

/** Every channel of the account (one page of up to 200: far more than an account has). */
export function useChannels() {
  return useGet<Page<Channel>>(channelKeys.all, "/channels?limit=200");
}

/** Creates a channel (`id` null) or saves one; "… saved" for a change, the caller says the rest. */
export function useSaveChannel(id: string | null, options: { refreshDashboard?: boolean } = {}) {
  return useAppMutation({
    mutationFn: (body: Record<string, unknown>) =>
      id ? api<Channel>("PATCH", `/channels/${id}`, body) : api<Channel>("POST", "/channels", body),
    notice: (saved) => (id ? `${saved.name} saved` : undefined),
    invalidates: options.refreshDashboard ? [channelKeys.all, dashboardKeys.all] : [channelKeys.all],
  });
}

/** Pauses an active channel, or resumes a paused one (or one in error, which clears its last error). */
export function useToggleChannel(channel: Channel) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () =>
      api<Channel>("PATCH", `/channels/${channel.id}`, {
        status: channel.status === "active" ? "paused" : "active",
      }),
    onSuccess: (saved) => {
      void client.invalidateQueries({ queryKey: channelKeys.all });
      void client.invalidateQueries({ queryKey: dashboardKeys.all });
      notify(
        saved.status === "paused"
          ? saved.type === "web"
            ? `${saved.name} paused: the chat no longer shows on your website`
            : `${saved.name} paused: its replies fail until you resume it`
          : saved.status === "error"
            ? `${saved.name} is still in error: ${saved.lastError ?? "see the list"}`
            : `${saved.name} resumed`,
        saved.status === "error" ? "error" : "success",
      );
    },
    onError: (err) => notify(errorMessage(err), "error"),
  });
}

export function useDeleteChannel(channel: Channel) {
  return useAppMutation({
    mutationFn: () => api("DELETE", `/channels/${channel.id}`),
    notice: `${channel.name} deleted`,
    invalidates: [channelKeys.all],
  });
}

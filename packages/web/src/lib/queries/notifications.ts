// The bell and the notification preferences: every query and mutation of /app/api/notifications*,
// /app/api/notification-preferences and /app/api/settings/notifications, with one key factory so the
// live updates and the mutations refresh exactly what they change.
import { type InfiniteData, useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../api.ts";
import type {
  AppNotification,
  NotificationDefaults,
  NotificationPage,
  NotificationPreferences,
  PreferenceMap,
} from "../api-types.ts";
import { useAppMutation } from "./mutation.ts";

export type {
  AppNotification,
  NotificationDefaults,
  NotificationKindInfo,
  NotificationPage,
  NotificationPreferences,
  Preference,
  PreferenceMap,
} from "../api-types.ts";

import { useGet } from "./get.ts";

export const notificationKeys = {
  all: ["notifications"] as const,
  bell: () => [...notificationKeys.all, "bell"] as const,
  preferences: () => [...notificationKeys.all, "preferences"] as const,
  defaults: () => [...notificationKeys.all, "defaults"] as const,
};

/** How often the bell asks for news besides the live stream's nudges. */
export const BELL_POLL_MS = 15_000;
const PAGE_SIZE = 20;

/** The bell: newest first, 20 a page, polled; `unreadCount` comes with the first page. */
export function useBell() {
  return useInfiniteQuery({
    queryKey: notificationKeys.bell(),
    queryFn: ({ pageParam }) =>
      api<NotificationPage>(
        "GET",
        `/notifications?limit=${PAGE_SIZE}${pageParam ? `&before=${encodeURIComponent(pageParam)}` : ""}`,
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: BELL_POLL_MS,
  });
}

/** The bell's notifications, its unread count, and whether older ones exist. */
export function bellView(data: InfiniteData<NotificationPage> | undefined) {
  return {
    items: data?.pages.flatMap((p) => p.data) ?? [],
    unreadCount: data?.pages[0]?.unreadCount ?? 0,
  };
}

/** Marks some (ids) or all (no ids) of the person's notifications read; the bell shows it at once. */
export function useMarkNotificationsRead() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ids?: string[]) => api<void>("POST", "/notifications/read", ids ? { ids } : {}),
    onMutate: async (ids) => {
      await client.cancelQueries({ queryKey: notificationKeys.bell() });
      const now = new Date().toISOString();
      client.setQueryData<InfiniteData<NotificationPage>>(notificationKeys.bell(), (data) => {
        if (!data) return data;
        const marks = (n: AppNotification) => !n.readAt && (!ids || ids.includes(n.id));
        const newlyRead = data.pages.flatMap((p) => p.data).filter(marks).length;
        return {
          ...data,
          pages: data.pages.map((p, i) => ({
            ...p,
            unreadCount: i === 0 ? (ids ? Math.max(0, p.unreadCount - newlyRead) : 0) : p.unreadCount,
            data: p.data.map((n) => (marks(n) ? { ...n, readAt: now } : n)),
          })),
        };
      });
    },
    onSettled: () => client.invalidateQueries({ queryKey: notificationKeys.bell() }),
  });
}

export function useNotificationPreferences() {
  return useGet<NotificationPreferences>(notificationKeys.preferences(), "/notification-preferences");
}

export function useSaveNotificationPreferences() {
  return useAppMutation({
    mutationFn: (preferences: PreferenceMap) =>
      api<NotificationPreferences>("PUT", "/notification-preferences", { preferences }),
    replaces: notificationKeys.preferences(),
  });
}

/** The account's defaults (owners and admins). */
export function useNotificationDefaults(enabled = true) {
  return useGet<NotificationDefaults>(notificationKeys.defaults(), "/settings/notifications", enabled);
}

export function useSaveNotificationDefaults() {
  return useAppMutation({
    mutationFn: (body: { defaults: PreferenceMap; creditsLowThreshold: number | null }) =>
      api<NotificationDefaults>("PUT", "/settings/notifications", body),
    replaces: notificationKeys.defaults(),
    // A person who never chose follows the defaults.
    invalidates: [notificationKeys.preferences()],
  });
}

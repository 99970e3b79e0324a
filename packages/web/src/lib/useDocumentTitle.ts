import { useEffect } from "react";

/**
 * The tab's title for a page: "Inbox · Parley". Null leaves the title as it is (a page whose child
 * names the tab, or data still loading).
 */
export function useDocumentTitle(title: string | null | undefined): void {
  useEffect(() => {
    if (!title) return;
    pageTitle = `${title} · Parley`;
    applyTitle();
  }, [title]);
}

// The page's title and the signed-in person's unread count, kept apart so either can change alone.
let pageTitle = "Parley";
let unreadCount = 0;

function applyTitle(): void {
  const count = unreadCount > 99 ? "99+" : String(unreadCount);
  document.title = unreadCount > 0 ? `(${count}) ${pageTitle}` : pageTitle;
}

/** Puts the person's unread conversations in front of every page's title: "(3) Inbox · Parley". */
export function useUnreadInTitle(count: number): void {
  useEffect(() => {
    unreadCount = count;
    applyTitle();
    return () => {
      unreadCount = 0;
      applyTitle();
    };
  }, [count]);
}

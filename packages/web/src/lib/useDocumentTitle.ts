import { useEffect } from "react";

/**
 * The tab's title for a page: "Inbox · Parley". Null leaves the title as it is (a page whose child
 * names the tab, or data still loading).
 */
export function useDocumentTitle(title: string | null | undefined): void {
  useEffect(() => {
    if (!title) return;
    shownTitle = title;
    pageTitle = `${title} · ${productName}`;
    applyTitle();
  }, [title]);
}

// The page's title and the signed-in person's unread count, kept apart so either can change alone.
let pageTitle = "Parley";
let unreadCount = 0;
// An agency's brand name replaces Parley's for its sub-accounts (lib/brand.ts).
let productName = "Parley";
let shownTitle: string | null = null;

/** The name after every page's title: the brand's, or Parley. */
export function setProductName(name: string): void {
  if (name === productName) return;
  productName = name;
  pageTitle = shownTitle ? `${shownTitle} · ${name}` : name;
  applyTitle();
}

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

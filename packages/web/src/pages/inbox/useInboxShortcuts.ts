import { useHotkeys } from "@mantine/hooks";
import { useLocation, useNavigate } from "react-router";
import type { Session } from "../../lib/api-types.ts";
import { notify } from "../../lib/notify.ts";
import { useUpdateConversation } from "../../lib/queries/conversations.ts";

/**
 * The inbox without a mouse: j/k, /, r, e, a, Esc and ?. Single keys never fire while typing (Mantine's
 * default ignores inputs and textareas), so "j" in the reply box is a j; Esc there leaves the box first.
 * The list is read from the page, so j/k follow exactly the order (and filters, or search) shown.
 */
export function useInboxShortcuts({
  session,
  conversationId,
  helpOpen,
  openHelp,
}: {
  session: Session;
  conversationId: string | null;
  /** While the help dialog is open its own Esc closes it; nothing else fires behind it. */
  helpOpen: boolean;
  openHelp: () => void;
}) {
  const navigate = useNavigate();
  const { search } = useLocation();
  const patch = useUpdateConversation(conversationId ?? "");
  const blocked = () => helpOpen || dialogOpen();

  const step = (by: 1 | -1) => {
    if (blocked()) return;
    const rows = listRows();
    if (rows.length === 0) return;
    const at = rows.findIndex((row) => row.getAttribute("aria-current") === "page");
    const next = rows[at === -1 ? 0 : Math.min(rows.length - 1, Math.max(0, at + by))];
    if (!next) return;
    // The row's own link keeps the filters in the address; focus on it announces the row as current.
    if (next.getAttribute("aria-current") !== "page") next.click();
    next.focus();
  };

  const updateOpen = (body: { status: "resolved" } | { assigneeId: string }, done: string) => {
    if (blocked() || !conversationId) return;
    patch.mutate(body, { onSuccess: () => notify(done) });
  };

  const backToList = () => {
    if (!conversationId) return;
    const closed = conversationId;
    void navigate(`/inbox${search}`);
    // Focus returns to the row just left (on a phone the list shows again first).
    focusWhenShown(() => listRows().find((row) => row.pathname === `/inbox/${closed}`) ?? null);
  };

  useHotkeys([
    ["j", () => step(1)],
    ["k", () => step(-1)],
    // "/" needs Shift on some keyboard layouts.
    ...(["/", "shift+/"] as const).map(
      (key) =>
        [
          key,
          () => {
            if (blocked()) return;
            // On a phone the list is hidden behind the open conversation: show it first.
            if (conversationId && !searchBox()?.offsetParent) void navigate(`/inbox${search}`);
            focusWhenShown(searchBox);
          },
        ] as [string, () => void],
    ),
    [
      "r",
      () => {
        if (!blocked() && conversationId) focusWhenShown(replyBox);
      },
    ],
    ["e", () => updateOpen({ status: "resolved" }, "Conversation resolved")],
    ["a", () => updateOpen({ assigneeId: session.user.id }, "Conversation assigned to you")],
    ...(["shift+?", "?"] as const).map(
      (key) =>
        [
          key,
          () => {
            if (!blocked()) openHelp();
          },
        ] as [string, () => void],
    ),
  ]);

  // Esc also where typing: it leaves the field first, a second Esc goes back to the list.
  useHotkeys(
    [
      [
        "escape",
        (event) => {
          // A dropdown, the emoji picker or a dialog handled it (or closes on it): theirs.
          if (event.defaultPrevented || blocked()) return;
          // The dialog may already be gone from the state when this runs; the key was pressed inside it.
          if (event.target instanceof Element && event.target.closest('[role="dialog"]')) return;
          const focused = document.activeElement;
          if (focused instanceof HTMLElement && focused.getAttribute("aria-expanded") === "true") return;
          if (focused instanceof HTMLElement && isTypingField(focused)) {
            focused.blur();
            return;
          }
          backToList();
        },
        { preventDefault: false },
      ],
    ],
    [],
  );
}

/** The rows shown, in order: the search's matches while searching, else the conversation list. */
function listRows(): HTMLAnchorElement[] {
  const list =
    document.querySelector('ul[aria-label="Search results"]') ??
    document.querySelector('ul[aria-label="Conversation list"]');
  return list ? Array.from(list.querySelectorAll<HTMLAnchorElement>("li > a")) : [];
}

function searchBox(): HTMLInputElement | null {
  return document.querySelector<HTMLInputElement>('section[aria-label="Conversations"] input[type="search"]');
}

/** The open conversation's composer (the reply, or the private note when that tab is chosen). */
function replyBox(): HTMLTextAreaElement | null {
  return document.querySelector<HTMLTextAreaElement>(
    'section[aria-labelledby="conversation-title"] textarea',
  );
}

function dialogOpen(): boolean {
  return document.querySelector('[role="dialog"][aria-modal="true"]') !== null;
}

function isTypingField(el: HTMLElement): boolean {
  return el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName);
}

/** Focuses the element once it is rendered and shown (after a navigation), trying for a few frames. */
function focusWhenShown(find: () => HTMLElement | null, framesLeft = 20): void {
  const el = find();
  if (el?.offsetParent) {
    el.focus();
    return;
  }
  if (framesLeft > 0) requestAnimationFrame(() => focusWhenShown(find, framesLeft - 1));
}

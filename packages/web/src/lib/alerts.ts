// Alerts in this browser (issue 33): a short beep and a browser notification when a new conversation
// arrives, a message arrives in a conversation assigned to the person, or a conversation needs a
// human. Each person chooses in localStorage (keyed by their user id): the choice belongs to this
// browser, as the sound and the notification permission do.
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { api } from "./api.ts";
import type { ConversationPage } from "./api-types.ts";
import { conversationKeys, useUnreadTotal } from "./queries/conversations.ts";
import { useUnreadInTitle } from "./useDocumentTitle.ts";

export type AlertKind = "newConversation" | "assignedMessage" | "needsHuman";

export interface AlertChoices {
  sound: Record<AlertKind, boolean>;
  browser: boolean;
}

/** Off until the person switches them on: no surprise noise. */
export const NO_ALERTS: AlertChoices = {
  sound: { newConversation: false, assignedMessage: false, needsHuman: false },
  browser: false,
};

const storageKey = (userId: string) => `parley.alerts.${userId}`;

export function readAlertChoices(userId: string): AlertChoices {
  try {
    const raw = JSON.parse(
      localStorage.getItem(storageKey(userId)) ?? "null",
    ) as Partial<AlertChoices> | null;
    return {
      sound: { ...NO_ALERTS.sound, ...(raw?.sound ?? {}) },
      browser: raw?.browser === true,
    };
  } catch {
    return NO_ALERTS;
  }
}

export function writeAlertChoices(userId: string, choices: AlertChoices): void {
  localStorage.setItem(storageKey(userId), JSON.stringify(choices));
  window.dispatchEvent(new Event("parley-alerts"));
}

/** The person's choices, following changes made on the Account page (or in another tab). */
export function useAlertChoices(userId: string): [AlertChoices, (next: AlertChoices) => void] {
  const [choices, setChoices] = useState(() => readAlertChoices(userId));
  useEffect(() => {
    const reload = () => setChoices(readAlertChoices(userId));
    reload();
    window.addEventListener("parley-alerts", reload);
    window.addEventListener("storage", reload);
    return () => {
      window.removeEventListener("parley-alerts", reload);
      window.removeEventListener("storage", reload);
    };
  }, [userId]);
  return [choices, (next) => writeAlertChoices(userId, next)];
}

let audio: AudioContext | null = null;

/** A short two-tone beep made in code (no audio file). */
export function beep(): void {
  try {
    audio ??= new AudioContext();
    const now = audio.currentTime;
    const gain = audio.createGain();
    gain.connect(audio.destination);
    gain.gain.setValueAtTime(0.0001, now);
    gain.gain.exponentialRampToValueAtTime(0.2, now + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.3);
    for (const [freq, start] of [
      [880, 0],
      [1320, 0.12],
    ] as const) {
      const osc = audio.createOscillator();
      osc.frequency.value = freq;
      osc.connect(gain);
      osc.start(now + start);
      osc.stop(now + start + 0.15);
    }
  } catch {
    // No audio in this browser (or not allowed yet): the alert is silent.
  }
}

const TITLES: Record<AlertKind, string> = {
  newConversation: "New conversation",
  assignedMessage: "New message in a conversation assigned to you",
  needsHuman: "A conversation needs a human",
};

interface Seen {
  lastMessageAt: string | null;
  humanAlert: boolean;
  unreadCount: number;
}

/**
 * Watches the newest conversations (refetched by the live stream through conversationKeys.all) and
 * alerts on what changed since the last look; the first look only sets the baseline. The person's
 * own actions are outbound messages or changes that are none of the three, so they never alert.
 */
export function useInboxAlerts(userId: string): void {
  const [choices] = useAlertChoices(userId);
  const unread = useUnreadTotal();
  useUnreadInTitle(unread.data?.unreadConversations ?? 0);
  const anyOn = choices.browser || Object.values(choices.sound).some(Boolean);
  const newest = useQuery({
    queryKey: conversationKeys.list("alerts&limit=20"),
    queryFn: () => api<ConversationPage>("GET", "/conversations?limit=20"),
    enabled: anyOn,
  });
  const seen = useRef<Map<string, Seen> | null>(null);
  const since = useRef(Date.now());
  const navigate = useNavigate();
  // Read when an alert fires, so a change of choice does not re-run the comparison.
  const latest = useRef({ choices, navigate });
  latest.current = { choices, navigate };

  useEffect(() => {
    if (!anyOn) seen.current = null;
  }, [anyOn]);

  useEffect(() => {
    const rows = newest.data?.data;
    if (!rows) return;
    const before = seen.current;
    seen.current = new Map(
      rows.map((c) => [
        c.id,
        { lastMessageAt: c.lastMessageAt, humanAlert: c.humanAlert, unreadCount: c.unreadCount },
      ]),
    );
    if (!before) {
      since.current = Date.now();
      return;
    }
    for (const c of rows) {
      const was = before.get(c.id);
      const openHere = document.hasFocus() && window.location.pathname.endsWith(`/${c.id}`);
      if (openHere) continue;
      // The customer wrote since the last look: the last message is theirs, or the bot already answered
      // it between two looks (how fast depends on the machine) and what is left of it is one more unread.
      const inboundNews =
        c.lastMessageAt !== (was?.lastMessageAt ?? null) &&
        (c.lastMessage?.direction === "inbound" || c.unreadCount > (was?.unreadCount ?? 0));
      // A conversation first seen here is "new" even when the bot already handed it over between two
      // looks: one alert, whose sound plays for either choice.
      let kind: AlertKind | null = null;
      const isNew = !was && inboundNews && Date.parse(c.createdAt) >= since.current - 1000;
      if (isNew) kind = "newConversation";
      else if (c.humanAlert && !was?.humanAlert) kind = "needsHuman";
      else if (inboundNews && c.assignee?.id === userId) kind = "assignedMessage";
      if (kind) {
        const who = c.contact.name ?? c.contact.fromId ?? c.contact.phone ?? "a customer";
        const also: AlertKind[] = isNew && c.humanAlert ? ["needsHuman"] : [];
        raiseAlert(latest.current.choices, kind, also, who, () => latest.current.navigate(`/inbox/${c.id}`));
      }
    }
  }, [newest.data, userId]);
}

function raiseAlert(
  choices: AlertChoices,
  kind: AlertKind,
  also: AlertKind[],
  who: string,
  open: () => void,
): void {
  if (choices.sound[kind] || also.some((k) => choices.sound[k])) beep();
  if (choices.browser && "Notification" in window && Notification.permission === "granted") {
    const note = new Notification(TITLES[kind], { body: who });
    note.onclick = () => {
      window.focus();
      open();
    };
  }
}

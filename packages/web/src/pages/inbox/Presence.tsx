// Presence in the open conversation, so two teammates don't answer at once: "Sam is viewing" /
// "Sam is typing…" under the title (never oneself), and a warning above the reply box while someone
// else types a reply. This tab sends a heartbeat every 10 s while it shows the conversation (visible),
// one at most every 2 s while a reply is typed, and says it left when the conversation closes.
import { Alert, Group, Text } from "@mantine/core";
import { useEffect, useRef } from "react";
import { leavePresence, type PresencePerson, sendPresence, usePresence } from "../../lib/queries/presence.ts";

const VIEWING_EVERY_MS = 10_000;
const TYPING_EVERY_MS = 2_000;

/** An e-mail (a teammate with no name set) by its local part, as the inbox list says who wrote. */
function displayName(person: PresencePerson): string {
  const name = person.name.trim();
  return name.includes("@") ? (name.split("@")[0] ?? name) : name;
}

/** Heartbeats while the conversation is open and the tab is visible; "left" when it closes. */
function useViewingHeartbeat(conversationId: string): void {
  useEffect(() => {
    const beat = () => {
      if (document.visibilityState === "visible") sendPresence(conversationId, "viewing");
    };
    beat();
    const timer = window.setInterval(beat, VIEWING_EVERY_MS);
    document.addEventListener("visibilitychange", beat);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener("visibilitychange", beat);
      leavePresence(conversationId);
    };
  }, [conversationId]);
}

/** Under the conversation's title: who else is here, and who is typing. */
export function ConversationPresence({ conversationId, meId }: { conversationId: string; meId: string }) {
  useViewingHeartbeat(conversationId);
  const people = usePresence(conversationId, meId);
  return (
    <Group gap="md" role="status" aria-label="Teammates in this conversation" mih={0}>
      {people.map((p) => (
        <Text key={p.userId} size="sm" c="dimmed" fs={p.state === "typing" ? "italic" : undefined}>
          {p.state === "typing" ? `${displayName(p)} is typing…` : `${displayName(p)} is viewing`}
        </Text>
      ))}
    </Group>
  );
}

/**
 * Placed just before the reply box: warns while another teammate types a reply, and reports this
 * person's own typing in the reply (not in a private note) from the input events of the box beside it.
 */
export function ReplyCollisionWarning({ conversationId, meId }: { conversationId: string; meId: string }) {
  const typists = usePresence(conversationId, meId).filter((p) => p.state === "typing");
  const anchor = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const around = anchor.current?.parentElement;
    if (!around) return;
    let last = 0;
    const onInput = (event: Event) => {
      const field = event.target;
      if (!(field instanceof HTMLTextAreaElement) || !field.value.trim()) return;
      if (field.closest("form")?.getAttribute("data-mode") !== "reply") return;
      if (Date.now() - last < TYPING_EVERY_MS) return;
      last = Date.now();
      sendPresence(conversationId, "typing");
    };
    around.addEventListener("input", onInput);
    return () => around.removeEventListener("input", onInput);
  }, [conversationId]);
  return (
    <div ref={anchor}>
      {typists.length > 0 && (
        <Alert color="orange" variant="light" p="xs" role="status">
          <Text size="sm">
            {typists.length === 1
              ? `${displayName(typists[0] as PresencePerson)} is typing a reply`
              : `${typists.map(displayName).join(" and ")} are typing a reply`}
            {" — check before you answer too."}
          </Text>
        </Alert>
      )}
    </div>
  );
}

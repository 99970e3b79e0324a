// A small line in the thread for what happened besides messages: a person's reply handed the
// conversation back from "needs a human" ("Handed back: Sam replied").
import { Text } from "@mantine/core";
import type { ConversationEvent } from "../../lib/api-types.ts";
import { fullTime, shortTime } from "../../lib/format.ts";

export function eventText(event: ConversationEvent): string {
  if (event.kind === "handed_back") return `Handed back: ${event.userName ?? "a teammate"} replied`;
  return event.kind;
}

/** Events into a timeline by time; one in the same millisecond as an item goes after it. */
export function withEvents<T>(
  items: T[],
  events: ConversationEvent[],
  timeOf: (item: T) => number,
  wrap: (event: ConversationEvent) => T,
): T[] {
  if (events.length === 0) return items;
  const out: T[] = [];
  let j = 0;
  for (const item of items) {
    const at = timeOf(item);
    for (; j < events.length && Date.parse((events[j] as ConversationEvent).createdAt) < at; j++) {
      out.push(wrap(events[j] as ConversationEvent));
    }
    out.push(item);
  }
  for (; j < events.length; j++) out.push(wrap(events[j] as ConversationEvent));
  return out;
}

export function EventLine({ event }: { event: ConversationEvent }) {
  return (
    <Text size="xs" c="dimmed" ta="center" role="note" title={fullTime(event.createdAt)}>
      {eventText(event)} · {shortTime(event.createdAt)}
    </Text>
  );
}

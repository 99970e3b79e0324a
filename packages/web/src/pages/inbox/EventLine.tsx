// A small line in the thread for what happened besides messages: a person's reply handed the
// conversation back from "needs a human" ("Handed back: Sam replied").
import { Text } from "@mantine/core";
import type { ConversationEvent } from "../../lib/api-types.ts";
import { fullTime, shortTime } from "../../lib/format.ts";

export function eventText(event: ConversationEvent): string {
  if (event.kind === "handed_back") return `Handed back: ${event.userName ?? "a teammate"} replied`;
  return event.kind;
}

export function EventLine({ event }: { event: ConversationEvent }) {
  return (
    <Text size="xs" c="dimmed" ta="center" role="note" title={fullTime(event.createdAt)}>
      {eventText(event)} · {shortTime(event.createdAt)}
    </Text>
  );
}

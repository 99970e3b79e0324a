// A private note in the thread: the team's own, never sent to the customer. Styled apart from the
// messages (yellow, a lock, "Private note by …"), with the teammates it mentions highlighted.
import { Group, Text } from "@mantine/core";
import { LineIcon } from "../../components/LineIcon.tsx";
import type { Note } from "../../lib/queries/notes.ts";
import { InternalItem } from "./InternalItem.tsx";
import { splitMentions } from "./mentions.ts";

export function LockIcon({ size = 14 }: { size?: number }) {
  return (
    <LineIcon size={size}>
      <rect x="4" y="11" width="16" height="10" rx="2" />
      <path d="M8 11V7a4 4 0 0 1 8 0v4" />
    </LineIcon>
  );
}

export function noteAuthorName(note: Note): string {
  return note.author.name?.trim() || note.author.email || "a former teammate";
}

export function NoteItem({ note }: { note: Note }) {
  const title = `Private note by ${noteAuthorName(note)}`;
  return (
    <InternalItem
      article
      label={title}
      heading={
        <Group gap={6} wrap="nowrap" c="yellow.9">
          <LockIcon />
          <Text size="xs" fw={700} c="dark.7">
            {title}
          </Text>
        </Group>
      }
      createdAt={note.createdAt}
      bg="var(--mantine-color-yellow-0)"
      border="1px solid var(--mantine-color-yellow-5)"
      data-note-id={note.id}
    >
      <Text size="sm" mt={2} style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
        {splitMentions(note.body, note.mentions).map((part, i) =>
          part.mention ? (
            <Text
              // The parts of one note never reorder.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              key={i}
              component="strong"
              fw={700}
              c="blue.9"
              data-mention=""
              style={{ background: "var(--mantine-color-yellow-2)", borderRadius: 3, padding: "0 2px" }}
            >
              {part.text}
            </Text>
          ) : (
            part.text
          ),
        )}
      </Text>
      <Text size="xs" c="dimmed" fs="italic" mt={2}>
        Only your team sees this
      </Text>
    </InternalItem>
  );
}

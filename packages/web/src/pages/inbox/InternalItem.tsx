// The thread's items only the team sees (private notes, the bot's function calls): a card narrower
// than the messages and centred, with what it is on the left of its first line and the time on the right.
import { Box, Group, Paper, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { fullTime, shortTime } from "../../lib/format.ts";

export function InternalItem({
  label,
  heading,
  createdAt,
  bg,
  border,
  article = false,
  children,
  ...data
}: {
  /** The card's accessible name. */
  label: string;
  /** The first line's left side: the title, an icon, a badge. */
  heading: ReactNode;
  createdAt: string;
  bg: string;
  border: string;
  /** An article (a note someone wrote) rather than a group of facts. */
  article?: boolean;
  children: ReactNode;
} & { [attribute: `data-${string}`]: string }) {
  return (
    <Box style={{ display: "flex", justifyContent: "center" }}>
      <Paper
        component={article ? "article" : "div"}
        role={article ? undefined : "group"}
        aria-label={label}
        p="xs"
        radius="md"
        w="85%"
        bg={bg}
        style={{ border }}
        {...data}
      >
        <Group gap={6} justify="space-between" wrap="nowrap">
          {heading}
          <Text size="xs" c="dimmed" title={fullTime(createdAt)}>
            {shortTime(createdAt)}
          </Text>
        </Group>
        {children}
      </Paper>
    </Box>
  );
}

// A titled part of a page (a bordered section named by its h2): "Credits", "Lists", "Delete"…
import { Paper, Title } from "@mantine/core";
import { type ReactNode, useId } from "react";

export function Section({ title, children }: { title: string; children: ReactNode }) {
  const headingId = useId();
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={headingId}>
      <Title order={2} size="h4" id={headingId} mb="xs">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

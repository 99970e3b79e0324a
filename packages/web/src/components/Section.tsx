// A titled part of a page (a bordered section named by its h2): "Credits", "Lists", "Delete"…, with
// an optional dimmed line under the title saying what the section shows.
import { Paper, Text, Title } from "@mantine/core";
import { type ReactNode, useId } from "react";

export function Section({
  title,
  description,
  children,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  const headingId = useId();
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={headingId}>
      <Title order={2} size="h4" id={headingId} mb={description ? 4 : "xs"}>
        {title}
      </Title>
      {description && (
        <Text size="sm" c="dimmed" mb="sm">
          {description}
        </Text>
      )}
      {children}
    </Paper>
  );
}

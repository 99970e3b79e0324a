import { Paper, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import { useId } from "react";

/**
 * One titled card (settings, a contact, a sub-account, the dashboard): a heading that names the
 * region, a line on what it does, its controls.
 */
export function Section({
  title,
  description,
  children,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={id}>
      <Stack gap="sm">
        <div>
          <Title order={2} size="h4" id={id}>
            {title}
          </Title>
          {description && (
            <Text size="sm" c="dimmed" mt={2}>
              {description}
            </Text>
          )}
        </div>
        {children}
      </Stack>
    </Paper>
  );
}

// A page's heading (its one h1), with an optional line under it and the page's actions on the right.
import { Group, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";

export function PageHeader(props: {
  title: ReactNode;
  /** A dimmed line under the title (a count, a status). */
  subtitle?: ReactNode;
  /** The page's buttons, on the right. */
  children?: ReactNode;
}) {
  const title = (
    <Title order={1} size="h2">
      {props.title}
    </Title>
  );
  return (
    <Group justify="space-between" align={props.subtitle ? "flex-start" : undefined}>
      {props.subtitle ? (
        <div>
          {title}
          <Text size="sm" c="dimmed">
            {props.subtitle}
          </Text>
        </div>
      ) : (
        title
      )}
      {props.children}
    </Group>
  );
}

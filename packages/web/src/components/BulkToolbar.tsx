// The toolbar of a selection (contacts, conversations): how many are selected, the actions on them, a
// way to clear it; the dialogs the actions open go in `children`.
import { Button, Group, Paper, Text } from "@mantine/core";
import type { ReactNode } from "react";

export function BulkToolbar(props: {
  /** "3 contacts", "1 conversation". */
  count: string;
  /** The action buttons. */
  actions: ReactNode;
  onClear: () => void;
  children?: ReactNode;
}) {
  return (
    <Paper component="section" aria-label="Bulk actions" withBorder p="xs" radius="md">
      <Group gap="xs">
        <Text size="sm" fw={500} aria-live="polite">
          {props.count} selected
        </Text>
        {props.actions}
        <Button size="xs" variant="subtle" onClick={props.onClear}>
          Clear selection
        </Button>
      </Group>
      {props.children}
    </Paper>
  );
}

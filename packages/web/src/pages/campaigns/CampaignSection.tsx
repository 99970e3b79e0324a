import { Button, Group, Paper, Title } from "@mantine/core";
import type { ReactNode } from "react";

/**
 * One card of the campaign page (outgoing message, knowledge, functions, follow-ups): a region named by
 * its heading, with what acts on the whole section (an add button, a state badge) across from it.
 */
export function CampaignSection({
  headingId,
  title,
  aside,
  headerMb = 4,
  children,
}: {
  /** The heading's id: it names the region. */
  headingId: string;
  title: ReactNode;
  aside?: ReactNode;
  headerMb?: number | "sm";
  children: ReactNode;
}) {
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={headingId}>
      <Group justify="space-between" mb={headerMb}>
        <Title order={2} size="h4" id={headingId}>
          {title}
        </Title>
        {aside}
      </Group>
      {children}
    </Paper>
  );
}

/** The remove button at the end of one row of a list (a knowledge entry, a function, a follow-up). */
export function RemoveRowButton({ onClick, children }: { onClick: () => void; children: ReactNode }) {
  return (
    <Button size="compact-xs" variant="subtle" color="red" onClick={onClick}>
      {children}
    </Button>
  );
}

/** A section's button that adds a row to its list (light, small: the save button stays the main one). */
export function AddRowButton({
  onClick,
  disabled,
  children,
}: {
  onClick: () => void;
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <Button variant="light" size="xs" onClick={onClick} disabled={disabled}>
      {children}
    </Button>
  );
}

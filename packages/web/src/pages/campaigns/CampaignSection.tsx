import { Alert, Button, Group, Paper, Stack, Text, Title } from "@mantine/core";
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

/**
 * A section that is a list of rows the person adds and removes (functions, follow-ups): its heading
 * with the add button, what the rows are for, a warning when the campaign's engine cannot use them,
 * and a line in place of the rows while there are none.
 */
export function RowsSection(props: {
  headingId: string;
  title: string;
  addLabel: string;
  onAdd: () => void;
  /** False once the list holds as many rows as it may. */
  canAdd: boolean;
  intro: ReactNode;
  /** Why the campaign's engine cannot use (some of) the rows, or nothing. */
  engineWarning?: ReactNode;
  /** Shown between the warning and the rows (figures about them). */
  above?: ReactNode;
  /** The line shown while there are no rows. */
  empty: ReactNode;
  rowCount: number;
  /** The rows. */
  children: ReactNode;
  /** After the rows (a dialog one of them opened). */
  after?: ReactNode;
}) {
  return (
    <CampaignSection
      headingId={props.headingId}
      title={props.title}
      aside={
        <AddRowButton onClick={props.onAdd} disabled={!props.canAdd}>
          {props.addLabel}
        </AddRowButton>
      }
    >
      <Text size="sm" c="dimmed" mb="sm">
        {props.intro}
      </Text>
      {props.engineWarning && (
        <Alert color="yellow" mb="sm" role="note">
          {props.engineWarning}
        </Alert>
      )}
      {props.above}
      <Stack gap="sm">
        {props.rowCount === 0 && (
          <Text size="sm" c="dimmed">
            {props.empty}
          </Text>
        )}
        {props.children}
      </Stack>
      {props.after}
    </CampaignSection>
  );
}

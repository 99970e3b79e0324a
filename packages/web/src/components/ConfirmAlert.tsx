import { Alert, Button, Group } from "@mantine/core";
import type { ReactNode } from "react";

/**
 * A destructive step asked for in place (not in a dialog): a red alert named `label` that says what
 * happens (`children`), then the red action and Cancel.
 */
export function ConfirmAlert({
  title,
  label,
  confirmLabel,
  busy,
  onConfirm,
  onCancel,
  focusConfirm,
  children,
}: {
  title: string;
  /** The alert dialog's accessible name. */
  label: string;
  confirmLabel: string;
  /** The action is running: its button shows a spinner. */
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  /** The action takes the focus when the alert opens. */
  focusConfirm?: boolean;
  children: ReactNode;
}) {
  return (
    <Alert color="red" title={title} role="alertdialog" aria-label={label}>
      {children}
      <Group gap="xs">
        <Button color="red" loading={busy} onClick={onConfirm} data-autofocus={focusConfirm || undefined}>
          {confirmLabel}
        </Button>
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
      </Group>
    </Alert>
  );
}

// A form's buttons, bottom right: the way back (Cancel, Back) when there is one, then the submit.
import { Button, Group, type GroupProps } from "@mantine/core";
import type { ReactNode } from "react";

export function FormActions({
  submitLabel,
  busy,
  disabled,
  onCancel,
  cancelLabel = "Cancel",
  ...group
}: {
  submitLabel: ReactNode;
  /** The submit is running: its button shows a spinner. */
  busy?: boolean;
  disabled?: boolean;
  /** Leaves the form without saving; no way-back button without it. */
  onCancel?: () => void;
  cancelLabel?: string;
} & Omit<GroupProps, "children">) {
  return (
    <Group justify="flex-end" gap="xs" {...group}>
      {onCancel && (
        <Button variant="default" onClick={onCancel}>
          {cancelLabel}
        </Button>
      )}
      <Button type="submit" loading={busy} disabled={disabled}>
        {submitLabel}
      </Button>
    </Group>
  );
}

// A dialog that asks for one thing: its fields (or a sentence, for a confirmation), an error when the
// last try failed, then Cancel and the action. Enter submits; Escape and Cancel close.
import { Button, Group, Modal, type ModalProps, Stack, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { ErrorAlert } from "./States.tsx";

export function FormModal(props: {
  opened: boolean;
  onClose: () => void;
  title: string;
  /** The action button's text (its accessible name). */
  submitLabel: ReactNode;
  onSubmit: () => void;
  submitDisabled?: boolean;
  loading?: boolean;
  /** A destructive confirmation: the action is red and Cancel has the focus. */
  danger?: boolean;
  error?: unknown;
  errorTitle?: string;
  size?: ModalProps["size"];
  children: ReactNode;
}) {
  return (
    <Modal
      opened={props.opened}
      onClose={props.onClose}
      title={props.title}
      size={props.size}
      closeButtonProps={{ "aria-label": "Close" }}
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          // The dialog is a portal: React would bubble its submit to a form the dialog sits in (the
          // campaign editor's), which would then save too.
          e.stopPropagation();
          if (!props.submitDisabled && !props.loading) props.onSubmit();
        }}
        noValidate
      >
        <Stack gap="sm">
          {props.children}
          <ErrorAlert error={props.error} title={props.errorTitle} />
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={props.onClose} data-autofocus={props.danger || undefined}>
              Cancel
            </Button>
            <Button
              type="submit"
              color={props.danger ? "red" : undefined}
              disabled={props.submitDisabled}
              loading={props.loading}
            >
              {props.submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/**
 * A destructive step confirmed in a dialog: what it does (`children`, a sentence or two), the last
 * try's error, Cancel (focused) and the red action, which runs `onConfirm` (and closes on success).
 */
export function ConfirmModal(props: {
  onClose: () => void;
  title: string;
  confirmLabel: string;
  onConfirm: () => void;
  /** The action's state: running, and its last error. */
  action: { isPending: boolean; error?: unknown };
  children: ReactNode;
}) {
  return (
    <FormModal
      opened
      onClose={props.onClose}
      title={props.title}
      submitLabel={props.confirmLabel}
      danger
      loading={props.action.isPending}
      error={props.action.error}
      onSubmit={props.onConfirm}
    >
      <Text size="sm">{props.children}</Text>
    </FormModal>
  );
}

// A destructive action that asks first, in place: the button opens a red "are you sure" box with the
// consequences, the last try's error, the action and Cancel.
import { Alert, Button, Group, Text } from "@mantine/core";
import { type ReactNode, useState } from "react";
import { errorMessage } from "../lib/api.ts";

export function ConfirmButton(props: {
  /** The button that asks (for example "Delete…"). */
  triggerLabel: string;
  /** The question, the box's title. */
  title: string;
  /** The box's accessible name. */
  confirmName?: string;
  /** The action button's text. */
  confirmLabel: string;
  /** What the action does, in a sentence or two. */
  children: ReactNode;
  onConfirm: () => void;
  pending: boolean;
  /** The last try's error, if any. */
  error?: unknown;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <Button variant="light" color="red" onClick={() => setAsking(true)}>
        {props.triggerLabel}
      </Button>
    );
  }
  return (
    <Alert
      color="red"
      role="alertdialog"
      aria-label={props.confirmName ?? "Confirm deletion"}
      title={props.title}
    >
      <Text size="sm" mb="sm">
        {props.children}
      </Text>
      {props.error != null && (
        <Text size="sm" c="red.9" mb="sm" role="alert">
          {errorMessage(props.error)}
        </Text>
      )}
      <Group gap="xs">
        <Button color="red" loading={props.pending} onClick={props.onConfirm}>
          {props.confirmLabel}
        </Button>
        <Button variant="default" onClick={() => setAsking(false)}>
          Cancel
        </Button>
      </Group>
    </Alert>
  );
}

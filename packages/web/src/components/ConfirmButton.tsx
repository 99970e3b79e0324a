// A destructive action that asks first, in place: the button opens a red "are you sure" box with the
// consequences, the last try's error, the action and Cancel.
import { Button, Text } from "@mantine/core";
import { type ReactNode, useState } from "react";
import { ConfirmAlert } from "./ConfirmAlert.tsx";
import { ErrorText } from "./ErrorText.tsx";

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
    <ConfirmAlert
      title={props.title}
      label={props.confirmName ?? "Confirm deletion"}
      confirmLabel={props.confirmLabel}
      busy={props.pending}
      onConfirm={props.onConfirm}
      onCancel={() => setAsking(false)}
    >
      <Text size="sm" mb="sm">
        {props.children}
      </Text>
      <ErrorText error={props.error} c="red.9" mb="sm" />
    </ConfirmAlert>
  );
}

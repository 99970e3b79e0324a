// The toolbar of a selection (contacts, conversations): how many are selected, the actions on them, a
// way to clear it; the dialogs the actions open go in `children`.
import { Button, Group, Paper, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import type { ReactNode } from "react";
import { FormModal } from "./FormModal.tsx";

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

/** The "add a label" dialog of a selection: `apply` gets the trimmed label and says when it is done. */
export function BulkLabelDialog(props: {
  opened: boolean;
  onClose: () => void;
  title: string;
  loading: boolean;
  apply: (label: string, done: () => void) => void;
}) {
  const form = useForm({ initialValues: { label: "" } });
  const label = form.values.label.trim();
  return (
    <FormModal
      opened={props.opened}
      onClose={props.onClose}
      title={props.title}
      submitLabel="Apply label"
      submitDisabled={!label}
      loading={props.loading}
      onSubmit={() => props.apply(label, () => form.reset())}
    >
      <TextInput
        label="Label"
        placeholder="For example vip"
        {...form.getInputProps("label")}
        maxLength={50}
        data-autofocus
      />
    </FormModal>
  );
}

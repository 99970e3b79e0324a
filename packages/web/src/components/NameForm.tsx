// A one-field form that names something (a new list, a list's new name): the field shows the last
// try's error, the action sits beside it, and Cancel when the form can be left.
import { Button, Group, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { errorMessage } from "../lib/api.ts";

export function NameForm(props: {
  label: string;
  placeholder?: string;
  initialName?: string;
  /** The action button's text. */
  submitLabel: string;
  /** The trimmed name; `reset` empties the field (call it once the name is taken). */
  onSubmit: (name: string, reset: () => void) => void;
  pending: boolean;
  error: unknown;
  /** The action waits for a name (otherwise an empty one is sent and the server says why not). */
  requireName?: boolean;
  onCancel?: () => void;
}) {
  const form = useForm({ initialValues: { name: props.initialName ?? "" } });
  const missing = props.requireName === true && !form.values.name.trim();
  return (
    <form
      onSubmit={form.onSubmit(({ name }) => {
        if (!missing) props.onSubmit(name.trim(), () => form.reset());
      })}
      noValidate
    >
      <Group align="flex-start" gap="xs">
        <TextInput
          label={props.label}
          placeholder={props.placeholder}
          {...form.getInputProps("name")}
          error={props.error ? errorMessage(props.error) : undefined}
          maxLength={200}
          style={{ flex: 1 }}
        />
        <Button type="submit" mt={25} loading={props.pending} disabled={missing}>
          {props.submitLabel}
        </Button>
        {props.onCancel && (
          <Button variant="default" mt={25} onClick={props.onCancel}>
            Cancel
          </Button>
        )}
      </Group>
    </form>
  );
}

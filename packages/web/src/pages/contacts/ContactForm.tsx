import { Alert, Button, Group, Stack, TagsInput, TextInput } from "@mantine/core";
import { useState } from "react";
import { ApiError, errorMessage } from "../../lib/api.ts";
import type { ContactJson } from "../../lib/api-types.ts";

export interface ContactValues {
  firstName: string;
  lastName: string;
  phone: string;
  email: string;
  labels: string[];
}

type Field = keyof ContactValues;

export function valuesOf(c?: ContactJson): ContactValues {
  return {
    firstName: c?.firstName ?? "",
    lastName: c?.lastName ?? "",
    phone: c?.phone ?? "",
    email: c?.email ?? "",
    labels: c?.labels ?? [],
  };
}

/** Which field an API error belongs under (the server's messages are shown as they are). */
function fieldOf(err: unknown): Field | null {
  if (!(err instanceof ApiError)) return null;
  if (err.code === "INVALID_PHONE" || err.code === "CONTACT_EXISTS" || err.code === "MISSING_IDENTIFIER") {
    return "phone";
  }
  if (err.code === "INVALID_EMAIL") return "email";
  if (err.code === "VALIDATION_ERROR" && /label/i.test(err.message)) return "labels";
  return null;
}

/**
 * The contact form of the create dialog and the contact page. The values stay as typed when the
 * server refuses them; its message shows under the field it is about.
 */
export function ContactForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: ContactValues;
  submitLabel: string;
  onSubmit: (values: ContactValues) => Promise<void>;
  onCancel?: () => void;
}) {
  const [values, setValues] = useState(initial);
  const [error, setError] = useState<{ field: Field | null; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (field: Exclude<Field, "labels">) => (e: React.ChangeEvent<HTMLInputElement>) => {
    const v = e.currentTarget.value;
    setValues((old) => ({ ...old, [field]: v }));
  };
  const fieldError = (field: Field) => (error?.field === field ? error.message : undefined);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!values.phone.trim() && !values.email.trim()) {
      setError({ field: "phone", message: "Give a phone number (with its country code) or an email" });
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSubmit(values);
    } catch (err) {
      setError({ field: fieldOf(err), message: errorMessage(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        {error && error.field === null && (
          <Alert color="red" role="alert">
            {error.message}
          </Alert>
        )}
        <Group grow align="flex-start">
          <TextInput
            label="First name"
            autoComplete="off"
            value={values.firstName}
            onChange={set("firstName")}
          />
          <TextInput
            label="Last name"
            autoComplete="off"
            value={values.lastName}
            onChange={set("lastName")}
          />
        </Group>
        <TextInput
          label="Phone"
          description="With its country code, for example +1 415 555 0100"
          type="tel"
          autoComplete="off"
          value={values.phone}
          onChange={set("phone")}
          error={fieldError("phone")}
        />
        <TextInput
          label="Email"
          type="email"
          autoComplete="off"
          value={values.email}
          onChange={set("email")}
          error={fieldError("email")}
        />
        <TagsInput
          label="Labels"
          description="Press Enter after each label"
          value={values.labels}
          onChange={(labels) => setValues((old) => ({ ...old, labels }))}
          error={fieldError("labels")}
          clearable
          clearButtonProps={{ "aria-label": "Remove every label" }}
        />
        <Group justify="flex-end" gap="xs">
          {onCancel && (
            <Button variant="default" onClick={onCancel}>
              Cancel
            </Button>
          )}
          <Button type="submit" loading={busy}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The body the API takes: empty fields are null (they clear, or mean "not given"). */
export function contactBody(v: ContactValues) {
  const orNull = (s: string) => (s.trim() === "" ? null : s.trim());
  return {
    firstName: orNull(v.firstName),
    lastName: orNull(v.lastName),
    phone: orNull(v.phone),
    email: orNull(v.email),
    labels: v.labels,
  };
}

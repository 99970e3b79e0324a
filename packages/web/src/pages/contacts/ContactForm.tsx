import { Alert, Group, Stack, TagsInput, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { FormActions } from "../../components/FormActions.tsx";
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
  // The server's refusals stay under their field until the next try, as typed values stay too.
  const form = useForm({
    initialValues: initial,
    clearInputErrorOnChange: false,
    validate: {
      phone: (phone, values) =>
        !phone.trim() && !values.email.trim()
          ? "Give a phone number (with its country code) or an email"
          : null,
    },
  });
  // A refusal that belongs to no field, above the fields.
  const [formError, setFormError] = useState<string | null>(null);

  const save = async (values: ContactValues) => {
    try {
      await onSubmit(values);
    } catch (err) {
      const field = fieldOf(err);
      if (field) form.setFieldError(field, errorMessage(err));
      else setFormError(errorMessage(err));
    }
  };

  return (
    <form
      onSubmit={(event) => {
        setFormError(null);
        form.onSubmit(save)(event);
      }}
      noValidate
    >
      <Stack gap="sm">
        {formError !== null && (
          <Alert color="red" role="alert">
            {formError}
          </Alert>
        )}
        <Group grow align="flex-start">
          <TextInput label="First name" autoComplete="off" {...form.getInputProps("firstName")} />
          <TextInput label="Last name" autoComplete="off" {...form.getInputProps("lastName")} />
        </Group>
        <TextInput
          label="Phone"
          description="With its country code, for example +1 415 555 0100"
          type="tel"
          autoComplete="off"
          {...form.getInputProps("phone")}
        />
        <TextInput label="Email" type="email" autoComplete="off" {...form.getInputProps("email")} />
        <TagsInput
          label="Labels"
          description="Press Enter after each label"
          {...form.getInputProps("labels")}
          clearable
          clearButtonProps={{ "aria-label": "Remove every label" }}
        />
        <FormActions onCancel={onCancel} busy={form.submitting} submitLabel={submitLabel} />
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

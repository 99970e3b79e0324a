import { Alert, Button, Stack } from "@mantine/core";
import { type FormEvent, type ReactNode, useState } from "react";
import { errorMessage } from "../../lib/api.ts";

/**
 * The form of the signed-out pages (sign-in, onboarding, invite, password reset): the fields, the
 * server's refusal above them, and the submit button, busy while the request runs.
 */
export function AuthForm({
  submitLabel,
  validate,
  send,
  children,
  footer,
}: {
  submitLabel: string;
  /** Checks the fields (each says what is wrong); false: nothing is sent. */
  validate?: () => boolean;
  /** The request and what follows it; what it throws is shown above the fields. */
  send: () => Promise<void>;
  /** The fields. */
  children: ReactNode;
  /** Under the submit button. */
  footer?: ReactNode;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (validate && !validate()) return;
    setError(null);
    setBusy(true);
    try {
      await send();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        {children}
        <Button type="submit" loading={busy} fullWidth mt="xs">
          {submitLabel}
        </Button>
        {footer}
      </Stack>
    </form>
  );
}

import { Alert, Button, Stack } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { type ReactNode, useState } from "react";
import { errorMessage } from "../../lib/api.ts";

/**
 * The form of the signed-out pages (sign-in, onboarding, invite, password reset): the fields, the
 * server's refusal above them, and the submit button, busy while the request runs. The fields' state
 * and checks are the page's `@mantine/form` form; nothing is sent while a check fails.
 */
export function AuthForm<Values>({
  form,
  submitLabel,
  send,
  children,
  footer,
}: {
  form: UseFormReturnType<Values>;
  submitLabel: string;
  /** The request and what follows it; what it throws is shown above the fields. */
  send: (values: Values) => Promise<void>;
  /** The fields. */
  children: ReactNode;
  /** Under the submit button. */
  footer?: ReactNode;
}) {
  const [error, setError] = useState<string | null>(null);
  // A refused check keeps the server's last refusal on screen: it is cleared only when a request goes.
  const submit = form.onSubmit(async (values) => {
    setError(null);
    try {
      await send(values);
    } catch (err) {
      setError(errorMessage(err));
    }
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        {children}
        <Button type="submit" loading={form.submitting} fullWidth mt="xs">
          {submitLabel}
        </Button>
        {footer}
      </Stack>
    </form>
  );
}

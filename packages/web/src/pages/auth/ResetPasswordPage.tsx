import { Alert, Button, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { NewPasswordField, newPasswordError } from "../../components/PersonFields.tsx";
import { LoadingState } from "../../components/States.tsx";
import { ApiError, errorMessage } from "../../lib/api.ts";
import { resetPassword, usePasswordReset } from "../../lib/queries/auth.ts";
import { useSetSession } from "../../lib/session.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { AuthCard } from "./AuthCard.tsx";
import { AuthForm } from "./AuthForm.tsx";

function LinkGone() {
  return (
    <AuthCard title="This link cannot be used">
      <Text size="sm" role="alert">
        This link has expired or was already used. A reset link works once, for one hour.
      </Text>
      <Button component={Link} to="/forgot-password">
        Ask for a new link
      </Button>
      <Button component={Link} to="/signin" variant="light">
        Go to sign-in
      </Button>
    </AuthCard>
  );
}

/** The link from the reset e-mail: a new password, twice; then the person signs in with it. */
export function ResetPasswordPage() {
  useDocumentTitle("Reset password");
  const { token = "" } = useParams();
  const link = usePasswordReset(token);
  const form = useForm({
    initialValues: { password: "", confirm: "" },
    validate: {
      password: newPasswordError,
      // Said only once the first one is long enough.
      confirm: (confirm, { password }) =>
        password.length >= 8 && confirm !== password ? "The two passwords are not the same" : null,
    },
  });
  const [gone, setGone] = useState(false);
  const [done, setDone] = useState(false);
  const setSession = useSetSession();

  if (link.isPending) return <LoadingState />;
  if (done) {
    return (
      <AuthCard title="Your password is set">
        <Text size="sm" role="status">
          Sign in with your new password. Every session that was open with the old one was signed out.
        </Text>
        <Button component={Link} to="/signin" state={{ email: link.data?.email }}>
          Sign in
        </Button>
      </AuthCard>
    );
  }
  if (gone || (link.isError && link.error instanceof ApiError && link.error.status === 404)) {
    return <LinkGone />;
  }
  if (link.isError) {
    return (
      <AuthCard title="Choose a new password">
        <Alert color="red" role="alert">
          {errorMessage(link.error)}
        </Alert>
        <Button variant="light" onClick={() => void link.refetch()}>
          Try again
        </Button>
      </AuthCard>
    );
  }

  const send = async ({ password }: typeof form.values) => {
    try {
      await resetPassword(token, password);
      // Every session of the person ended, this browser's too if it had one.
      setSession(null);
      setDone(true);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setGone(true);
      else throw err;
    }
  };

  return (
    <AuthCard title="Choose a new password">
      <AuthForm form={form} submitLabel="Set new password" send={send}>
        <TextInput label="E-mail" value={link.data.email} readOnly autoComplete="username" />
        <NewPasswordField
          label="New password"
          description="At least 8 characters"
          {...form.getInputProps("password")}
        />
        <NewPasswordField label="Confirm new password" {...form.getInputProps("confirm")} />
      </AuthForm>
    </AuthCard>
  );
}

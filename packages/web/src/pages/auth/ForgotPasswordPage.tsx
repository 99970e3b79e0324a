import { Anchor, Button, Text } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { Link, useLocation } from "react-router";
import { SignInEmailField } from "../../components/PersonFields.tsx";
import { requestPasswordReset } from "../../lib/queries/auth.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { AuthCard } from "./AuthCard.tsx";
import { AuthForm } from "./AuthForm.tsx";

/**
 * "Forgot password": the person gives their address and is told to check their e-mail. The server
 * answers the same whether or not the address signs in here, so the page does too.
 */
export function ForgotPasswordPage() {
  useDocumentTitle("Forgot password");
  const location = useLocation();
  const form = useForm({
    initialValues: { email: (location.state as { email?: string } | null)?.email ?? "" },
    validate: {
      email: (email) =>
        /^[^@\s]+@[^@\s]+$/.test(email.trim()) ? null : "Enter the e-mail address you sign in with",
    },
    // The message stays until the next try.
    clearInputErrorOnChange: false,
  });
  const [sentTo, setSentTo] = useState<string | null>(null);

  const send = async ({ email }: { email: string }) => {
    const address = email.trim();
    await requestPasswordReset(address);
    setSentTo(address);
  };

  if (sentTo) {
    return (
      <AuthCard title="Check your e-mail">
        <Text size="sm" role="status">
          If <strong>{sentTo}</strong> signs in to Parley, a link to choose a new password is on its way. It
          works once, for one hour. Nothing there? Check the spam folder, or ask again in a few minutes.
        </Text>
        <Button component={Link} to="/signin" variant="light">
          Back to sign-in
        </Button>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Reset your password"
      intro="Enter the address you sign in with and we will e-mail you a link to choose a new password."
    >
      <AuthForm
        form={form}
        submitLabel="Send reset link"
        send={send}
        footer={
          <Anchor component={Link} to="/signin" size="sm" ta="center">
            Back to sign-in
          </Anchor>
        }
      >
        <SignInEmailField label="E-mail" {...form.getInputProps("email")} />
      </AuthForm>
    </AuthCard>
  );
}

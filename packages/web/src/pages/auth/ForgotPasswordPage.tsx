import { Alert, Anchor, Button, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { Link, useLocation } from "react-router";
import { api, errorMessage } from "../../lib/api.ts";
import { AuthCard } from "./AuthCard.tsx";

/**
 * "Forgot password": the person gives their address and is told to check their e-mail. The server
 * answers the same whether or not the address signs in here, so the page does too.
 */
export function ForgotPasswordPage() {
  const location = useLocation();
  const [email, setEmail] = useState(() => (location.state as { email?: string } | null)?.email ?? "");
  const [emailError, setEmailError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [sentTo, setSentTo] = useState<string | null>(null);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const address = email.trim();
    if (!/^[^@\s]+@[^@\s]+$/.test(address)) {
      setEmailError("Enter the e-mail address you sign in with");
      return;
    }
    setEmailError(null);
    setError(null);
    setBusy(true);
    try {
      await api("POST", "/password-resets", { email: address });
      setSentTo(address);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
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
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <TextInput
            label="E-mail"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={emailError}
          />
          <Button type="submit" loading={busy} fullWidth mt="xs">
            Send reset link
          </Button>
          <Anchor component={Link} to="/signin" size="sm" ta="center">
            Back to sign-in
          </Anchor>
        </Stack>
      </form>
    </AuthCard>
  );
}

import { Button, Paper, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import { PasswordField } from "../../components/PasswordField.tsx";
import { ErrorAlert } from "../../components/States.tsx";
import { errorMessage } from "../../lib/api.ts";
import type { Session } from "../../lib/api-types.ts";
import { notify } from "../../lib/notify.ts";
import { changePassword } from "../../lib/queries/auth.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { AlertsSection } from "./AlertsSection.tsx";
import { NotificationsSection } from "./NotificationsSection.tsx";
import { CreditsSection, DisplayNameSection } from "./ProfileSections.tsx";

/**
 * Every role: who you are, a password change (it signs out your other sessions) and what you are
 * notified of.
 */
export function AccountPage({ session }: { session: Session }) {
  useDocumentTitle("Your profile");
  const [currentPassword, setCurrent] = useState("");
  const [newPassword, setNew] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [newError, setNewError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (newPassword.length < 8) {
      setNewError("Use at least 8 characters");
      return;
    }
    setNewError(null);
    setError(null);
    setBusy(true);
    try {
      await changePassword(currentPassword, newPassword);
      setCurrent("");
      setNew("");
      notify("Password changed. Your other sessions were signed out.");
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack maw={760}>
      <Title order={1} size="h2">
        Your profile
      </Title>
      <Paper withBorder p="md">
        <Text size="sm">
          Signed in as <strong>{session.user.email}</strong> ({session.user.role}) in {session.account.name}.
        </Text>
      </Paper>
      <DisplayNameSection session={session} />
      {session.account.kind === "subaccount" && <CreditsSection />}
      <Paper withBorder p="md" component="section" aria-labelledby="password-heading">
        <Title order={2} size="h4" id="password-heading" mb="sm">
          Change password
        </Title>
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <ErrorAlert error={error} />
            <PasswordField
              label="Current password"
              autoComplete="current-password"
              value={currentPassword}
              onChange={(e) => setCurrent(e.currentTarget.value)}
            />
            <PasswordField
              label="New password"
              description="At least 8 characters"
              autoComplete="new-password"
              value={newPassword}
              onChange={(e) => setNew(e.currentTarget.value)}
              error={newError}
            />
            <Button type="submit" loading={busy} w="fit-content">
              Change password
            </Button>
          </Stack>
        </form>
      </Paper>
      <NotificationsSection />
      <AlertsSection userId={session.user.id} />
    </Stack>
  );
}

import { Button, Paper, Stack, Text, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useMutation } from "@tanstack/react-query";
import { PasswordField } from "../../components/PasswordField.tsx";
import { newPasswordError } from "../../components/PersonFields.tsx";
import { ErrorAlert } from "../../components/States.tsx";
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
  const form = useForm({
    initialValues: { currentPassword: "", newPassword: "" },
    validate: { newPassword: newPasswordError },
    // The message stays until the next try.
    clearInputErrorOnChange: false,
  });
  const change = useMutation({
    mutationFn: (values: typeof form.values) => changePassword(values.currentPassword, values.newPassword),
    onSuccess: () => {
      form.reset();
      notify("Password changed. Your other sessions were signed out.");
    },
  });

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
        <form onSubmit={form.onSubmit((values) => change.mutate(values))} noValidate>
          <Stack gap="sm">
            <ErrorAlert error={change.error} />
            <PasswordField
              label="Current password"
              autoComplete="current-password"
              {...form.getInputProps("currentPassword")}
            />
            <PasswordField
              label="New password"
              description="At least 8 characters"
              autoComplete="new-password"
              {...form.getInputProps("newPassword")}
            />
            <Button type="submit" loading={change.isPending} w="fit-content">
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

import { Button, Paper, Stack, Title } from "@mantine/core";
import { useId, useState } from "react";
import { NotificationPreferencesTable } from "../../components/NotificationPreferencesTable.tsx";
import { ErrorAlert, ErrorState, LoadingState } from "../../components/States.tsx";
import { notify } from "../../lib/notify.ts";
import {
  type PreferenceMap,
  useNotificationPreferences,
  useSaveNotificationPreferences,
} from "../../lib/queries/notifications.ts";

/** A person's own choice, per kind, of e-mail and the bell (until they choose: the account's defaults). */
export function NotificationsSection() {
  const headingId = useId();
  const prefs = useNotificationPreferences();
  const save = useSaveNotificationPreferences();
  const [draft, setDraft] = useState<PreferenceMap | null>(null);
  const value = draft ?? prefs.data?.preferences ?? {};

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    save.mutate(value, {
      onSuccess: () => {
        setDraft(null);
        notify("Notification preferences saved");
      },
    });
  };

  return (
    <Paper withBorder p="md" component="section" aria-labelledby={headingId}>
      <Title order={2} size="h4" id={headingId} mb="sm">
        Notifications
      </Title>
      {prefs.isPending && <LoadingState label="Loading notification preferences" />}
      {prefs.isError && <ErrorState error={prefs.error} onRetry={() => void prefs.refetch()} />}
      {prefs.data && (
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <ErrorAlert error={save.error} />
            <NotificationPreferencesTable
              kinds={prefs.data.kinds}
              value={value}
              onChange={setDraft}
              caption="What you hear about, by e-mail (several at once arrive as one digest) and in the bell."
            />
            <Button type="submit" loading={save.isPending} w="fit-content">
              Save notification preferences
            </Button>
          </Stack>
        </form>
      )}
    </Paper>
  );
}

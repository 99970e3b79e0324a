import { Paper, Title } from "@mantine/core";
import { useId } from "react";
import { NotificationPreferencesForm } from "../../components/NotificationPreferencesForm.tsx";
import { QueryStatus } from "../../components/QueryStatus.tsx";
import { notify } from "../../lib/notify.ts";
import {
  useNotificationPreferences,
  useSaveNotificationPreferences,
} from "../../lib/queries/notifications.ts";

/** A person's own choice, per kind, of e-mail and the bell (until they choose: the account's defaults). */
export function NotificationsSection() {
  const headingId = useId();
  const prefs = useNotificationPreferences();
  const save = useSaveNotificationPreferences();

  return (
    <Paper withBorder p="md" component="section" aria-labelledby={headingId}>
      <Title order={2} size="h4" id={headingId} mb="sm">
        Notifications
      </Title>
      <QueryStatus query={prefs} loadingLabel="Loading notification preferences" />
      {prefs.data && (
        <NotificationPreferencesForm
          kinds={prefs.data.kinds}
          saved={prefs.data.preferences}
          caption="What you hear about, by e-mail (several at once arrive as one digest) and in the bell."
          submitLabel="Save notification preferences"
          saving={save.isPending}
          error={save.error}
          onSave={(value, done) =>
            save.mutate(value, {
              onSuccess: () => {
                done();
                notify("Notification preferences saved");
              },
            })
          }
        />
      )}
    </Paper>
  );
}

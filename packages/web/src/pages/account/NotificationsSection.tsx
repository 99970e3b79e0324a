import { NotificationPreferencesForm } from "../../components/NotificationPreferencesForm.tsx";
import { QueryStatus } from "../../components/QueryStatus.tsx";
import { Section } from "../../components/Section.tsx";
import { notify } from "../../lib/notify.ts";
import {
  useNotificationPreferences,
  useSaveNotificationPreferences,
} from "../../lib/queries/notifications.ts";

/** A person's own choice, per kind, of e-mail and the bell (until they choose: the account's defaults). */
export function NotificationsSection() {
  const prefs = useNotificationPreferences();
  const save = useSaveNotificationPreferences();

  return (
    <Section title="Notifications">
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
    </Section>
  );
}

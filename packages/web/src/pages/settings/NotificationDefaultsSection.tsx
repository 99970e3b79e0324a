import { NumberInput } from "@mantine/core";
import { useState } from "react";
import { NotificationPreferencesForm } from "../../components/NotificationPreferencesForm.tsx";
import { Section } from "../../components/Section.tsx";
import { ErrorState, LoadingState } from "../../components/States.tsx";
import { notify } from "../../lib/notify.ts";
import {
  useNotificationDefaults,
  useNotificationPreferences,
  useSaveNotificationDefaults,
} from "../../lib/queries/notifications.ts";

/** Owners and admins: what everyone hears about until they choose, and the low-credits warning. */
export function NotificationDefaultsSection() {
  const defaults = useNotificationDefaults();
  // The kinds' names, when the defaults' answer does not carry them.
  const own = useNotificationPreferences();
  const save = useSaveNotificationDefaults();
  const [threshold, setThreshold] = useState<string | number | null>(null);
  const kinds = defaults.data?.kinds ?? own.data?.kinds;
  const shownThreshold = threshold ?? defaults.data?.creditsLowThreshold ?? "";

  return (
    <Section
      title="Notification defaults"
      description="What each person in the team is told, by e-mail and in the app, until they choose for themselves on their profile page."
    >
      {(defaults.isPending || (!kinds && own.isPending)) && (
        <LoadingState label="Loading notification defaults" />
      )}
      {defaults.isError && <ErrorState error={defaults.error} onRetry={() => void defaults.refetch()} />}
      {defaults.data && kinds && (
        <NotificationPreferencesForm
          kinds={kinds}
          saved={defaults.data.defaults}
          caption="The account's defaults, per kind and medium."
          submitLabel="Save notification defaults"
          saving={save.isPending}
          error={save.error}
          onSave={(value, done) => {
            const creditsLowThreshold =
              shownThreshold === "" || shownThreshold === null ? null : Number(shownThreshold);
            save.mutate(
              { defaults: value, creditsLowThreshold },
              {
                onSuccess: () => {
                  done();
                  setThreshold(null);
                  notify("Notification defaults saved");
                },
              },
            );
          }}
        >
          <NumberInput
            label="Warn when credits fall below"
            description="In credits. Leave empty for no warning."
            min={0}
            decimalScale={2}
            allowNegative={false}
            thousandSeparator=","
            value={shownThreshold}
            onChange={(v) => setThreshold(v === "" ? "" : v)}
            maw={260}
          />
        </NotificationPreferencesForm>
      )}
    </Section>
  );
}

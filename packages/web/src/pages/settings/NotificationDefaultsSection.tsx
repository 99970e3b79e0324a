import { Button, NumberInput, Stack } from "@mantine/core";
import { useState } from "react";
import { NotificationPreferencesTable } from "../../components/NotificationPreferencesTable.tsx";
import { ErrorAlert, ErrorState, LoadingState } from "../../components/States.tsx";
import { notify } from "../../lib/notify.ts";
import {
  type PreferenceMap,
  useNotificationDefaults,
  useNotificationPreferences,
  useSaveNotificationDefaults,
} from "../../lib/queries/notifications.ts";
import { Section } from "./Section.tsx";

/** Owners and admins: what everyone hears about until they choose, and the low-credits warning. */
export function NotificationDefaultsSection() {
  const defaults = useNotificationDefaults();
  // The kinds' names, when the defaults' answer does not carry them.
  const own = useNotificationPreferences();
  const save = useSaveNotificationDefaults();
  const [draft, setDraft] = useState<PreferenceMap | null>(null);
  const [threshold, setThreshold] = useState<string | number | null>(null);
  const kinds = defaults.data?.kinds ?? own.data?.kinds;
  const value = draft ?? defaults.data?.defaults ?? {};
  const shownThreshold = threshold ?? defaults.data?.creditsLowThreshold ?? "";

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    const creditsLowThreshold =
      shownThreshold === "" || shownThreshold === null ? null : Number(shownThreshold);
    save.mutate(
      { defaults: value, creditsLowThreshold },
      {
        onSuccess: () => {
          setDraft(null);
          setThreshold(null);
          notify("Notification defaults saved");
        },
      },
    );
  };

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
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <ErrorAlert error={save.error} />
            <NotificationPreferencesTable
              kinds={kinds}
              value={value}
              onChange={setDraft}
              caption="The account's defaults, per kind and medium."
            />
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
            <Button type="submit" loading={save.isPending} w="fit-content">
              Save notification defaults
            </Button>
          </Stack>
        </form>
      )}
    </Section>
  );
}

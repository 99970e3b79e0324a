import { Button, Stack } from "@mantine/core";
import { type ReactNode, useState } from "react";
import type { NotificationKindInfo, PreferenceMap } from "../lib/queries/notifications.ts";
import { NotificationPreferencesTable } from "./NotificationPreferencesTable.tsx";
import { ErrorAlert } from "./States.tsx";

/**
 * The switches of NotificationPreferencesTable as a form (a person's own choices, or the account's
 * defaults): the changes are a draft over what is saved until `onSave` calls `saved`.
 */
export function NotificationPreferencesForm({
  kinds,
  saved,
  caption,
  submitLabel,
  saving,
  error,
  onSave,
  children,
}: {
  kinds: NotificationKindInfo[];
  saved: PreferenceMap;
  caption: string;
  submitLabel: string;
  saving: boolean;
  /** The last save's failure. */
  error: unknown;
  /** Sends the choices; `done` drops the draft once they are saved. */
  onSave: (value: PreferenceMap, done: () => void) => void;
  /** More fields, under the table. */
  children?: ReactNode;
}) {
  const [draft, setDraft] = useState<PreferenceMap | null>(null);
  const value = draft ?? saved;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onSave(value, () => setDraft(null));
      }}
      noValidate
    >
      <Stack gap="sm">
        <ErrorAlert error={error} />
        <NotificationPreferencesTable kinds={kinds} value={value} onChange={setDraft} caption={caption} />
        {children}
        <Button type="submit" loading={saving} w="fit-content">
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );
}

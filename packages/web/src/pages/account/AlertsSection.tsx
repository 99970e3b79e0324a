import { Paper, Stack, Switch, Text, Title } from "@mantine/core";
import { useId, useState } from "react";
import { ErrorAlert } from "../../components/States.tsx";
import { type AlertKind, beep, useAlertChoices } from "../../lib/alerts.ts";

const SOUNDS: { kind: AlertKind; label: string }[] = [
  { kind: "newConversation", label: "Sound for new conversations" },
  { kind: "assignedMessage", label: "Sound for messages in conversations assigned to me" },
  { kind: "needsHuman", label: "Sound when a conversation needs a human" },
];

/**
 * A sound and a browser notification for what needs the person, kept in this browser for this person
 * (the sound and the browser's permission belong to the browser too).
 */
export function AlertsSection({ userId }: { userId: string }) {
  const headingId = useId();
  const [choices, setChoices] = useAlertChoices(userId);
  const [problem, setProblem] = useState<string | null>(null);
  const supported = typeof window !== "undefined" && "Notification" in window;

  const switchBrowser = async (on: boolean) => {
    setProblem(null);
    if (!on) {
      setChoices({ ...choices, browser: false });
      return;
    }
    if (!supported) {
      setProblem("This browser does not show notifications.");
      return;
    }
    // Asked only now, when the person switches it on.
    const permission =
      Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
    if (permission !== "granted") {
      setProblem("The browser did not allow notifications. Allow them in its site settings, then try again.");
      return;
    }
    setChoices({ ...choices, browser: true });
  };

  return (
    <Paper withBorder p="md" component="section" aria-labelledby={headingId}>
      <Title order={2} size="h4" id={headingId} mb="sm">
        Alerts in this browser
      </Title>
      <Stack gap="sm">
        <Text size="sm">
          For new conversations, messages in conversations assigned to you, and conversations that need a
          human. Saved in this browser only.
        </Text>
        {SOUNDS.map(({ kind, label }) => (
          <Switch
            key={kind}
            label={label}
            checked={choices.sound[kind]}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              setChoices({ ...choices, sound: { ...choices.sound, [kind]: on } });
              // A sample, so the person knows what they will hear.
              if (on) beep();
            }}
          />
        ))}
        <Switch
          label="Browser notifications"
          checked={choices.browser}
          onChange={(e) => void switchBrowser(e.currentTarget.checked)}
        />
        <ErrorAlert error={problem} />
      </Stack>
    </Paper>
  );
}

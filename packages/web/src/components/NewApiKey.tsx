import { Alert, Text } from "@mantine/core";
import { CopyableCode } from "./CopyableCode.tsx";

/** A freshly created API key, shown once with a copy button (onboarding and Settings). */
export function NewApiKey({ apiKey, title, note }: { apiKey: string; title: string; note: string }) {
  return (
    <Alert color="green" title={title} role="status">
      <Text size="sm" mb="xs">
        {note}
      </Text>
      <CopyableCode value={apiKey} copyLabel="Copy key" testId="new-api-key" />
    </Alert>
  );
}

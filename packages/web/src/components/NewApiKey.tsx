import { Alert, Button, Code, CopyButton, Group, Text } from "@mantine/core";

/** A freshly created API key, shown once with a copy button (onboarding and Settings). */
export function NewApiKey({ apiKey, title, note }: { apiKey: string; title: string; note: string }) {
  return (
    <Alert color="green" title={title} role="status">
      <Text size="sm" mb="xs">
        {note}
      </Text>
      <Group gap="xs" wrap="nowrap" align="center">
        <Code block style={{ flex: 1, wordBreak: "break-all" }} data-testid="new-api-key">
          {apiKey}
        </Code>
        <CopyButton value={apiKey}>
          {({ copied, copy }) => (
            <Button size="xs" variant="light" color={copied ? "teal" : "blue"} onClick={copy}>
              {copied ? "Copied" : "Copy key"}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Alert>
  );
}
